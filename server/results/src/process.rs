//! Which process is running a run, so that a run whose process died without a word
//! (SIGKILL, out of memory, a crash, a reboot) is not shown as running forever, and a
//! run still going is not resumed a second time.
//!
//! A process is its pid plus its start time (clock ticks after boot, from
//! `/proc/PID/stat`): a pid reused by another process has another start time. Where
//! `/proc` is missing, liveness is unknown and runs are shown as their manifest says.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProcessId {
    pub pid: u32,
    /// Start time of the process in clock ticks after boot.
    pub start_ticks: u64,
}

impl ProcessId {
    /// This process, where the system tells (Linux).
    pub fn current() -> Option<ProcessId> {
        let pid = std::process::id();
        Some(ProcessId {
            pid,
            start_ticks: start_ticks(pid)?,
        })
    }

    /// Whether the process still runs: `None` when this system cannot tell.
    pub fn is_alive(&self) -> Option<bool> {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return None;
        }
        Some(start_ticks(self.pid) == Some(self.start_ticks))
    }
}

/// Field 22 of `/proc/PID/stat` (after the command name, which may hold spaces and
/// parentheses, so the fields are counted from its closing parenthesis).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Fields 3.. follow the name; the start time is field 22.
    after_name.split_whitespace().nth(22 - 3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_finished_child_is_not() {
        let me = ProcessId::current().expect("Linux has /proc");
        assert_eq!(me.pid, std::process::id());
        assert_eq!(me.is_alive(), Some(true));

        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let child_id = ProcessId {
            pid,
            start_ticks: start_ticks(pid).expect("an unreaped child stays in /proc"),
        };
        child.wait().unwrap();
        assert_eq!(child_id.is_alive(), Some(false));

        // The same pid with another start time is another process.
        let reused = ProcessId {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        assert_eq!(reused.is_alive(), Some(false));
    }
}
