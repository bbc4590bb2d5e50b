//! What a run's bucket index did, for a comparison's paragraph: its reshards and
//! write stalls counted with their time, the writes they held and the longest wait.

use serde::{Deserialize, Serialize};

use crate::{EventReader, Logged, RunEvent};

/// What a run's bucket index did: reshards and write stalls, counted with their time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IndexStory {
    pub reshards: u64,
    /// Seconds from the poll before each reshard to the one that saw it done, added up.
    pub reshard_s: f64,
    pub stalls: u64,
    /// Seconds of stalled writes, added up.
    pub stall_s: f64,
    /// Writes the stalls held (slower than the stall's latency threshold).
    pub held_writes: u64,
    /// The longest a write waited in a stall (µs).
    pub longest_write_us: u64,
}

impl IndexStory {
    /// The reshards and stalls of the run in `dir`, from its event log.
    pub fn read(dir: &std::path::Path) -> IndexStory {
        let mut story = IndexStory::default();
        let Some(mut log) = EventReader::open(dir) else {
            return story;
        };
        while let Some(Logged { event, .. }) = log.next_of(&["reshard", "stall"]) {
            match event {
                RunEvent::Reshard(r) => {
                    story.reshards += 1;
                    story.reshard_s += (r.end_t_s - r.start_t_s).max(0.0);
                }
                RunEvent::Stall(s) => {
                    story.stalls += 1;
                    story.stall_s += (s.end_t_s - s.start_t_s).max(0.0);
                    story.held_writes += s.held_writes;
                    story.longest_write_us = story.longest_write_us.max(s.longest_write_us);
                }
                _ => {}
            }
        }
        story
    }

    /// `4 reshards (12.0 s in all) and 16 write stalls (45.2 s in all; 320 writes held,
    /// the longest 45.0 s)`, or `no reshard and no write stall`.
    pub fn words(&self) -> String {
        let reshards = match self.reshards {
            0 => "no reshard".to_string(),
            n => format!("{n} reshard{} ({:.1} s in all)", plural(n), self.reshard_s),
        };
        let stalls = match self.stalls {
            0 => "no write stall".to_string(),
            n => {
                let held = if self.held_writes > 0 {
                    format!(
                        "; {} write{} held, the longest {}",
                        self.held_writes,
                        plural(self.held_writes),
                        crate::latency_text(self.longest_write_us)
                    )
                } else {
                    String::new()
                };
                format!(
                    "{n} write stall{} ({:.1} s in all{held})",
                    plural(n),
                    self.stall_s
                )
            }
        };
        format!("{reshards} and {stalls}")
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
