//! The shards' own warnings (a failure class first met, a cleanup that fell short, an
//! agent's link to its controller in clear), carried into the merged run's log: each
//! message once, naming the shards that gave it. At most [`MOST`] messages are kept;
//! the rest stay in the shards' own logs under `shards/`.

use super::parts::Part;
use crate::events::{EventReader, Logged, RunEvent};

/// Distinct messages carried over at most.
const MOST: usize = 100;

/// The parts' warnings, each message once with the shards that gave it, in the order
/// they were first met.
pub(super) fn read(parts: &[Part]) -> Vec<String> {
    let mut messages: Vec<(String, Vec<String>)> = Vec::new();
    let mut left_out = 0usize;
    for part in parts {
        let Some(mut log) = EventReader::open(&part.dir) else {
            continue;
        };
        while let Some(Logged { event, .. }) = log.next_of(&["warning"]) {
            let RunEvent::Warning { message } = event else {
                continue;
            };
            let shard = part.shard.to_string();
            let full = messages.len() >= MOST;
            match messages.iter_mut().find(|(m, _)| *m == message) {
                Some((_, shards)) if !shards.contains(&shard) => shards.push(shard),
                Some(_) => {}
                None if full => left_out += 1,
                None => messages.push((message, vec![shard])),
            }
        }
    }
    let mut said: Vec<String> = messages
        .into_iter()
        .map(|(message, shards)| {
            let s = if shards.len() == 1 { "" } else { "s" };
            format!("shard{s} {}: {message}", shards.join(", "))
        })
        .collect();
    if left_out > 0 {
        said.push(format!(
            "{left_out} more warnings of the shards are in their own logs (under shards/)"
        ));
    }
    said
}
