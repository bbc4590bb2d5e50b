//! The run the server is driving (one at a time): starting it, telling it to stop,
//! and what the live stream and `/metrics` need to know about it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_results::RunEvent;
use keystorm_workload::observer::Observer;
use keystorm_workload::plan::Plan;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::error::ApiError;
use super::hub::{Hub, LiveEvent};
use super::prometheus::LiveMetrics;
use crate::fleet::{Fleet, NewFleetRun};

/// The run in progress.
#[derive(Clone)]
pub struct ActiveRun {
    /// `None` while the run is being set up (no results folder yet).
    pub run_id: Option<String>,
    pub cancel: CancellationToken,
    pub hub: Hub,
    done: watch::Receiver<bool>,
    /// Set once the run's `finished` event is out: only its return remains.
    finished: Arc<AtomicBool>,
}

/// Longest a start waits for a run that announced its end to leave the slot.
const ENDING_WAIT: Duration = Duration::from_secs(10);

#[derive(Default)]
pub struct Active {
    slot: Mutex<Option<ActiveRun>>,
}

/// The slot held for a run: how to stop it, its live hub, and how to say it ended.
struct Claim {
    cancel: CancellationToken,
    hub: Hub,
    done: watch::Sender<bool>,
    finished: Arc<AtomicBool>,
}

/// What a start request asks for, already validated.
pub struct StartRequest {
    pub plan: Plan,
    pub text: String,
    pub options: RunOptions,
}

impl Active {
    pub fn current(&self) -> Option<ActiveRun> {
        self.lock().clone()
    }

    /// The live hub of `run_id` if that run is the one going.
    pub fn hub_of(&self, run_id: &str) -> Option<Hub> {
        self.lock()
            .as_ref()
            .filter(|a| a.run_id.as_deref() == Some(run_id))
            .map(|a| a.hub.clone())
    }

    pub fn is_running(&self, run_id: &str) -> bool {
        self.hub_of(run_id).is_some()
    }

    /// Waits for a run that has sent its `finished` event to leave the slot, so that a
    /// caller who saw that event can start the next run at once (and is not told the
    /// run is still going). A run still going is not waited for.
    pub async fn let_ended_run_leave(&self) {
        let Some(ending) = self.current() else { return };
        if !ending.finished.load(Ordering::Acquire) {
            return;
        }
        let mut done = ending.done;
        let _ = tokio::time::timeout(ENDING_WAIT, done.wait_for(|d| *d)).await;
    }

    /// Takes the server's one run slot for a run about to start.
    fn claim(&self) -> Result<Claim, ApiError> {
        let cancel = CancellationToken::new();
        let hub = Hub::default();
        let finished = Arc::new(AtomicBool::new(false));
        let (done_tx, done_rx) = watch::channel(false);
        let mut slot = self.lock();
        if let Some(a) = slot.as_ref() {
            return Err(ApiError::conflict(
                "run_in_progress",
                match &a.run_id {
                    Some(id) => format!(
                        "run {id} is still going; stop it or wait for it to finish (one run at a time)"
                    ),
                    None => "another run is starting; wait for it or stop it".to_string(),
                },
            ));
        }
        *slot = Some(ActiveRun {
            run_id: None,
            cancel: cancel.clone(),
            hub: hub.clone(),
            done: done_rx,
            finished: finished.clone(),
        });
        Ok(Claim {
            cancel,
            hub,
            done: done_tx,
            finished,
        })
    }

    /// The run in the slot got its id: from now on its live stream is found by it.
    fn name(&self, run_id: &str) {
        if let Some(a) = self.lock().as_mut() {
            a.run_id = Some(run_id.to_string());
        }
    }

    /// The run in the slot ended.
    fn release(&self, claim: Claim) {
        *self.lock() = None;
        let _ = claim.done.send(true);
    }

