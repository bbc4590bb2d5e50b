//! How much of what an agent says the controller takes. Every string it keeps or shows
//! (the Agents page, the run's warnings and live events, its log, the run's record on
//! disk) is bounded and printable — no control character, no invisible format
//! character or line separator ([`keystorm_types::text`]) — and every name that becomes part of a path is a
//! plain name. Checked where a call comes in, so a refused call changes nothing; an
//! agent clips its own texts ([`clip`]) to the same bounds before it sends them.

use crate::own_names::{CONTROLLER_NAMES, reserved};
use crate::protocol::{
    MAX_NEWS_PER_BEAT, RegisterRequest, SearchStepRequest, ShardDone, ShardNews, ShardReport,
};
use keystorm_types::text::is_invisible;

/// What an agent said that is out of bounds: the controller refuses the call with it.
#[derive(Debug, thiserror::Error)]
pub enum BoundsError {
    #[error("agent name {0}: 1-64 letters, digits, '.', '_' or '-', not only dots")]
    BadName(String),
    #[error("{0}")]
    BadField(String),
    /// A part's folder or file name that is not a plain one, or is the controller's.
    #[error("{0}")]
    BadPart(String),
}

/// Longest agent name.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest host an agent reports (a DNS name's limit).
pub const MAX_HOST_CHARS: usize = 255;
/// Longest keystorm version an agent reports.
pub const MAX_VERSION_CHARS: usize = 64;
/// Longest phase text in a heartbeat.
pub const MAX_PHASE_CHARS: usize = 256;
/// Longest error an agent reports at a shard's end (and warning relayed from its news).
pub const MAX_ERROR_CHARS: usize = 4096;
/// Longest string inside one piece of news (a histogram's encoding is the longest).
pub const MAX_NEWS_TEXT_CHARS: usize = 64 << 10;
/// Longest run id, run folder or file name (a name of a folder on disk).
pub const MAX_PLAIN_NAME_CHARS: usize = 128;
/// Longest endpoint an agent says it uses in place of the run's.
pub const MAX_ENDPOINT_CHARS: usize = 2048;

/// Most rows in a search step's report: one per operation.
pub const MAX_STEP_ROWS: usize = keystorm_types::OpKind::ALL.len();

/// How much of a refused value an error message shows.
const SHOWN_CHARS: usize = 60;

/// An agent's name: 1-64 letters, digits, '.', '_' or '-', not only dots.
pub fn valid_agent_name(name: &str) -> bool {
    (1..=MAX_NAME_CHARS).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.chars().all(|c| c == '.')
}

/// A name fit to be a file or folder name on any disk: letters, digits, '.', '_' and
/// '-', at most 128, not starting with '.' (so never `.`, `..` or hidden).
pub fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_PLAIN_NAME_CHARS
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Whether `c` may stand in a text the controller keeps or shows: anything that shows
/// (see [`keystorm_types::text`]), and newlines and tabs in one of `lines`.
fn shows(c: char, lines: bool) -> bool {
    !is_invisible(c) || (lines && matches!(c, '\n' | '\t'))
}

/// Whether `text` has no invisible characters (but newlines and tabs, with `lines`).
fn printable(text: &str, lines: bool) -> bool {
    text.chars().all(|c| shows(c, lines))
}

/// Whether `text` is at most `max` characters, all printable.
fn fits(text: &str, max: usize, lines: bool) -> bool {
    text.chars().count() <= max && printable(text, lines)
}

/// `text` made to fit: invisible characters (control and format characters, line and
/// paragraph separators, noncharacters; but newlines and tabs, with `lines`) become '?',
/// and past `max` characters it is cut with an ellipsis.
pub fn clip(text: &str, max: usize, lines: bool) -> String {
    let mut clipped: String = text
        .chars()
        .map(|c| if shows(c, lines) { c } else { '?' })
        .collect();
    if clipped.chars().count() > max {
        clipped = clipped.chars().take(max.saturating_sub(1)).collect();
        clipped.push('…');
    }
    clipped
}

/// A refused value as an error message shows it: quoted, escaped, cut short.
pub fn shown(value: &str) -> String {
    let mut head: String = value.chars().take(SHOWN_CHARS).collect();
    if head.len() < value.len() {
        head.push('…');
    }
    format!("{head:?}")
}

