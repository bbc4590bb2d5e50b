//! `keystorm agent --controller URL`: a long-running agent. It dials the controller
//! (it needs no open port), registers (name, host, version, cores), heartbeats every
//! half second — measuring its clock offset to the controller from each round trip —
//! and runs the shard it is given, with its own target credentials. If the controller
//! goes silent the agent keeps calling, and a running shard pauses before the
//! controller could count the agent lost (see [`contact`]); once the controller
//! answers it gives the shard back (it goes on from the agent's folder) or says another
//! agent took it over. If the controller forgot the agent (restarted), it registers
//! again — under the same name, so a controller that picked the run up gives it its
//! shard back.

#[macro_use]
extern crate keystorm_console;

mod config;
mod contact;
mod gate;
mod replica;
mod seed;
mod session;
mod shard;
mod status;
mod target_clock;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use config::AgentConfig;

use contact::{Contact, HEARTBEAT_TIMEOUT, Paused};

use keystorm_link::client::{Link, LinkError};
use keystorm_link::protocol::{
    Heartbeat, HeartbeatReply, Order, RegisterRequest, Registered, now_ms,
};
use session::Session;
use status::ShardStatus;

/// Why an agent gave up.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the controller refused this agent: {0}")]
    Refused(String),
    /// It cannot be reached as asked (its certificate is not trusted).
    #[error("{0}")]
    Link(String),
}

/// The shard running here.
struct Running {
    run_id: String,
    index: u32,
    cancel: CancellationToken,
    task: JoinHandle<()>,
    /// Set when it paused because the controller went silent.
    paused: Paused,
}

/// A shard that paused because the controller went silent: its folder is here, and
/// the controller either gives it back or says another agent took it over.
struct Parked {
    run_id: String,
    index: u32,
    folder: PathBuf,
    since: Instant,
}

/// Serves the controller until `stop`; a shard running then is stopped, and its
/// results written and sent, before this returns.
pub async fn serve(
    link: Link,
    config: AgentConfig,
    stop: CancellationToken,
) -> Result<(), AgentError> {
    let config = Arc::new(config);
    let status = ShardStatus::default();
    let mut running: Option<Running> = None;
    let mut parked: Option<Parked> = None;
    let contact = Contact::new();
    let mut registered_once = false;
    let mut told_unreachable = false;
    let session = Session::new(link.clone(), stop.clone());
    'register: while !stop.is_cancelled() {
        let request = RegisterRequest {
            name: config.name.clone(),
            host: config.host.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            endpoint: config.endpoint.clone(),
        };
        let registered: Registered = match link.post("/api/agents/register", &request).await {
            Ok(r) => r,
            Err(e) if Session::worth_waiting(&e) && registered_once => {
                // Registering again after the controller went away (or came back with a
                // certificate this agent does not trust yet): said once.
                session.away(&e);
                pause(&stop, Duration::from_secs(1)).await;
                continue;
            }
            // Never trusted: no use waiting.
            Err(e) if e.is_tls() => return Err(AgentError::Link(e.to_string())),
            Err(e) if e.is_transient() || e.code() == Some("name_taken") => {
                if !told_unreachable {
                    stderrln!("waiting to register: {e}");
                    told_unreachable = true;
                }
                pause(&stop, Duration::from_secs(1)).await;
                continue;
            }
            Err(e) => return Err(AgentError::Refused(e.to_string())),
        };
        told_unreachable = false;
        // Its key is redacted from here on, before anything is said.
        let me = session.registered(&registered.agent_id, &registered.agent_key);
        registered_once = true;
        session.back();
        stderrln!(
            "agent {} registered with {} as {}",
            config.name,
            link.url(),
            me.id
        );
        contact.heard(Instant::now());
        let every = Duration::from_millis(registered.heartbeat_ms.max(100));
        let mut offset_ms = None;
        loop {
            if let Some(r) = running.take_if(|r| r.task.is_finished())
                && let Some(folder) = r.paused.folder()
            {
                parked = Some(Parked {
                    run_id: r.run_id,
                    index: r.index,
                    folder,
                    since: Instant::now(),
                });
            }
            if stop.is_cancelled() {
                break 'register;
            }
            let sent = now_ms();
            let beat = Heartbeat {
                sent_ms: sent,
                offset_ms,
                target_skew_ms: status.target_skew_ms(),
                shard: status.report(),
            };
            let last_news = beat
                .shard
                .as_ref()
                .and_then(|r| r.news.last())
                .map(|n| n.seq);
            let sent_at = Instant::now();
            let answer = tokio::time::timeout(
                HEARTBEAT_TIMEOUT,
                me.link
                    .post::<_, HeartbeatReply>(&format!("/api/agents/{}/heartbeat", me.id), &beat),
            )
            .await
            .unwrap_or_else(|_| {
                Err(LinkError::Unreachable {
                    url: link.url().to_string(),
                    reason: format!(
                        "no answer to a heartbeat within {:.1} s",
                        HEARTBEAT_TIMEOUT.as_secs_f64()
                    ),
                })
            });
            match answer {
                Ok(reply) => {
                    contact.heard(sent_at);
                    session.back();
                    // The controller read its clock about half way through the round trip.
                    let received = now_ms();
                    let offset = reply.controller_ms as i64 - ((sent + received) / 2) as i64;
                    offset_ms = Some(offset);
                    status.set_offset(offset);
                    if let Some(seq) = last_news {
                        status.taken(seq);
                    }
                    if let Some(order) = reply.order {
                        let here = Here {
                            config: &config,
                            link: &link,
                            session: &session,
                            status: &status,
                            contact: &contact,
                        };
                        obey(order, &mut running, &mut parked, &here);
                    }
                }
                Err(e) if e.code() == Some("unknown_agent") => {
                    stderrln!("the controller no longer knows this agent: registering again");
                    continue 'register;
                }
                Err(e) => session.away(&e),
            }
            pause(&stop, every).await;
        }
    }
    if let Some(r) = running {
        stderrln!(
            "stopping: letting shard of run {} write and send its results",
            r.run_id
        );
        r.cancel.cancel();
        let _ = r.task.await;
    }
    // Forgotten at once, so no run picks an agent that is gone.
    if registered_once {
        let me = session.current();
        let _ = me
            .link
            .post_empty(&format!("/api/agents/{}/leave", me.id), &())
            .await;
    }
    Ok(())
}