    /// Holds the slot for a run across agents: its events reach the live stream and
    /// `/metrics` as a local run's do, until the fleet says it ended. Stopping the
    /// server stops it and waits for the agents' results (the server answers until then;
    /// a lost agent is not waited for).
    pub fn adopt_fleet_run(
        self: &Arc<Self>,
        fleet: &Arc<Fleet>,
        spec: NewFleetRun,
        metrics: Arc<LiveMetrics>,
    ) -> Result<String, ApiError> {
        self.adopt(fleet, metrics, |observer| {
            fleet.start(spec, observer).map_err(ApiError::from)
        })
    }

    /// Holds the slot for the run across agents that was going when the server last
    /// served its results folder (it was killed or its host went down), picked up from
    /// the run's record: it is shown and followed like a run just started. Its id.
    pub fn pick_up_fleet_run(
        self: &Arc<Self>,
        fleet: &Arc<Fleet>,
        metrics: Arc<LiveMetrics>,
    ) -> Option<String> {
        self.adopt(fleet, metrics, |observer| {
            fleet
                .pick_up(observer)
                .ok_or_else(|| ApiError::internal("no run to pick up"))
        })
        .ok()
    }

    fn adopt(
        self: &Arc<Self>,
        fleet: &Arc<Fleet>,
        metrics: Arc<LiveMetrics>,
        begin: impl FnOnce(Arc<dyn Observer>) -> Result<String, ApiError>,
    ) -> Result<String, ApiError> {
        let claim = self.claim()?;
        let observer = Arc::new(ServerObserver {
            slot: self.clone(),
            hub: claim.hub.clone(),
            metrics,
            started: Mutex::new(None),
            finished: claim.finished.clone(),
        });
        let run_id = match begin(observer) {
            Ok(id) => id,
            Err(e) => {
                self.release(claim);
                return Err(e);
            }
        };
        let me = self.clone();
        let fleet = fleet.clone();
        let id = run_id.clone();
        tokio::spawn(async move {
            let mut every_second = tokio::time::interval(std::time::Duration::from_secs(1));
            let mut stopping = false;
            loop {
                tokio::select! {
                    _ = fleet.ended(&id) => break,
                    // Stopped through the slot (the server is stopping): the agents are
                    // told, and their results still come in until the run ended.
                    _ = claim.cancel.cancelled(), if !stopping => {
                        stopping = true;
                        fleet.stop(&id, "the controller is stopping");
                    }
                    _ = every_second.tick() => fleet.tick(&id),
                }
            }
            me.release(claim);
        });
        Ok(run_id)
    }

    /// Starts a run; returns its id once its results folder exists.
    pub async fn start(
        self: &Arc<Self>,
        request: StartRequest,
        metrics: Arc<LiveMetrics>,
    ) -> Result<String, ApiError> {
        let claim = self.claim()?;
        let cancel = claim.cancel.clone();
        let hub = claim.hub.clone();
        let (started_tx, started_rx) = oneshot::channel();
        let (failed_tx, failed_rx) = oneshot::channel();
        let observer = Arc::new(ServerObserver {
            slot: self.clone(),
            hub,
            metrics,
            started: Mutex::new(Some(started_tx)),
            finished: claim.finished.clone(),
        });
        let me = self.clone();
        tokio::spawn(async move {
            let outcome = executor::run(
                request.plan,
                &request.text,
                request.options,
                observer,
                cancel,
            )
            .await;
            me.release(claim);
            if let Err(e) = outcome {
                let _ = failed_tx.send(e.to_string());
            }
        });
        match started_rx.await {
            Ok(run_id) => Ok(run_id),
            // The observer is gone without a start: the run failed during set-up.
            Err(_) => Err(match failed_rx.await {
                Ok(message) => cannot_start(message),
                Err(_) => ApiError::internal("the run ended before it started"),
            }),
        }
    }