fn refused(what: &str, value: &str, rule: &str) -> BoundsError {
    BoundsError::BadField(format!("{what} {}: {rule}", shown(value)))
}

/// A registration's name, host and version, before anything else is looked at.
pub fn check_register(request: &RegisterRequest) -> Result<(), BoundsError> {
    if !valid_agent_name(&request.name) {
        return Err(BoundsError::BadName(shown(&request.name)));
    }
    check_host(&request.host)?;
    if request.version.is_empty() {
        return Err(refused("version", "", "a keystorm version is not empty"));
    }
    check_text("version", &request.version, MAX_VERSION_CHARS, false)?;
    match &request.endpoint {
        Some(url) => check_endpoint(url),
        None => Ok(()),
    }
}

/// The endpoint an agent uses in place of the run's: printable, bounded, and without
/// the `user:password@` of a URL (credentials are never shown).
fn check_endpoint(url: &str) -> Result<(), BoundsError> {
    check_text("endpoint", url, MAX_ENDPOINT_CHARS, false)?;
    if url.is_empty() || url.contains('@') {
        return Err(BoundsError::BadField(
            "endpoint: a URL like http://host:port, without credentials".to_string(),
        ));
    }
    Ok(())
}

/// The host an agent reports: at most 255 characters, none of them invisible (a control
/// or format character, a line separator).
pub fn check_host(host: &str) -> Result<(), BoundsError> {
    check_text("host", host, MAX_HOST_CHARS, false)
}

/// Refuses `text` (field `what`) past `max` characters or with an invisible character
/// (but newlines and tabs, with `lines`).
fn check_text(what: &str, text: &str, max: usize, lines: bool) -> Result<(), BoundsError> {
    if fits(text, max, lines) {
        return Ok(());
    }
    let rule = if lines {
        format!(
            "at most {max} characters, no control character (but newlines and tabs) nor \
             invisible format character or line separator"
        )
    } else {
        format!(
            "at most {max} characters, none of them a control character, an invisible \
             format character or a line separator"
        )
    };
    Err(refused(what, text, &rule))
}

/// A run id an agent names (a controller's run ids are plain names).
pub fn check_run_id(run_id: &str) -> Result<(), BoundsError> {
    if plain_name(run_id) {
        return Ok(());
    }
    Err(refused(
        "run",
        run_id,
        "a run id is a plain name of letters, digits, '.', '_' and '-' (at most 128)",
    ))
}

/// The run and the shard folder (a path on the controller) a heartbeat or a shard's
/// end names.
fn check_shard_names(run_id: &str, local_run_id: Option<&String>) -> Result<(), BoundsError> {
    check_run_id(run_id)?;
    local_run_id.map_or(Ok(()), |local| check_part_name("folder", local))
}

/// What a heartbeat says of its shard. Its news is read leniently later (what does not
/// fit is left out of the live view, see [`news_fits`]); only its shape and how much
/// comes are checked.
pub fn check_report(report: &ShardReport) -> Result<(), BoundsError> {
    check_shard_names(&report.run_id, report.local_run_id.as_ref())?;
    if let Some(phase) = &report.phase {
        check_text("phase", phase, MAX_PHASE_CHARS, false)?;
    }
    if report.news.len() > MAX_NEWS_PER_BEAT {
        return Err(BoundsError::BadField(format!(
            "{} pieces of news in one heartbeat: at most {MAX_NEWS_PER_BEAT}",
            report.news.len()
        )));
    }
    let object_or_null = |v: &Option<serde_json::Value>| v.as_ref().is_none_or(|v| v.is_object());
    if let Some(news) = report
        .news
        .iter()
        .find(|n| !object_or_null(&n.interval) || !object_or_null(&n.event))
    {
        return Err(BoundsError::BadField(format!(
            "news {}: its interval and its event are each an object or null",
            news.seq
        )));
    }
    Ok(())
}

