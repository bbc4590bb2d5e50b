//! An event's free text — messages, errors, the endpoint, failed transfers — with
//! secrets replaced before anyone sees it: the terminal's progress, the live view, and
//! the controller an agent forwards its warnings to. (The log line is redacted again as
//! a whole when it is written.)

use super::RunEvent;
use crate::secrets::Redactor;

impl RunEvent {
    /// Replaces the secrets `redactor` knows in the event's text.
    pub fn redact(&mut self, redactor: &Redactor) {
        if redactor.is_empty() {
            return;
        }
        match self {
            RunEvent::Started { endpoint, .. } => redactor.redact_in_place(endpoint),
            RunEvent::Warning { message } => redactor.redact_in_place(message),
            RunEvent::Finished {
                error: Some(error), ..
            } => redactor.redact_in_place(error),
            RunEvent::Integrity(f) => {
                for text in [&mut f.bucket, &mut f.key, &mut f.detail] {
                    redactor.redact_in_place(text);
                }
            }
            RunEvent::Audit(a) => {
                redactor.redact_in_place(&mut a.bucket);
                for e in &mut a.examples {
                    redactor.redact_in_place(&mut e.key);
                    redactor.redact_in_place(&mut e.detail);
                }
            }
            RunEvent::Keys(k) => {
                for text in [&mut k.bucket, &mut k.file] {
                    redactor.redact_in_place(text);
                }
                if let Some(p) = &mut k.prefix {
                    redactor.redact_in_place(p);
                }
            }
            RunEvent::Pause(p) => redactor.redact_in_place(&mut p.detail),
            RunEvent::Fleet(f) => {
                redactor.redact_in_place(&mut f.detail);
                if let Some(agent) = &mut f.agent {
                    redactor.redact_in_place(agent);
                }
            }
            RunEvent::Step(s) => redactor.redact_in_place(&mut s.bucket),
            RunEvent::Transfer { outcome, .. } => {
                for failure in &mut outcome.failures {
                    redactor.redact_in_place(failure);
                }
            }
            _ => {}
        }
    }
}
