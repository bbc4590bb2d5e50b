//! The barrier before every phase, as an agent sees it: ask the controller until every
//! shard is there. A controller that is away (or restarted, until this agent registered
//! again) is waited for, as long as it takes; a stopped run ends the shard.

use keystorm_engine::executor::{GateError, GateFuture, PhaseGate};
use keystorm_results::PhaseRef;
use tokio_util::sync::CancellationToken;

use super::session::Session;
use keystorm_link::client::Link;
use keystorm_link::protocol::{BarrierReply, BarrierRequest};

#[derive(Clone)]
pub struct ControllerGate {
    pub link: Link,
    pub session: Session,
    pub run_id: String,
}

impl std::fmt::Debug for ControllerGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ControllerGate({} for {})", self.link.url(), self.run_id)
    }
}

impl PhaseGate for ControllerGate {
    fn before_phase<'a>(&'a self, index: usize, _phase: &'a PhaseRef) -> GateFuture<'a> {
        Box::pin(async move {
            let request = BarrierRequest {
                run_id: self.run_id.clone(),
                phase: index as u32,
            };
            // The run's own stop ends this wait (the executor stops waiting on it).
            let never = CancellationToken::new();
            loop {
                let reply = self
                    .session
                    .call(&never, |me| {
                        let request = &request;
                        async move {
                            me.link
                                .post::<_, BarrierReply>(
                                    &format!("/api/agents/{}/barrier", me.id),
                                    request,
                                )
                                .await
                        }
                    })
                    .await
                    .map_err(|e| GateError::Unanswered {
                        gate: "the controller's barrier",
                        reason: e.message(),
                    })?;
                match reply {
                    BarrierReply {
                        abort: Some(reason),
                        ..
                    } => return Err(GateError::Aborted(reason)),
                    BarrierReply { open: true, .. } => return Ok(()),
                    // Not yet: the controller answered after its wait; ask again.
                    _ => {}
                }
            }
        })
    }
}
