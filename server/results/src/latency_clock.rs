//! Where a run's latencies end, recorded in its manifest: when the kernel received
//! the response (`socket`), or when the client's task saw it (`user`). The first
//! leaves out the time a busy or sleeping client took to look, so two runs timed by
//! different clocks are not quite alike, and a reader must be able to tell.

use serde::{Deserialize, Serialize};

/// The clock a run's latencies end on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ClockSource {
    /// The kernel's receive timestamp of the response's last bytes (the `fast` client
    /// on Linux).
    Socket,
    /// The client's own clock when its task saw the response (the `sdk` client).
    User,
}

/// How a run timed its operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LatencyClock {
    pub source: ClockSource,
    /// With `socket`: operations whose response the kernel did not stamp (or whose
    /// connection had moved on when it was read), timed by the client's clock instead.
    #[serde(default)]
    pub user_timed: u64,
}

impl LatencyClock {
    /// The clock of runs merged from parts: `socket` only when every part's was, with
    /// their fallbacks added up; `None` when no part recorded one.
    pub fn merged<'a>(parts: impl IntoIterator<Item = Option<&'a LatencyClock>>) -> Option<Self> {
        let mut merged: Option<LatencyClock> = None;
        for part in parts {
            let p = part?;
            merged = Some(match merged {
                None => *p,
                Some(m) => LatencyClock {
                    source: if m.source == p.source {
                        m.source
                    } else {
                        ClockSource::User
                    },
                    user_timed: m.user_timed + p.user_timed,
                },
            });
        }
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_parts_are_socket_timed_only_when_all_were() {
        let socket = LatencyClock {
            source: ClockSource::Socket,
            user_timed: 2,
        };
        let user = LatencyClock {
            source: ClockSource::User,
            user_timed: 0,
        };
        let both = LatencyClock::merged([Some(&socket), Some(&socket)]).unwrap();
        assert_eq!((both.source, both.user_timed), (ClockSource::Socket, 4));
        let mixed = LatencyClock::merged([Some(&socket), Some(&user)]).unwrap();
        assert_eq!(mixed.source, ClockSource::User);
        assert_eq!(LatencyClock::merged([Some(&socket), None]), None);
    }
}
