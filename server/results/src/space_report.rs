//! The space report: what a bucket holds, by prefix, by age, by key suffix and by
//! object size, added up as the listing streams past. Every table has a cap on its
//! rows, and what falls beyond the cap is counted under `(other)`, so the report's
//! memory is fixed however many keys the bucket has.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use keystorm_types::ListEntry;

/// Distinct prefixes kept at most.
const MAX_PREFIXES: usize = 10_000;
/// Distinct suffixes kept at most.
const MAX_SUFFIXES: usize = 1_000;
/// A suffix longer than this is not a file extension.
const MAX_SUFFIX_LEN: usize = 16;
/// The row where capped tables count the rest.
pub const OTHER: &str = "(other)";
const NO_SUFFIX: &str = "(none)";

/// Objects and their bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tally {
    pub objects: u64,
    pub bytes: u64,
}

impl Tally {
    fn add(&mut self, size: u64) {
        self.objects += 1;
        self.bytes += size;
    }

    fn merge(&mut self, other: &Tally) {
        self.objects += other.objects;
        self.bytes += other.bytes;
    }
}

/// Age classes, by last-modified time before the listing started.
const AGES: [(&str, u64); 6] = [
    ("< 1 hour", 3_600),
    ("1 hour - 1 day", 86_400),
    ("1 - 7 days", 7 * 86_400),
    ("7 - 30 days", 30 * 86_400),
    ("30 - 365 days", 365 * 86_400),
    ("> 1 year", u64::MAX),
];
const AGE_UNKNOWN: &str = "unknown";

/// Size classes: upper bounds (exclusive) in bytes.
const SIZES: [(&str, u64); 12] = [
    ("0 B", 1),
    ("< 1 KiB", 1 << 10),
    ("1 - 4 KiB", 4 << 10),
    ("4 - 16 KiB", 16 << 10),
    ("16 - 64 KiB", 64 << 10),
    ("64 - 256 KiB", 256 << 10),
    ("256 KiB - 1 MiB", 1 << 20),
    ("1 - 4 MiB", 4 << 20),
    ("4 - 16 MiB", 16 << 20),
    ("16 - 64 MiB", 64 << 20),
    ("64 MiB - 1 GiB", 1 << 30),
    (">= 1 GiB", u64::MAX),
];

/// What a bucket (under a prefix) holds, broken down four ways.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SpaceReport {
    pub total: Tally,
    /// Characters after the listing prefix that group `by_prefix`.
    pub prefix_depth: u32,
    pub by_prefix: BTreeMap<String, Tally>,
    pub by_age: BTreeMap<String, Tally>,
    pub by_suffix: BTreeMap<String, Tally>,
    pub by_size: BTreeMap<String, Tally>,
}

/// Adds keys to a report; one per lister, merged at the end.
#[derive(Debug, Clone)]
pub struct ReportBuilder {
    report: SpaceReport,
    listing_prefix_len: usize,
    /// Unix seconds when the listing started (ages are counted from there).
    now_s: u64,
}

impl ReportBuilder {
    pub fn new(listing_prefix: &str, prefix_depth: u32, now_s: u64) -> ReportBuilder {
        ReportBuilder {
            report: SpaceReport {
                prefix_depth,
                ..SpaceReport::default()
            },
            listing_prefix_len: listing_prefix.len(),
            now_s,
        }
    }

    pub fn add(&mut self, e: &ListEntry) {
        let r = &mut self.report;
        r.total.add(e.size);
        let rest = e.key.get(self.listing_prefix_len..).unwrap_or("");
        // The first `prefix_depth` characters, sliced rather than copied.
        let group = rest
            .char_indices()
            .nth(r.prefix_depth as usize)
            .map_or(rest, |(at, _)| &rest[..at]);
        add_capped(&mut r.by_prefix, group, MAX_PREFIXES, e.size);
        add_capped(&mut r.by_suffix, suffix(&e.key), MAX_SUFFIXES, e.size);
        let age = e
            .last_modified
            .as_deref()
            .and_then(parse_rfc3339_s)
            .map(|t| age_class(self.now_s.saturating_sub(t)))
            .unwrap_or(AGE_UNKNOWN);
        add_capped(&mut r.by_age, age, usize::MAX, e.size);
        add_capped(&mut r.by_size, size_class(e.size), usize::MAX, e.size);
    }

    pub fn merge(&mut self, other: &ReportBuilder) {
        let (r, o) = (&mut self.report, &other.report);
        r.total.merge(&o.total);
        merge_capped(&mut r.by_prefix, &o.by_prefix, MAX_PREFIXES);
        merge_capped(&mut r.by_suffix, &o.by_suffix, MAX_SUFFIXES);
        merge_capped(&mut r.by_age, &o.by_age, usize::MAX);
        merge_capped(&mut r.by_size, &o.by_size, usize::MAX);
    }

    /// A builder going on from `report`, the report so far of a resumed listing.
    pub fn resume(listing_prefix: &str, report: SpaceReport, now_s: u64) -> ReportBuilder {
        ReportBuilder {
            report,
            listing_prefix_len: listing_prefix.len(),
            now_s,
        }
    }

