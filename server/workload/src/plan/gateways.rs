//! The plan of a run that drives several endpoints (the gateways of one cluster): how
//! its requests spread over them, and when an endpoint counts as lost and is tried
//! again. A plan with one endpoint carries the defaults and never consults them.

use std::time::Duration;

use serde::Serialize;

use keystorm_results::humantime_serde_dur;

/// How requests spread over the endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Spread {
    /// Worker `w` of shard `I` uses endpoint `(I + w) mod k`: its connections stay warm.
    #[default]
    PerWorker,
    /// Each request goes to the next endpoint in turn.
    RoundRobin,
    /// Each request goes to the endpoint with the fewest requests in flight.
    LeastOutstanding,
}

impl Spread {
    pub fn as_str(self) -> &'static str {
        match self {
            Spread::PerWorker => "per_worker",
            Spread::RoundRobin => "round_robin",
            Spread::LeastOutstanding => "least_outstanding",
        }
    }
}

/// What the requests meant for a lost endpoint do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnEndpointDown {
    /// They go to the endpoints that are up, until a probe finds it back.
    #[default]
    Shift,
    /// They still go to it, and their failures are counted.
    Count,
}

/// How requests spread, and how a lost endpoint is noticed and probed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GatewaysPlan {
    pub spread: Spread,
    pub on_down: OnEndpointDown,
    /// Consecutive connection failures or timeouts after which an endpoint is down.
    pub down_after: u32,
    /// How long a down endpoint rests before the first probe; it doubles after each
    /// failed probe, up to `probe_max`.
    #[serde(with = "humantime_serde_dur")]
    pub probe: Duration,
    #[serde(with = "humantime_serde_dur")]
    pub probe_max: Duration,
}

impl Default for GatewaysPlan {
    fn default() -> Self {
        GatewaysPlan {
            spread: Spread::PerWorker,
            on_down: OnEndpointDown::Shift,
            down_after: 3,
            probe: Duration::from_secs(1),
            probe_max: Duration::from_secs(30),
        }
    }
}
