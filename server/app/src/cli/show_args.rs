//! The flags of `keystorm show`: which run, and how its summary is cut.

use super::results_args::ResultsArgs;
use keystorm_results::tail_marks::TailMarks;

/// What `keystorm show --by` breaks rows down by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowBy {
    Endpoint,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Run id (or a unique prefix of it), or the run's folder.
    pub run: String,

    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Break each row down: `endpoint` shows what each endpoint (gateway) took of it.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<ShowBy>,

    /// For runs with complete listings: also say how long a listing of this many keys
    /// would take at the fitted rate, with its 95 % prediction interval, e.g. 2e6. A line
    /// with R² under 0.9, or a count over 100× the largest listing measured, is not
    /// extrapolated (it says why).
    #[arg(long, value_name = "KEYS", value_parser = parse_key_count)]
    pub extrapolate: Option<f64>,

    /// Count each phase's operations that took each of these latencies or longer, from
    /// the run's kept histograms (exact to their 3 significant digits), in place of the
    /// marks the run counted at (its workload's `tail_marks`, by default 1s,10s): 1 to
    /// 4 ascending durations of 1ms or more, e.g. 100ms,1s.
    #[arg(long, value_name = "MARKS", value_parser = parse_tail_marks)]
    pub tail_marks: Option<TailMarks>,

    #[command(flatten)]
    pub results: ResultsArgs,
}

fn parse_key_count(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 1.0 => Ok(n),
        _ => Err(format!("{s:?} is not a key count such as 67e9 or 1000000")),
    }
}

fn parse_tail_marks(s: &str) -> Result<TailMarks, String> {
    s.parse::<TailMarks>().map_err(|e| e.to_string())
}
