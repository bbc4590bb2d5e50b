//! How changes are judged, for `keystorm compare` and `keystorm report`: the noise
//! floor and which metrics and operations are judged.

/// Which changes are judged, and against what noise floor.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
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