    /// Starts over (for the next page), keeping the grouping depth.
    pub fn clear(&mut self) {
        self.report = SpaceReport {
            prefix_depth: self.report.prefix_depth,
            ..SpaceReport::default()
        };
    }

    /// The report so far.
    pub fn report(&self) -> &SpaceReport {
        &self.report
    }

    pub fn finish(self) -> SpaceReport {
        self.report
    }
}

fn add_capped(map: &mut BTreeMap<String, Tally>, key: &str, cap: usize, size: u64) {
    if let Some(t) = map.get_mut(key) {
        t.add(size);
    } else if map.len() < cap {
        map.entry(key.to_string()).or_default().add(size);
    } else {
        map.entry(OTHER.to_string()).or_default().add(size);
    }
}

fn merge_capped(into: &mut BTreeMap<String, Tally>, from: &BTreeMap<String, Tally>, cap: usize) {
    for (k, t) in from {
        if let Some(mine) = into.get_mut(k) {
            mine.merge(t);
        } else if into.len() < cap {
            into.insert(k.clone(), *t);
        } else {
            into.entry(OTHER.to_string()).or_default().merge(t);
        }
    }
}

/// `.jpg` of `a/b/photo.JPG` (lower-case), `(none)` without a short extension.
fn suffix(key: &str) -> &str {
    let name = key.rsplit('/').next().unwrap_or(key);
    match name.rfind('.') {
        Some(dot) if dot > 0 && name.len() - dot <= MAX_SUFFIX_LEN && dot + 1 < name.len() => {
            &name[dot..]
        }
        _ => NO_SUFFIX,
    }
}

fn age_class(age_s: u64) -> &'static str {
    AGES.iter()
        .find(|(_, upto)| age_s < *upto)
        .map_or(AGES[AGES.len() - 1].0, |(name, _)| name)
}

fn size_class(size: u64) -> &'static str {
    SIZES
        .iter()
        .find(|(_, upto)| size < *upto)
        .map_or(SIZES[SIZES.len() - 1].0, |(name, _)| name)
}

/// Unix seconds of an S3 timestamp such as `2026-11-23T18:22:19.711Z`.
pub fn parse_rfc3339_s(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3_600 + mi * 60 + se).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, size: u64, modified: &str) -> ListEntry {
        ListEntry {
            key: key.into(),
            size,
            etag: None,
            last_modified: Some(modified.into()),
            storage_class: None,
        }
    }

    #[test]
    fn timestamps_parse_to_unix_seconds() {
        assert_eq!(parse_rfc3339_s("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339_s("2026-11-23T18:22:19.711Z"),
            Some(1_795_458_139)
        );
        assert_eq!(
            parse_rfc3339_s("2000-02-29T12:00:00.000Z"),
            Some(951_825_600)
        );
        assert_eq!(parse_rfc3339_s("yesterday"), None);
    }

    #[test]
    fn a_report_adds_up_four_ways() {
        let now = parse_rfc3339_s("2026-11-23T00:00:00Z").unwrap();
        let mut b = ReportBuilder::new("p/", 1, now);
        b.add(&entry("p/a/x.JPG", 100, "2026-11-22T23:30:00Z"));
        b.add(&entry("p/a/y.jpg", 5000, "2026-11-20T00:00:00Z"));
        b.add(&entry("p/b/readme", 0, "2020-01-01T00:00:00Z"));
        let mut other = ReportBuilder::new("p/", 1, now);
        other.add(&entry("p/b/z.tar.gz", 2 << 20, "not a date"));
        b.merge(&other);
        let r = b.finish();
        assert_eq!(
            r.total,
            Tally {
                objects: 4,
                bytes: 5100 + (2 << 20)
            }
        );
        assert_eq!(r.by_prefix["a"].objects, 2);
        assert_eq!(r.by_prefix["b"].bytes, 2 << 20);
        assert_eq!(r.by_suffix[".JPG"].objects, 1);
        assert_eq!(r.by_suffix[".gz"].objects, 1);
        assert_eq!(r.by_suffix["(none)"].objects, 1);
        assert_eq!(r.by_age["< 1 hour"].objects, 1);
        assert_eq!(r.by_age["1 - 7 days"].objects, 1);
        assert_eq!(r.by_age["> 1 year"].objects, 1);
        assert_eq!(r.by_age["unknown"].objects, 1);
        assert_eq!(r.by_size["0 B"].objects, 1);
        assert_eq!(r.by_size["< 1 KiB"].objects, 1);
        assert_eq!(r.by_size["4 - 16 KiB"].objects, 1);
        assert_eq!(r.by_size["1 - 4 MiB"].objects, 1);
    }

    #[test]
    fn capped_tables_count_the_rest_as_other() {
        let mut map = BTreeMap::new();
        for i in 0..5 {
            add_capped(&mut map, &i.to_string(), 3, 10);
        }
        assert_eq!(map.len(), 4);
        assert_eq!(map[OTHER].objects, 2);
    }
}
