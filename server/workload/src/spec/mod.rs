//! Workload YAML: parsed into raw structs (unknown fields rejected), then validated into
//! a [`Plan`]. Every error names the file, line and column and says what is wrong. A
//! secret's value anywhere but under `credentials` is an error too
//! ([`check_secret_places`]).

mod raw;
mod redact;
mod rgw;
mod secret_places;
mod secret_scan;
mod suggest;
mod template;
mod validate;
mod warning;
mod yaml_error;

use std::path::Path;

use crate::plan::{EmbeddedPlan, Plan};

pub(crate) use redact::REDACTED;
pub use redact::{redact_secrets, workload_redactor};
pub use template::{TemplateError, parse_template};
pub use warning::SpecWarning;

/// A workload that could not be turned into a plan.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// `file:line:column: message`
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// Parses and validates workload text. `file` is used in messages only; a message that
/// quotes the text never shows one of its secrets.
pub fn parse_workload(text: &str, file: &str) -> Result<(Plan, Vec<SpecWarning>), SpecError> {
    let invalid = |line: usize, column: usize, message: String| SpecError::Invalid {
        file: file.to_string(),
        line: line.max(1),
        column: column.max(1),
        message: workload_redactor(text).redact(&message).into_owned(),
    };
    if text.trim().is_empty() {
        return Err(invalid(1, 1, "the workload file is empty".to_string()));
    }
    let raw: raw::RawWorkload = serde_saphyr::from_str(text).map_err(|e| {
        let (line, column, message) = yaml_error::describe(&e, text);
        invalid(line, column, message)
    })?;
    let mut warnings = Vec::new();
    let plan =
        validate::validate(raw, &mut warnings).map_err(|l| invalid(l.line, l.column, l.message))?;
    check_secret_places(text, file, &keystorm_results::secrets::active())?;
    if !warnings.is_empty() {
        let redactor = workload_redactor(text);
        for w in &mut warnings {
            redactor.redact_in_place(&mut w.message);
        }
    }
    Ok((plan, warnings))
}

/// Validates `text` as a workload's `target.embedded` section on its own (the
/// simulator's settings, as `keystorm sim`'s flags give them): the same checks, limits
/// and messages as in a workload. `file` is used in messages only.
pub fn parse_embedded(text: &str, file: &str) -> Result<EmbeddedPlan, SpecError> {
    let invalid = |line: usize, column: usize, message: String| SpecError::Invalid {
        file: file.to_string(),
        line: line.max(1),
        column: column.max(1),
        message,
    };
    if text.trim().is_empty() {
        return rgw::embedded(None, false).map_err(|l| invalid(l.line, l.column, l.message));
    }
    let raw: serde_saphyr::Spanned<raw::RawEmbedded> =
        serde_saphyr::from_str(text).map_err(|e| {
            let (line, column, message) = yaml_error::describe(&e, text);
            invalid(line, column, message)
        })?;
    rgw::embedded(Some(&raw), false).map_err(|l| invalid(l.line, l.column, l.message))
}

/// Refuses `text` (named `file` in the message) if a value outside `credentials` holds a
/// secret written in it or known to `known` (the process's, a run's resolved keys), at
/// that value and without repeating it.
pub fn check_secret_places(
    text: &str,
    file: &str,
    known: &keystorm_results::secrets::Redactor,
) -> Result<(), SpecError> {
    match secret_places::secret_out_of_place(text, known) {
        Some(out) => Err(SpecError::Invalid {
            file: file.to_string(),
            line: out.line,
            column: out.column,
            message: out.message,
        }),
        None => Ok(()),
    }
}

/// Reads and validates a workload file.
pub fn load_workload(path: &Path) -> Result<(Plan, Vec<SpecWarning>, String), SpecError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        file: file.clone(),
        source,
    })?;
    let (plan, warnings) = parse_workload(&text, &file)?;
    Ok((plan, warnings, text))
}
