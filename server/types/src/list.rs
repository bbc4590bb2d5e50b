//! One listed object, as every listing (a client's page, a key file, an inventory, a
//! space report) carries it.

use std::borrow::Cow;

/// One listed object.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    pub key: String,
    pub size: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// `STANDARD`, `GLACIER`, ...: the classes S3 names cost no allocation per key.
    pub storage_class: Option<Cow<'static, str>>,
}

/// The storage classes S3 documents, shared rather than allocated per listed key.
const STORAGE_CLASSES: [&str; 11] = [
    "STANDARD",
    "REDUCED_REDUNDANCY",
    "STANDARD_IA",
    "ONEZONE_IA",
    "INTELLIGENT_TIERING",
    "GLACIER",
    "DEEP_ARCHIVE",
    "GLACIER_IR",
    "OUTPOSTS",
    "SNOW",
    "EXPRESS_ONEZONE",
];

/// A listed storage class: one of [`STORAGE_CLASSES`] borrowed, any other owned.
pub fn storage_class(text: &str) -> Cow<'static, str> {
    match STORAGE_CLASSES.iter().find(|c| **c == text) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(text.to_string()),
    }
}
