//! Keeping secrets out of everything keystorm writes or answers, by value: a
//! [`Redactor`] holds the secret values a run knows (the inline keys of its workload,
//! the keys it resolved from the environment or a profile) and replaces each of them
//! by [`REDACTED`] wherever it appears, whatever field or message carries it.
//!
//! A run [registers](register) its redactor for as long as it goes, so that the writers
//! that see text from anywhere in the process — the results store, the event log, the
//! live event stream, standard error and the log — redact with every secret a run of
//! this process holds ([`active`]), without each call site knowing which run it
//! writes for. Nothing here runs per request: only where text is written.

mod json_strings;
mod needles;
mod redactor;
mod registry;
#[cfg(test)]
mod tests;

pub use needles::WHOLE_WORD_BELOW;
pub use redactor::{REDACTED, Redactor};
pub use registry::{Registration, active, register};
