//! keystorm's shared vocabulary: which S3 operation ran ([`OpKind`]) and how it failed
//! ([`ErrorClass`], [`OpError`]), which client ran it ([`ClientKind`]), with what keys
//! ([`Credentials`]) and where they come from ([`CredentialSource`]), what a listing
//! holds ([`ListEntry`]), and the latency distributions a simulated target draws from
//! ([`Delay`]), what an endpoint URL may be ([`check_endpoint_url`]), what a run's label
//! may be ([`check_label`]), and which characters a text shown to people may hold
//! ([`text`]), every [`old_names`] still taken, with the release that drops them, and
//! the limits and defaults of an RGW bucket index ([`rgw_index`]).
//!
//! A crate of its own, below both the S3 clients and the results model, so that reading
//! and merging runs (a controller, `keystorm show`) does not build an S3 client and the
//! AWS SDK under it. Nothing here does I/O.

mod client;
mod credential_source;
mod delay;
mod endpoint_url;
mod label;
mod list;
pub mod old_names;
mod ops;
pub mod rgw_index;
pub mod text;

pub use client::{ClientKind, Credentials};
pub use credential_source::CredentialSource;
pub use delay::{Delay, DelayParseError};
pub use endpoint_url::{
    EndpointUrlError, KEYS_GO_ELSEWHERE, check_endpoint_url, check_endpoint_urls, endpoint_urls,
    refuse_user_info,
};
pub use label::{
    LABEL_KEY_MAX_CHARS, LABEL_KEY_PATTERN, LABEL_VALUE_MAX_CHARS, LabelError, check_label,
};
pub use list::{ListEntry, storage_class};
pub use ops::{ErrorClass, OpError, OpKind};