/// A shard's end: its run, its folder, and its error.
/// A search's ask: its run id plain, its report of a step at most a row and a
/// histogram per operation, each histogram no longer than news may carry. (The
/// controller keeps none of the report's text: it judges the step on it.)
pub fn check_search_step(request: &SearchStepRequest) -> Result<(), BoundsError> {
    check_run_id(&request.run_id)?;
    let Some(report) = &request.report else {
        return Ok(());
    };
    if report.rows.len() > MAX_STEP_ROWS || report.histograms.len() > MAX_STEP_ROWS {
        return Err(BoundsError::BadField(format!(
            "a step's report has at most {MAX_STEP_ROWS} rows and histograms (one per \
             operation), got {} and {}",
            report.rows.len(),
            report.histograms.len()
        )));
    }
    if let Some((op, _)) = report
        .histograms
        .iter()
        .find(|(_, h)| h.len() > MAX_NEWS_TEXT_CHARS)
    {
        return Err(BoundsError::BadField(format!(
            "the step's {op} histogram is longer than {MAX_NEWS_TEXT_CHARS} characters"
        )));
    }
    Ok(())
}

pub fn check_done(done: &ShardDone) -> Result<(), BoundsError> {
    check_shard_names(&done.run_id, done.local_run_id.as_ref())?;
    match &done.error {
        Some(error) => check_text("error", error, MAX_ERROR_CHARS, true),
        None => Ok(()),
    }
}

/// Whether a piece of news is fit for the live view: every string in it at most
/// [`MAX_NEWS_TEXT_CHARS`], with no invisible characters but newlines and tabs.
pub fn news_fits(news: &ShardNews) -> bool {
    fn walk(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::String(s) => fits(s, MAX_NEWS_TEXT_CHARS, true),
            serde_json::Value::Array(items) => items.iter().all(walk),
            serde_json::Value::Object(fields) => fields
                .iter()
                .all(|(k, v)| fits(k, MAX_NEWS_TEXT_CHARS, false) && walk(v)),
            _ => true,
        }
    }
    news.interval.as_ref().is_none_or(walk) && news.event.as_ref().is_none_or(walk)
}

