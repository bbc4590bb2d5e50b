//! The computed keyspace: key `i` — and its bucket, size, content and metadata — is a
//! pure function of the workload and `i`, so billions of keys cost no client memory.
//!
//! The live objects are a [`Window`] `[tail, head)` of indices: puts append at the head,
//! deletes consume the tail, reads pick inside. The window is the only state, which is
//! also what a checkpoint holds.
//!
//! A shard of the workload (`--shard I/N`) counts its own keys `0, 1, 2, ...`, which
//! are the workload's keys `I, I + N, I + 2N, ...`: its window, its checkpoint and its
//! fill targets are in its own indices, and only the names, sizes, bodies and metadata
//! are computed from the workload's index.

mod content;
mod hash;
mod names;
mod window;

pub use content::{ContentPool, OFFSET_SPAN, POOL_CAP};
pub use hash::mix64;
pub use window::Window;
pub(crate) use window::WindowState;

use keystorm_s3::Payload;
use keystorm_s3::payload::Wrapped;

use crate::plan::{KeyLayout, KeyspacePlan, MetaPart, MetaTemplate, ObjectsPlan, SizeDist};

/// Salts that keep the per-key hash streams independent.
const SALT_SIZE: u64 = 0x5157_0001;
const SALT_OFFSET: u64 = 0x5157_0002;

/// Everything needed to compute key `i` and what is stored under it.
#[derive(Debug, Clone)]
pub struct Keyspace {
    seed: u64,
    prefix: String,
    layout: KeyLayout,
    key_length: usize,
    bucket_count: u64,
    size: SizeDist,
    weighted_total: u64,
    metadata: Vec<(String, MetaTemplate)>,
    content: ContentPool,
    /// This run's part of the keyspace: local index `i` is the workload's key
    /// `i * shards + shard` (`0` of `1` for a whole run).
    shard: u64,
    shards: u64,
}

impl Keyspace {
    pub fn new(keyspace: &KeyspacePlan, objects: &ObjectsPlan, bucket_count: usize) -> Keyspace {
        let weighted_total = match &objects.size {
            SizeDist::Weighted { choices } => choices.iter().map(|(_, w)| u64::from(*w)).sum(),
            _ => 0,
        };
        Keyspace {
            seed: keyspace.seed,
            prefix: keyspace.prefix.clone(),
            layout: keyspace.layout,
            key_length: keyspace.key_length,
            bucket_count: bucket_count.max(1) as u64,
            size: objects.size.clone(),
            weighted_total,
            metadata: objects.metadata.clone(),
            content: ContentPool::new(objects.content, keyspace.seed, max_size(&objects.size)),
            shard: u64::from(keyspace.shard.index),
            shards: u64::from(keyspace.shard.count.max(1)),
        }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The workload's key index of this run's key `i` (the same for a whole run).
    fn global(&self, i: u64) -> u64 {
        i * self.shards + self.shard
    }

    /// Appends key `i` to `out` (cleared first), avoiding an allocation per call.
    pub fn key_into(&self, i: u64, out: &mut String) {
        let i = self.global(i);
        out.clear();
        out.push_str(&self.prefix);
        match self.layout {
            KeyLayout::Random => names::random_name(self.seed, i, self.key_length, out),
            KeyLayout::Sequential => names::sequential_name(i, self.key_length, out),
            KeyLayout::Tree { fanout, depth } => {
                names::tree_folders(self.seed, i, fanout, depth, out);
                names::random_name(self.seed, i, self.key_length, out);
            }
        }
    }

    pub fn key(&self, i: u64) -> String {
        let mut s = String::with_capacity(self.prefix.len() + self.key_length + 16);
        self.key_into(i, &mut s);
        s
    }

    /// Which of the workload's buckets holds key `i`.
    pub fn bucket_index(&self, i: u64) -> usize {
        (self.global(i) % self.bucket_count) as usize
    }

    /// Size in bytes of object `i`.
    pub fn size(&self, i: u64) -> u64 {
        let i = self.global(i);
        match &self.size {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform { min, max } => {
                let span = max - min + 1;
                min + mix64(self.seed ^ SALT_SIZE, i) % span
            }
            SizeDist::Weighted { choices } => {
                let mut pick = mix64(self.seed ^ SALT_SIZE, i) % self.weighted_total.max(1);
                for (size, weight) in choices {
                    let w = u64::from(*weight);
                    if pick < w {
                        return *size;
                    }
                    pick -= w;
                }
                choices.last().map(|(s, _)| *s).unwrap_or(0)
            }
        }
    }

    /// The body of object `i`: read from the shared pre-generated buffer (no copy).
    pub fn body(&self, i: u64) -> Payload {
        self.content.slice(self.body_hash(i), self.size(i))
    }

    /// The body of object `i`, borrowed, and which body it is (its offset in the buffer
    /// and its size): objects with the same id have the same bytes.
    pub fn body_with_id(&self, i: u64) -> (Wrapped<'_>, (u64, u64)) {
        let size = self.size(i);
        let hash = self.body_hash(i);
        (
            self.content.bytes(hash, size),
            (ContentPool::offset(hash), size),
        )
    }

    fn body_hash(&self, i: u64) -> u64 {
        mix64(self.seed ^ SALT_OFFSET, self.global(i))
    }

    /// The user metadata of object `i` (names without `x-amz-meta-`).
    pub fn metadata(&self, i: u64) -> Vec<(String, String)> {
        let i = self.global(i);
        self.metadata
            .iter()
            .map(|(name, template)| (name.clone(), render(template, self.seed, i)))
            .collect()
    }

    pub fn has_metadata(&self) -> bool {
        !self.metadata.is_empty()
    }
}

/// Largest object the size distribution can produce.
pub fn max_size(size: &SizeDist) -> u64 {
    match size {
        SizeDist::Fixed { bytes } => *bytes,
        SizeDist::Uniform { max, .. } => *max,
        SizeDist::Weighted { choices } => choices.iter().map(|(s, _)| *s).max().unwrap_or(0),
    }
}

/// Renders a metadata template for key index `i`.
pub fn render(template: &MetaTemplate, seed: u64, i: u64) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for part in &template.parts {
        // Writing into a String cannot fail.
        let _ = match part {
            MetaPart::Literal(s) => {
                out.push_str(s);
                Ok(())
            }
            MetaPart::Index => write!(out, "{i}"),
            MetaPart::IndexMod(n) => write!(out, "{}", i % (*n).max(1)),
            MetaPart::IndexDiv(n) => write!(out, "{}", i / (*n).max(1)),
            MetaPart::Seed => write!(out, "{seed}"),
        };
    }
    out
}
