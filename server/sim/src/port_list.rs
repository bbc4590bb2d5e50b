//! The ports a target listens on, as its admin API sees them: each one's number and
//! URL, its request counts and faults, and its close and reopen — so that a client in
//! another process can take one gateway down and bring it back (`admin_ports`). The
//! list holds the ports weakly: it is part of the target's state, which the ports
//! themselves hold.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};

use crate::port_faults::PortFaultsError;
use crate::request::Op;
use crate::{FaultConfig, FaultCounts, ObjectOp};

/// A future a port's control returns.
pub(crate) type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the admin API can see and do of one port.
pub(crate) trait Gateway: Send + Sync {
    /// The port number it listens on.
    fn number(&self) -> u16;
    fn endpoint(&self) -> String;
    fn requests(&self, op: Op) -> u64;
    fn faults(&self) -> Option<FaultConfig>;
    fn set_faults(&self, faults: Option<FaultConfig>) -> Result<(), PortFaultsError>;
    /// What the port's own faults injected into one operation group.
    fn injected(&self, op: ObjectOp) -> FaultCounts;
    fn is_open(&self) -> Pending<'_, bool>;
    fn close(&self) -> Pending<'_, ()>;
    fn reopen(&self) -> Pending<'_, std::io::Result<()>>;
}

/// Every port of a target, in the order they were opened.
#[derive(Default)]
pub(crate) struct PortList {
    ports: Mutex<Vec<Weak<dyn Gateway>>>,
}

impl PortList {
    pub fn add(&self, port: Weak<dyn Gateway>) {
        self.ports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(port);
    }

    /// The ports still held by the target.
    pub fn all(&self) -> Vec<Arc<dyn Gateway>> {
        self.ports
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// The port listening on `number`.
    pub fn find(&self, number: u16) -> Option<Arc<dyn Gateway>> {
        self.all().into_iter().find(|p| p.number() == number)
    }

    /// What every port's own faults injected into one operation group.
    pub fn injected(&self, op: ObjectOp) -> FaultCounts {
        self.all()
            .iter()
            .map(|p| p.injected(op))
            .fold(FaultCounts::default(), |a, b| a + b)
    }
}