/// What the agent's shards are run with.
struct Here<'a> {
    config: &'a Arc<AgentConfig>,
    link: &'a Link,
    session: &'a Session,
    status: &'a ShardStatus,
    contact: &'a Contact,
}

fn obey(order: Order, running: &mut Option<Running>, parked: &mut Option<Parked>, here: &Here) {
    match order {
        Order::Run(assignment) => {
            if let Some(r) = running.as_ref() {
                if r.run_id == assignment.run_id && r.index == assignment.index {
                    // The same shard, given again (its order crossed a heartbeat, or the
                    // controller restarted): it carries on.
                    return;
                }
                stderrln!(
                    "ignoring shard {} of run {}: shard of run {} still runs here",
                    assignment.index,
                    assignment.run_id,
                    r.run_id
                );
                return;
            }
            if parked
                .take_if(|p| p.run_id == assignment.run_id && p.index == assignment.index)
                .is_some()
            {
                stderrln!(
                    "the controller gives shard {} of run {} back: it goes on where it paused",
                    assignment.index,
                    assignment.run_id
                );
            }
            let cancel = CancellationToken::new();
            let paused = Paused::default();
            let run_id = assignment.run_id.clone();
            let index = assignment.index;
            let task = tokio::spawn(shard::run(
                here.config.clone(),
                here.link.clone(),
                here.session.clone(),
                assignment,
                here.status.clone(),
                cancel.clone(),
                shard::Watch {
                    contact: here.contact.clone(),
                    paused: paused.clone(),
                },
            ));
            *running = Some(Running {
                run_id,
                index,
                cancel,
                task,
                paused,
            });
        }
        Order::Stop { run_id } => {
            // Said again while the shard is still sending its results: said once.
            if let Some(r) = running
                .as_ref()
                .filter(|r| r.run_id == run_id && !r.cancel.is_cancelled())
            {
                stderrln!("the controller stops run {run_id}");
                r.cancel.cancel();
            } else if let Some(p) = parked.take_if(|p| p.run_id == run_id)
                && running.is_none()
            {
                // Either the run is stopping (the paused shard's folder is sent and its
                // end told) or another agent took the shard over (the controller refuses
                // the folder): the shard's end says which.
                let task = tokio::spawn(shard::end_paused(
                    here.session.clone(),
                    here.config.name.clone(),
                    p.run_id.clone(),
                    p.index,
                    p.folder,
                    p.since.elapsed(),
                ));
                *running = Some(Running {
                    run_id: p.run_id,
                    index: p.index,
                    cancel: CancellationToken::new(),
                    task,
                    paused: Paused::default(),
                });
            }
        }
    }
}

async fn pause(stop: &CancellationToken, d: Duration) {
    tokio::select! {
        _ = tokio::time::sleep(d) => {}
        _ = stop.cancelled() => {}
    }
}

/// This machine's host name (an agent's default name, and the host it reports).
pub fn host_name() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}
