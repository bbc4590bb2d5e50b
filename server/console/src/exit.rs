//! The exit codes of every command: 0 success, 1 a run that failed or was aborted,
//! 2 bad input (workload, arguments), 130 interrupted.

pub const OK: u8 = 0;
pub const FAILED: u8 = 1;
pub const BAD_INPUT: u8 = 2;
pub const INTERRUPTED: u8 = 130;
