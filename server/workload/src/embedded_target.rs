//! The embedded target: a store started in this process for a run whose workload says
//! `endpoint: embedded`. The engine is a client of stores and knows only this
//! interface; the program that runs workloads provides it in the engine's run options
//! (keystorm wires in its simulator, which needs no engine to do so). A run of an
//! embedded workload without one is refused with a clear message.

use std::future::Future;
use std::pin::Pin;

use crate::plan::{EmbeddedPlan, EmbeddedStorage};

/// Why an embedded target did not start.
pub type StartError = Box<dyn std::error::Error + Send + Sync>;

/// What starting a target resolves to.
pub type Starting<'a> =
    Pin<Box<dyn Future<Output = Result<Box<dyn EmbeddedTarget>, StartError>> + Send + 'a>>;

/// Starts embedded targets.
pub trait EmbeddedTargets: Send + Sync + std::fmt::Debug {
    /// A target on loopback (any free port) that behaves as `plan` says, keeps objects
    /// as `storage` says, and verifies signatures made with these keys.
    fn start<'a>(
        &'a self,
        plan: &'a EmbeddedPlan,
        storage: EmbeddedStorage,
        access_key: &'a str,
        secret_key: &'a str,
    ) -> Starting<'a>;
}

/// A running embedded target; dropping it stops it.
pub trait EmbeddedTarget: Send + Sync {
    /// `http://127.0.0.1:PORT`.
    fn endpoint(&self) -> String;
}
