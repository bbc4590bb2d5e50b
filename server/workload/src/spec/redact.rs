//! Keeps a workload's secrets out of everything keystorm shows or stores: the workload
//! copy in a run's results, the API's workload text, error messages quoting the text.
//!
//! Redaction is by value ([`keystorm_results::secrets`]): every secret the workload
//! holds (found by `secret_scan`) is replaced wherever it appears — where it is set,
//! where an alias shows it again, in a comment.

use keystorm_results::secrets::{self, Redactor};

pub(crate) use keystorm_results::secrets::REDACTED;

/// The redactor of the secrets written in workload `text`.
pub fn workload_redactor(text: &str) -> Redactor {
    Redactor::new(super::secret_scan::secrets_of(text))
}

/// `text` with every secret it holds — and every secret of the runs going in this
/// process ([`secrets::active`]) — replaced by [`REDACTED`]; everything else byte for
/// byte as it was.
pub fn redact_secrets(text: &str) -> String {
    workload_redactor(text)
        .with(&secrets::active())
        .redact(text)
        .into_owned()
}

#[cfg(test)]
mod tests;
