//! The exit codes of every command: 0 success, 1 a run that failed or was aborted,
//! 2 bad input (workload, arguments), 3 a run that completed but found the store did
//! not keep what it was given, 130 interrupted.

pub const OK: u8 = 0;
pub const FAILED: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// The run completed, but a verification or an audit found objects not as written
/// (`keystorm run --allow-not-as-written` exits 0 instead), or a phase missed a
/// threshold of the workload's `expect:`.
pub const NOT_AS_WRITTEN: u8 = 3;
pub const INTERRUPTED: u8 = 130;
