//! What keystorm prints to a person: [`output`] (standard output and error that survive
//! a closed pipe, redact the secrets of the runs going, and are captured when a command
//! runs in-process), [`progress`] (bars on a terminal, one plain line a second
//! otherwise, with [`threshold_lines`] for a running phase's thresholds) and [`table`]
//! (the result tables and latency figures), and the [`exit`] codes of every command.
//!
//! The command line, the controller and the agent all print through it, so what one of
//! them prints reads like the others and a test that runs a command in-process sees it
//! all.

pub mod exit;
pub mod gateway_states;
#[macro_use]
pub mod output;
pub mod progress;
pub mod table;
pub mod threshold_lines;