    /// Asks the run to stop; it finishes in-flight requests and writes its results.
    pub fn stop(&self, run_id: &str) -> bool {
        match self.lock().as_ref() {
            Some(a) if a.run_id.as_deref() == Some(run_id) => {
                a.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// Stops whatever runs and waits until its results are written (server shutdown).
    pub async fn stop_and_wait(&self) {
        let Some(active) = self.current() else { return };
        active.cancel.cancel();
        let mut done = active.done;
        let _ = done.wait_for(|d| *d).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ActiveRun>> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn cannot_start(message: String) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
        "cannot_start",
        message,
    )
}

/// Names the slot's run as soon as it has an id, forwards the engine's events to the
/// live hub and the Prometheus state, and says when the results folder exists.
struct ServerObserver {
    /// Named before the run's folder exists: a client that finds the folder (in the
    /// runs list, the fleet's view) and asks for its events finds the live hub too,
    /// rather than a stream that ends after the log read so far.
    slot: Arc<Active>,
    hub: Hub,
    metrics: Arc<LiveMetrics>,
    started: Mutex<Option<oneshot::Sender<String>>>,
    /// The slot's flag that the run said it finished.
    finished: Arc<AtomicBool>,
}

impl Observer for ServerObserver {
    fn named(&self, run_id: &str) {
        self.slot.name(run_id);
    }

    fn event(&self, id: u64, event: &RunEvent) {
        self.metrics.observe(event);
        if matches!(event, RunEvent::Finished { .. }) {
            self.finished.store(true, Ordering::Release);
        }
        if let Some(live) = LiveEvent::from_run_event(id, event) {
            self.hub.publish(live);
        }
        if let RunEvent::Started { run_id, .. } = event
            && let Some(tx) = self
                .started
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
        {
            let _ = tx.send(run_id.clone());
        }
    }
}

/// Labels given when starting a run or editing one, checked like the CLI's `--label`.
pub fn check_labels(labels: &BTreeMap<String, String>) -> Result<(), ApiError> {
    for (k, v) in labels {
        keystorm_types::check_label(k, v).map_err(|e| ApiError::bad_request(e.to_string()))?;
        refuse_secret(&format!("label {k}"), k)?;
        refuse_secret(&format!("label {k}"), v)?;
    }
    Ok(())
}

/// Refuses `text` (`what`, in the message) if it holds the value of a secret this
/// process knows: the keys of its environment and of the runs going, the server's
/// tokens. What is refused is never stored, so it never needs redacting.
pub fn refuse_secret(what: &str, text: &str) -> Result<(), ApiError> {
    if keystorm_results::secrets::active().finds_in(text) {
        return Err(ApiError::bad_request(format!(
            "{what} holds the value of a secret (a key of this server's environment or of a \
             run going, or the server's token): it would be shown to everyone who reads the \
             run; choose another value"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_start_waits_for_a_run_that_said_it_finished_and_refuses_one_still_going() {
        let active = Arc::new(Active::default());
        let going = active.claim().unwrap();
        active.name("going");
        // Still going: no wait, and the slot is refused.
        active.let_ended_run_leave().await;
        let refused = active.claim().err().expect("the slot is taken");
        assert_eq!(refused.body.error, "run_in_progress", "{refused:?}");
        assert!(refused.body.detail.contains("still going"), "{refused:?}");

        // It said it finished: the next start waits until it has left the slot.
        going.finished.store(true, Ordering::Release);
        let next = tokio::spawn({
            let active = active.clone();
            async move {
                active.let_ended_run_leave().await;
                active.claim().is_ok()
            }
        });
        tokio::task::yield_now().await;
        assert!(!next.is_finished(), "it waits for the run to leave");
        active.release(going);
        assert!(next.await.unwrap(), "the slot is free once the run left it");
    }

    #[test]
    fn the_slots_run_is_found_by_its_id_as_soon_as_it_is_named() {
        let active = Arc::new(Active::default());
        let claim = active.claim().unwrap();
        let observer = ServerObserver {
            slot: active.clone(),
            hub: claim.hub.clone(),
            metrics: Arc::default(),
            started: Mutex::new(None),
            finished: claim.finished.clone(),
        };
        assert!(active.hub_of("r1").is_none(), "not named yet");
        observer.named("r1");
        assert!(active.hub_of("r1").is_some());
        assert!(active.hub_of("r2").is_none());
        active.release(claim);
        assert!(active.hub_of("r1").is_none(), "gone with the run");
    }
}
