//! keystorm's shared vocabulary: which S3 operation ran ([`OpKind`]) and how it failed
//! ([`ErrorClass`], [`OpError`]), which client ran it ([`ClientKind`]), with what keys
//! ([`Credentials`]), what a listing holds ([`ListEntry`]), and the latency
//! distributions a simulated target draws from ([`Delay`]), what an endpoint URL may be
//! ([`check_endpoint_url`]), and which characters a text shown to people may hold
//! ([`text`]).
//!
//! A crate of its own, below both the S3 clients and the results model, so that reading
//! and merging runs (a controller, `keystorm show`) does not build an S3 client and the
//! AWS SDK under it. Nothing here does I/O.

mod client;
mod delay;
mod endpoint_url;
mod list;
mod ops;
pub mod text;

pub use client::{ClientKind, Credentials};
pub use delay::{Delay, DelayParseError};
pub use endpoint_url::{EndpointUrlError, KEYS_GO_ELSEWHERE, check_endpoint_url, refuse_user_info};
pub use list::{ListEntry, storage_class};
pub use ops::{ErrorClass, OpError, OpKind};
