//! Which runs can verify what they read (`verify` on a phase, `keystorm run --verify`):
//! every body keystorm writes is regenerated from the workload, so a read can be checked
//! wherever the target keeps what it was given. The embedded target in `size-only`
//! storage keeps only sizes and answers zeros, so it can be verified only when keystorm
//! wrote zeros.

use super::{Content, EmbeddedStorage, Endpoint, PhaseKind, PhasePlan, PhaseWork, Plan};
use keystorm_types::OpKind;

impl Plan {
    /// Whether any phase verifies what it reads.
    pub fn verifies(&self) -> bool {
        self.phases().any(|p| p.verify)
    }

    /// Why the phases that verify cannot, if they cannot.
    pub fn verify_refusal(&self) -> Option<String> {
        let verifies = self.verifies();
        let zeros_only = self.target.endpoint
            == Endpoint::Embedded {
                storage: EmbeddedStorage::SizeOnly,
            };
        (verifies && zeros_only && self.objects.content != Content::Zero).then(|| {
            "`verify` cannot check this run: the embedded target in `size-only` storage \
             keeps no bytes and answers zeros, while keystorm writes random bytes; write \
             zeros (`objects: { content: zero }`) or keep the bytes (`storage: memory`)"
                .to_string()
        })
    }

    /// Turns `verify` on for every phase that GETs keys of the keyspace; returns how
    /// many phases that is.
    pub fn verify_all_gets(&mut self) -> usize {
        let mut n = 0;
        for p in self.phases_mut() {
            if gets_keys(p) {
                p.verify = true;
                n += 1;
            }
        }
        n
    }
}

/// An operations phase whose GETs read keys of the keyspace (not of a key file or a
/// listing: keystorm does not know what someone else wrote).
pub(crate) fn gets_keys(p: &PhasePlan) -> bool {
    matches!(p.kind, PhaseKind::Operations { .. })
        && p.keys.is_none()
        && match &p.work {
            PhaseWork::Single(k) => *k == OpKind::Get,
            PhaseWork::Mix(weights) => weights.iter().any(|(k, _)| *k == OpKind::Get),
        }
}
