//! Each agent's own key. Every agent calls with the server's one token (or none, on
//! loopback), so the token alone cannot tell one agent from another: without more, any
//! of them could heartbeat, report or send files in another's name. So each
//! registration gets a secret of its own — 32 bytes of the operating system's CSPRNG,
//! in hex — which the agent sends with every later call; the controller keeps only its
//! SHA-256 digest (never the key: not on disk, not in its logs, not in `/api/agents`)
//! and compares digests in constant time (`Fleet::check_agent_key`). An id this
//! controller does not know stays `unknown_agent`, whatever key comes with it, so an
//! agent of a controller that restarted registers again.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// The digest of an agent's key: all the controller keeps of it.
pub struct KeyDigest([u8; 32]);

impl KeyDigest {
    /// A new key, and its digest.
    pub fn new_key() -> (String, KeyDigest) {
        let mut secret = [0u8; 32];
        rand::rng().fill_bytes(&mut secret);
        let key = hex::encode(secret);
        let digest = KeyDigest::of(&key);
        (key, digest)
    }

    /// The digest of `key`.
    pub fn of(key: &str) -> KeyDigest {
        KeyDigest(Sha256::digest(key.as_bytes()).into())
    }

    /// Whether `other` is the same digest, compared in constant time.
    pub fn same_as(&self, other: &KeyDigest) -> bool {
        self.0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_is_new_and_only_its_digest_matches() {
        let (key, digest) = KeyDigest::new_key();
        let (other, _) = KeyDigest::new_key();
        assert_eq!(key.len(), 64);
        assert!(key.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(key, other);
        assert!(digest.same_as(&KeyDigest::of(&key)));
        assert!(!digest.same_as(&KeyDigest::of(&other)));
        assert!(!digest.same_as(&KeyDigest::of("")));
        // The digest is not the key.
        assert_ne!(hex::encode(digest.0), key);
    }
}
