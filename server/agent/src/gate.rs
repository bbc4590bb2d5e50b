//! The barrier before every phase, as an agent sees it: ask the controller until every
//! shard is there. A controller that is away (or restarted, until this agent registered
//! again) is waited for, as long as it takes; a stopped run ends the shard. A search's
//! steps are asked the same way: the shard reports the step it ran, and waits until
//! the controller has every shard's report of it and chose the next.

use keystorm_engine::executor::{
    GateError, GateFuture, PhaseGate, SearchAsk, SearchFuture, SearchOrder,
};
use keystorm_results::{PhaseRef, encode_histogram};
use tokio_util::sync::CancellationToken;

use super::session::Session;
use keystorm_link::client::Link;
use keystorm_link::protocol::{
    BarrierReply, BarrierRequest, SearchStepOrder, SearchStepReply, SearchStepRequest, SentStep,
};

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

impl ControllerGate {
    /// Posts `request` to the agent's `/api/agents/{id}/{call}` until the controller
    /// answers, waiting out a controller that is away; `gate` names the wait in an
    /// error. The run's own stop ends the wait (the executor stops waiting on it).
    async fn ask<Q, R>(&self, call: &str, request: &Q, gate: &'static str) -> Result<R, GateError>
    where
        Q: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        let never = CancellationToken::new();
        self.session
            .call(&never, |me| async move {
                me.link
                    .post::<_, R>(&format!("/api/agents/{}/{call}", me.id), request)
                    .await
            })
            .await
            .map_err(|e| GateError::Unanswered {
                gate,
                reason: e.message(),
            })
    }
}

impl PhaseGate for ControllerGate {
    fn before_phase<'a>(&'a self, index: usize, _phase: &'a PhaseRef) -> GateFuture<'a> {
        Box::pin(async move {
            let request = BarrierRequest {
                run_id: self.run_id.clone(),
                phase: index as u32,
            };
            loop {
                let reply: BarrierReply = self
                    .ask("barrier", &request, "the controller's barrier")
                    .await?;
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

    fn search_step(&self, index: usize, ask: SearchAsk) -> Option<SearchFuture<'_>> {
        let request = SearchStepRequest {
            run_id: self.run_id.clone(),
            phase: index as u32,
            step: ask.step,
            report: ask.report.map(|r| SentStep {
                step: r.step,
                rows: r.part.rows,
                histograms: r
                    .part
                    .histograms
                    .iter()
                    .map(|(op, h)| (*op, encode_histogram(h)))
                    .collect(),
            }),
        };
        Some(Box::pin(async move {
            loop {
                let reply: SearchStepReply = self
                    .ask(
                        "search",
                        &request,
                        "the controller's choice of the search's next step",
                    )
                    .await?;
                match reply {
                    SearchStepReply {
                        abort: Some(reason),
                        ..
                    } => return Err(GateError::Aborted(reason)),
                    SearchStepReply {
                        order: Some(SearchStepOrder::Run { step, rate, repeat }),
                        ..
                    } => return Ok(SearchOrder::Run { step, rate, repeat }),
                    SearchStepReply {
                        order: Some(SearchStepOrder::Done { result }),
                        ..
                    } => return Ok(SearchOrder::Done(result)),
                    // Not yet: some shard has not reported the step before; ask again.
                    _ => {}
                }
            }
        }))
    }
}
