//! `keystorm report RUN [NEW…]`: an offline HTML report written to a file — a run's
//! page, or runs compared with the first (verdicts, the study's paragraph, rounds and
//! distributions) — made by the server crate from the same data its pages draw.

use std::path::{Path, PathBuf};

use keystorm_console::exit;
use keystorm_results::comparison;
use keystorm_server::api::ApiError;
use keystorm_server::api::reports::{comparison_report_html, run_report_html};

use crate::CliError;
use crate::cli::{MAX_REPORTED_RUNS, ReportArgs};

pub fn report(args: &ReportArgs) -> Result<u8, CliError> {
    if 1 + args.new.len() > MAX_REPORTED_RUNS {
        return Err(CliError::bad_input(format!(
            "{} runs: a report compares at most {MAX_REPORTED_RUNS} (the base among them)",
            1 + args.new.len()
        )));
    }
    let options = super::compare::options_of(&args.judge)?;
    let root = &args.results.results;
    let base = super::inputs::run_dir(root, &args.run)?;
    let news = args
        .new
        .iter()
        .map(|n| super::inputs::run_dir(root, n))
        .collect::<Result<Vec<_>, _>>()?;
    if news.is_empty() {
        warn_unjudged(args);
    }
    let html = if news.is_empty() {
        run_report_html(&base)
    } else {
        comparison_report_html(&base, &news, &options)
    }
    .map_err(cli_error)?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_name(&base, &news));
    if output == Path::new("-") {
        stdout!("{html}");
        return Ok(exit::OK);
    }
    // Whole or not at all: through a temporary file beside it.
    keystorm_results::write_atomic(&output, html.as_bytes())
        .map_err(|e| CliError::failed(format!("cannot write {}: {e}", output.display())))?;
    stderrln!(
        "wrote {} ({} KiB): open it in a browser",
        output.display(),
        html.len().div_ceil(1024)
    );
    Ok(exit::OK)
}

/// One run is not judged: the flags that say how changes are judged say nothing then.
fn warn_unjudged(args: &ReportArgs) {
    let judge = &args.judge;
    let given: Vec<&str> = [
        (
            "--noise-floor",
            judge.noise_floor != comparison::DEFAULT_NOISE_FLOOR,
        ),
        ("--metrics", !judge.metrics.is_empty()),
        ("--ops", !judge.ops.is_empty()),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect();
    if !given.is_empty() {
        stderrln!(
            "warning: ignored with one run (they say how a comparison is judged): {}; give \
             the runs to compare with it (`keystorm report BASE NEW`)",
            given.join(", ")
        );
    }
}

/// A run that cannot be read is bad input; a build without the report page, or a
/// failure while reading, is a failure.
fn cli_error(e: ApiError) -> CliError {
    if e.status.is_client_error() && e.body.error != "report_not_built" {
        CliError::bad_input(e.body.detail)
    } else {
        CliError::failed(e.body.detail)
    }
}

/// `RUN-report.html`, or `BASE-vs-NEW.html` (`-and-N-more` for more runs), in the
/// current folder.
fn default_name(base: &Path, news: &[PathBuf]) -> PathBuf {
    let id = |dir: &Path| {
        dir.file_name()
            .map_or_else(|| "run".to_string(), |n| n.to_string_lossy().into_owned())
    };
    PathBuf::from(match news {
        [] => format!("{}-report.html", id(base)),
        [new] => format!("{}-vs-{}.html", id(base), id(new)),
        [new, rest @ ..] => format!("{}-vs-{}-and-{}-more.html", id(base), id(new), rest.len()),
    })
}