/// Refuses a part's folder or file name (`what`) an agent sends that is not a plain
/// name, or is one the controller keeps for itself.
pub fn check_part_name(what: &str, name: &str) -> Result<(), BoundsError> {
    let shown = shown(name);
    if !plain_name(name) {
        return Err(BoundsError::BadPart(format!(
            "{shown}: a part's {what} is a plain name of letters, digits, '.', '_' and '-' \
             (at most 128, not starting with '.')"
        )));
    }
    if reserved(name) {
        return Err(BoundsError::BadPart(format!(
            "{shown}: the controller keeps this name for its own files ({}); a part's {what} \
             is named otherwise",
            CONTROLLER_NAMES.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registration(name: &str, host: &str) -> RegisterRequest {
        RegisterRequest {
            name: name.to_string(),
            host: host.to_string(),
            version: "1.0.0".to_string(),
            cores: 1,
            endpoint: None,
        }
    }

    #[test]
    fn names_keep_their_pattern_but_are_never_only_dots() {
        for good in ["a", "agent-0", "host.example.com", "_", "a..b", ".a", "-"] {
            assert!(valid_agent_name(good), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [".", "..", "...", "", "a b", "a/b", "ä", long.as_str()] {
            assert!(!valid_agent_name(bad), "{bad}");
        }
    }

    #[test]
    fn an_agents_endpoint_is_a_bounded_printable_url_without_credentials() {
        let with = |url: &str| RegisterRequest {
            endpoint: Some(url.to_string()),
            ..registration("a", "h")
        };
        assert!(check_register(&with("http://gw1.example:8080")).is_ok());
        for bad in [
            "".to_string(),
            "http://key:secret@gw1:8080".to_string(),
            "http://gw1\n".to_string(),
            format!("http://{}", "g".repeat(2048)),
        ] {
            let said = check_register(&with(&bad)).unwrap_err().to_string();
            assert!(said.contains("endpoint"), "{said}");
            assert!(!said.contains("secret"), "{said}");
        }
    }

    #[test]
    fn hosts_are_at_most_255_printable_characters() {
        assert!(check_register(&registration("a", "")).is_ok());
        assert!(check_register(&registration("a", &"h".repeat(255))).is_ok());
        assert!(check_register(&registration("a", "höst-ü.example")).is_ok());
        for bad in [
            "h".repeat(256),
            "h".repeat(200_000),
            "evil\x1b[31m".to_string(),
            "two\nlines".to_string(),
            "c1\u{9b}".to_string(),
            "exe\u{202e}txt.example".to_string(),
            "zero\u{200b}width".to_string(),
            "line\u{2028}separator".to_string(),
            "\u{feff}bom".to_string(),
            "tag\u{e0041}".to_string(),
        ] {
            let e = check_register(&registration("a", &bad)).unwrap_err();
            let said = e.to_string();
            assert!(said.contains("at most 255 characters"), "{said}");
            // The refused value is shown escaped and cut short.
            assert!(
                said.len() < 300 && keystorm_types::text::printable(&said),
                "{said}"
            );
        }
        let e = check_register(&registration("..", "h")).unwrap_err();
        assert!(matches!(e, BoundsError::BadName(_)), "{e}");
        let mut odd = registration("a", "h");
        odd.version = "1\n".repeat(50);
        assert!(check_register(&odd).is_err());
        odd.version = "1.0.0\u{200f}".to_string();
        assert!(check_register(&odd).is_err());
    }

    #[test]
    fn a_report_names_plain_folders_and_bounded_phases() {
        let report = |local: &str, phase: &str| ShardReport {
            run_id: "20260101-000000-w-0000".to_string(),
            local_run_id: Some(local.to_string()),
            phase: Some(phase.to_string()),
            ..ShardReport::default()
        };
        assert!(check_report(&report("20260101-000000-w-0001", "round 2 · write")).is_ok());
        for bad in [
            report("../../etc", "p"),
            report("fleet-run.json", "p"),
            report("parts", "p"),
            report("l", "\x1b[2J"),
            report("l", "round\u{200b} 2"),
            report("l", &"p".repeat(MAX_PHASE_CHARS + 1)),
        ] {
            assert!(check_report(&bad).is_err());
        }
        let mut many = report("l", "p");
        many.news = (0..=MAX_NEWS_PER_BEAT as u64)
            .map(|seq| ShardNews {
                seq,
                interval: None,
                event: None,
            })
            .collect();
        assert!(check_report(&many).is_err());
        let mut odd = report("l", "p");
        odd.news = vec![ShardNews {
            seq: 0,
            interval: Some(serde_json::json!([null])),
            event: None,
        }];
        assert!(check_report(&odd).is_err());
    }

    #[test]
    fn a_done_names_a_plain_folder_and_a_bounded_error() {
        let done = |local: &str, error: &str| ShardDone {
            run_id: "r".to_string(),
            local_run_id: Some(local.to_string()),
            error: Some(error.to_string()),
        };
        assert!(check_done(&done("l", "line one\n\tline two")).is_ok());
        assert!(check_done(&done("..", "e")).is_err());
        assert!(check_done(&done("l", "\x1b]0;title\x07")).is_err());
        assert!(check_done(&done("l", "a\u{2029}b")).is_err());
        assert!(check_done(&done("l", "evil\u{202e}")).is_err());
        assert!(check_done(&done("l", &"e".repeat(MAX_ERROR_CHARS + 1))).is_err());
        let mut bad_run = done("l", "e");
        bad_run.run_id = "a/b".to_string();
        assert!(check_done(&bad_run).is_err());
    }

    #[test]
    fn news_with_control_characters_or_huge_strings_does_not_fit() {
        let news = |event: serde_json::Value| ShardNews {
            seq: 0,
            interval: None,
            event: Some(event),
        };
        let warning = |m: &str| serde_json::json!({"event": "warning", "data": {"message": m}});
        assert!(news_fits(&news(warning("slow\nstore"))));
        assert!(!news_fits(&news(warning("\x1b[31mred"))));
        assert!(!news_fits(&news(warning("right\u{202e}left"))));
        assert!(!news_fits(&news(warning(
            &"w".repeat(MAX_NEWS_TEXT_CHARS + 1)
        ))));
    }

    #[test]
    fn clipping_makes_any_text_fit() {
        assert_eq!(clip("fine", 10, false), "fine");
        assert_eq!(clip("a\x1bb\nc", 10, false), "a?b?c");
        assert_eq!(clip("a\x1bb\nc", 10, true), "a?b\nc");
        assert_eq!(
            clip("exe\u{202e}txt\u{200b}\u{2028}\u{feff}.", 20, true),
            "exe?txt???."
        );
        let cut = clip(&"x".repeat(100), 10, false);
        assert_eq!(cut.chars().count(), 10);
        assert!(cut.ends_with('…'));
        assert!(fits(
            &clip(&"\x07".repeat(5000), MAX_ERROR_CHARS, true),
            MAX_ERROR_CHARS,
            true
        ));
    }
}
