//! `expect:` on the workload or on a phase: thresholds the run must meet
//! (`get.p99 < 20ms`), each read by the one parser every judge of a run uses, so a
//! threshold that would not be understood at the end is refused here, at its line.

use serde_saphyr::Spanned;

use super::values::{R, at, loc_of};
use keystorm_results::threshold::Threshold;

/// At most this many thresholds in one list.
const MAX_THRESHOLDS: usize = 64;

/// The thresholds of one `expect:` list, as written (normalised spacing); why one
/// cannot be read, at its line.
pub(super) fn thresholds(raw: Option<&Spanned<Vec<Spanned<String>>>>) -> R<Vec<String>> {
    let Some(list) = raw else {
        return Ok(Vec::new());
    };
    if list.value.len() > MAX_THRESHOLDS {
        return at(
            loc_of(list),
            format!(
                "`expect` lists {} thresholds; at most {MAX_THRESHOLDS}",
                list.value.len()
            ),
        );
    }
    list.value
        .iter()
        .map(|item| match item.value.parse::<Threshold>() {
            Ok(t) => Ok(t.text),
            Err(e) => at(loc_of(item), format!("`expect`: {e}")),
        })
        .collect()
}
