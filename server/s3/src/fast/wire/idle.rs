//! The wire client's idle connections: taken by a request, put back by its answer
//! once read to its end, kept up to a bound.

use std::sync::Mutex;

use super::conn::{Conn, Peer};

pub(crate) struct Idle {
    conns: Mutex<Vec<Conn>>,
    max: usize,
}

impl Idle {
    pub fn new(max: usize) -> Idle {
        Idle {
            conns: Mutex::new(Vec::with_capacity(max.min(4096))),
            max: max.max(1),
        }
    }

    /// An idle connection to `peer` that is still open, if there is one.
    pub fn check_out(&self, peer: &Peer<'_>) -> Option<Conn> {
        loop {
            let mut conn = {
                let mut idle = self.conns.lock().unwrap_or_else(|e| e.into_inner());
                let at = idle.iter().rposition(|c| c.peer == *peer)?;
                idle.swap_remove(at)
            };
            if conn.still_open() {
                return Some(conn);
            }
        }
    }

    /// Keeps `conn` for the next request, unless enough are kept.
    pub fn check_in(&self, conn: Conn) {
        let mut idle = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.max {
            idle.push(conn);
        }
    }
}
