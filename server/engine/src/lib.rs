//! keystorm's engine: everything between a validated workload and the numbers on disk.
//!
//! A workload's plan (`keystorm-workload`: YAML parsed, validated, immutable) is
//! executed by the [`executor`] against an S3 target through one of the clients of
//! `keystorm-s3`. Keys, sizes, content and metadata are computed by the [`keyspace`],
//! never stored; latency is recorded into exact HdrHistograms by [`metrics`] and written
//! as the run goes by the results model (`keystorm-results`). Whole buckets are walked
//! by [`listing`] (serial, by prefix, or adaptively) and HEADed for their metadata by
//! [`scan`]; [`transfer`] moves objects between a bucket and a local folder. [`audit`]
//! proves a listing holds what was written (and compares two listings); [`keyfile`]
//! keeps a listing on disk to read from, and [`inventory`] writes one as a table
//! (Parquet, CSV, JSON lines) for other tools.

pub mod audit;
pub mod executor;
mod gateways;
pub mod inventory;
pub mod keyfile;
pub mod keyset;
pub mod keyspace;
pub mod listing;
pub mod metrics;
mod pool;
pub mod rgw;
pub mod scan;
pub mod step_meter;
pub mod transfer;
mod varint;

// The workload model, under the names the engine has always used for it.
use keystorm_workload::{plan, spec};
