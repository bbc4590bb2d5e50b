//! The store a command reads or writes directly (`list`, `diff`, `download`,
//! `upload`): endpoint, region, credentials, addressing, client.

use super::values::parse_positive_duration;

/// Where the bucket is and how to sign, for the commands that talk to S3 directly.
#[derive(Debug, clap::Args)]
pub struct TargetArgs {
    /// S3 endpoint (http://host:port or https://host).
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_ENDPOINT",
        hide_env_values = true
    )]
    pub endpoint: String,

    /// Region to sign for.
    #[arg(long, default_value = "us-east-1")]
    pub region: String,

    /// Virtual-hosted addressing (bucket.host) instead of path style.
    #[arg(long)]
    pub virtual_hosted: bool,

    /// AWS profile to take the keys from.
    #[arg(long)]
    pub profile: Option<String>,

    /// Accept any TLS certificate (test clusters).
    #[arg(long)]
    pub insecure: bool,

    /// Per-request timeout.
    #[arg(long, default_value = "60s", value_parser = parse_positive_duration)]
    pub timeout: std::time::Duration,
}

/// `--endpoint` given once or more (each perhaps a comma list) as one comma list, or
/// `None` when not given.
pub fn endpoints_given(given: &[String]) -> Option<String> {
    let urls: Vec<&str> = given
        .iter()
        .flat_map(|g| g.split(','))
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .collect();
    (!given.is_empty()).then(|| urls.join(","))
}
