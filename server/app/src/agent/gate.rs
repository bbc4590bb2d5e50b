//! The barrier before every phase, as an agent sees it: ask the controller until every
//! shard is there. A controller that is briefly away is waited for; a stopped run ends
//! the shard.

use std::time::Duration;

use keystorm_engine::executor::{GateFuture, PhaseGate};
use keystorm_engine::results::PhaseRef;

use super::link::Link;
use crate::fleet::protocol::{BarrierReply, BarrierRequest};

#[derive(Clone)]
pub struct ControllerGate {
    pub link: Link,
    pub agent_id: String,
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
            let path = format!("/api/agents/{}/barrier", self.agent_id);
            let request = BarrierRequest {
                run_id: self.run_id.clone(),
                phase: index as u32,
            };
            loop {
                match self.link.post::<_, BarrierReply>(&path, &request).await {
                    Ok(BarrierReply {
                        abort: Some(reason),
                        ..
                    }) => return Err(reason),
                    Ok(BarrierReply { open: true, .. }) => return Ok(()),
                    Ok(_) => {}
                    Err(e) if e.is_transient() => {
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    Err(e) => return Err(format!("the controller's barrier: {e}")),
                }
            }
        })
    }
}
