//! The link between keystorm's controller and the processes that call it: the agents
//! and `run --controller`. It holds what they say to each other ([`protocol`]), how
//! much of it the controller takes ([`bounds`], [`own_names`]), the HTTP(S) client
//! that carries it ([`client`]), and TLS for keystorm's own HTTP ([`tls`]: the
//! controller's listener and its clients' trust).
//!
//! It sits below both ends, so the controller (`keystorm-server`) and the agent
//! (`keystorm-agent`) agree on one definition of every message without either
//! depending on the other.

#[macro_use]
extern crate keystorm_console;

pub mod bounds;
pub mod client;
pub mod own_names;
pub mod protocol;
pub mod tls;
mod whole_number;
