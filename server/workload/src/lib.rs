//! keystorm's workload model: what a run is asked to do, before anything runs it.
//!
//! A workload YAML is parsed into a raw [`spec`] and validated (errors at line and
//! column, suggestions for misspelt names, secrets redacted by value) into an immutable
//! [`plan`], which the engine executes. The model lives apart from the engine so that
//! what reads, checks or shows workloads (the console, the agent link, the API) builds
//! without an S3 client. The interfaces a run is handed live here too: the [`observer`]
//! that watches it and the [`embedded_target`] it may start.

pub mod counts;
pub mod embedded_target;
pub mod observer;
pub mod plan;
pub mod size;
pub mod spec;
