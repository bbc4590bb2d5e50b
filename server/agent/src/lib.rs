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
//!
//! [`serve`] is those steps in order: [`registration`] joins the controller,
//! [`heartbeat`] reports and takes orders (measuring the [`clock`] offset on the way),
//! [`orders`] runs and stops the shards they name, and on the way out the running
//! shard is stopped and the agent leaves. Errors stay typed until the command line.

#[macro_use]
extern crate keystorm_console;

mod clock;
mod config;
mod contact;
mod error;
mod gate;
mod heartbeat;
mod orders;
mod pause;
mod registration;
mod replica;
mod seed;
mod session;
mod shard;
mod status;
mod target_clock;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use config::AgentConfig;
pub use error::AgentError;

use contact::Contact;
use heartbeat::{Ended, beat_until_ended};
use keystorm_link::client::Link;
use orders::{Here, Shards};
use registration::Registrations;
use session::Session;
use status::ShardStatus;

/// Serves the controller until `stop`: registers, heartbeats and obeys, and registers
/// again whenever the controller forgets it. A shard running at `stop` is stopped,
/// and its results written and sent, before this returns.
pub async fn serve(
    link: Link,
    config: AgentConfig,
    stop: CancellationToken,
) -> Result<(), AgentError> {
    let config = Arc::new(config);
    let status = ShardStatus::default();
    let contact = Contact::new();
    let session = Session::new(link.clone(), stop.clone());
    let here = Here {
        config: &config,
        link: &link,
        session: &session,
        status: &status,
        contact: &contact,
    };
    let mut shards = Shards::default();
    let mut registrations = Registrations::default();
    while let Some(joined) = registrations.join(&link, &config, &session, &stop).await? {
        let ended = beat_until_ended(
            &joined.me,
            joined.heartbeat_every,
            &here,
            &mut shards,
            &stop,
        )
        .await;
        if ended == Ended::Stopped {
            break;
        }
    }
    shards.stop().await;
    registrations.leave(&session).await;
    Ok(())
}

/// This machine's host name (an agent's default name, and the host it reports).
pub fn host_name() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}
