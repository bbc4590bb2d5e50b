//! The flags of `keystorm compare BASE NEW…`.

use super::results_args::ResultsArgs;

/// What makes `keystorm compare` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Any judged metric regressed.
    Regressed,
}

/// Runs compared with a base, each metric's change judged against the noise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each metric of each phase, round and operation the runs share \
(throughput, bandwidth, p50/p99/p99.9 latency, error and tail shares; for a round phase \
also its rounds together) is given as a change with its 95 % interval and a verdict: \
improved or regressed (the interval clear of no change and the change beyond the noise \
floor), no change (within the floor), inconclusive (the interval reaches past the floor \
on both sides, or too few seconds: it says how many would settle it), or not judged (a \
percentile that was mostly an open loop's schedule lag). docs/intervals.md explains how \
to read them. Exit codes: 0 compared (and, with --fail-on regressed, nothing regressed), \
1 with --fail-on regressed when a judged metric regressed, 2 bad input (a run that cannot \
be read, an unknown metric or operation)."
)]
pub struct CompareArgs {
    /// The base run: its id (or a unique prefix) in the results folder, or its folder.
    pub base: String,

    /// The runs compared with it, each an id or a folder (runs from other results
    /// folders are given by their folder; merged runs of agents as any other).
    #[arg(required = true, num_args = 1..)]
    pub new: Vec<String>,

    /// Print the comparison as JSON (every metric, with its intervals and verdict).
    #[arg(long)]
    pub json: bool,

    /// Exit 1 when a judged metric regressed (for CI: gate a release on it).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,

    /// Changes within ± this much are no change: `2%` (the default), `5%`, `0.5%`.
    #[arg(long, value_name = "SHARE", default_value = "2%", value_parser = parse_floor)]
    pub noise_floor: f64,

    /// Judge only these metrics, comma-separated: ops_per_sec, mib_per_sec, p50, p99,
    /// p99.9, error_rate, tails (or one tail mark, e.g. over_1s).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub metrics: Vec<String>,

    /// Judge only these operations, comma-separated: put, get, head, list, delete.
    #[arg(long, value_delimiter = ',', value_name = "OPS")]
    pub ops: Vec<String>,

    #[command(flatten)]
    pub results: ResultsArgs,
}

fn parse_floor(s: &str) -> Result<f64, String> {
    let value = match s.trim().strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => s.trim().parse::<f64>(),
    };
    match value {
        Ok(v) if v.is_finite() && (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a noise floor: give a share under 100 %, such as 2% or 0.02"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_floor;

    #[test]
    fn a_noise_floor_is_a_percentage_or_a_share() {
        assert_eq!(parse_floor("2%"), Ok(0.02));
        assert_eq!(parse_floor("0.05"), Ok(0.05));
        assert!(parse_floor("120%").unwrap_err().contains("under 100 %"));
        assert!(parse_floor("two").is_err());
    }
}
