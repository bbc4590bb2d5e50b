//! What `keystorm serve` runs: the HTTP API with the embedded web UI ([`api`]) and the
//! controller that splits a run over agents and merges their shards ([`fleet`]).
//!
//! The API reads runs through `keystorm-results`, checks workloads with
//! `keystorm-workload` and starts them through `keystorm-engine`; the controller speaks to agents in the messages of
//! `keystorm-link`, which the agent crate shares, so neither end depends on the other.

#[macro_use]
extern crate keystorm_console;

pub mod api;
pub mod fleet;
