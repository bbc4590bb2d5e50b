//! What a HEAD scan found in the objects' user metadata (`x-amz-meta-*`): how many
//! objects carry each name, and how many carry each value, with caps on the names and
//! on the values per name so a bucket of unique values cannot grow the summary.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Metadata names counted at most; the rest go to `other_names`.
const MAX_NAMES: usize = 256;
/// Values counted per name at most; the rest go to that name's `other_values`.
pub const MAX_VALUES: usize = 100;

/// One metadata name across the scanned objects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetadataName {
    /// Objects that have this name.
    pub objects: u64,
    /// Objects per value, for the first `MAX_VALUES` distinct values seen.
    pub values: BTreeMap<String, u64>,
    /// Objects whose value did not fit in `values`.
    pub other_values: u64,
}

impl MetadataName {
    /// The `n` values most objects carry, most common first (ties by value).
    pub fn top_values(&self, n: usize) -> Vec<(&str, u64)> {
        let mut values: Vec<(&str, u64)> =
            self.values.iter().map(|(v, c)| (v.as_str(), *c)).collect();
        values.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        values.truncate(n);
        values
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetadataSummary {
    /// Objects scanned (HEADs that answered).
    pub objects: u64,
    /// Objects without any user metadata.
    pub without_metadata: u64,
    pub names: BTreeMap<String, MetadataName>,
    /// Name occurrences beyond the first `MAX_NAMES` names.
    pub other_names: u64,
}

impl MetadataSummary {
    pub fn add(&mut self, metadata: &[(String, String)]) {
        self.objects += 1;
        if metadata.is_empty() {
            self.without_metadata += 1;
        }
        for (name, value) in metadata {
            self.add_value(name, value, 1);
        }
    }

    fn add_value(&mut self, name: &str, value: &str, n: u64) {
        if !self.names.contains_key(name) {
            if self.names.len() >= MAX_NAMES {
                self.other_names += n;
                return;
            }
            self.names.insert(name.to_string(), MetadataName::default());
        }
        let Some(entry) = self.names.get_mut(name) else {
            return;
        };
        entry.objects += n;
        if let Some(c) = entry.values.get_mut(value) {
            *c += n;
        } else if entry.values.len() < MAX_VALUES {
            entry.values.insert(value.to_string(), n);
        } else {
            entry.other_values += n;
        }
    }

    pub fn merge(&mut self, other: &MetadataSummary) {
        self.objects += other.objects;
        self.without_metadata += other.without_metadata;
        self.other_names += other.other_names;
        for (name, theirs) in &other.names {
            for (value, n) in &theirs.values {
                self.add_value(name, value, *n);
            }
            if theirs.other_values > 0 {
                match self.names.get_mut(name) {
                    Some(mine) => {
                        mine.objects += theirs.other_values;
                        mine.other_values += theirs.other_values;
                    }
                    None => self.other_names += theirs.other_values,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn counts_names_and_values_and_merges() {
        let mut a = MetadataSummary::default();
        a.add(&meta(&[("team", "a"), ("tier", "hot")]));
        a.add(&meta(&[("team", "b")]));
        a.add(&[]);
        let mut b = MetadataSummary::default();
        b.add(&meta(&[("team", "a")]));
        a.merge(&b);
        assert_eq!(a.objects, 4);
        assert_eq!(a.without_metadata, 1);
        assert_eq!(a.names["team"].objects, 3);
        assert_eq!(a.names["team"].values["a"], 2);
        assert_eq!(a.names["tier"].values["hot"], 1);
        assert_eq!(a.names["team"].top_values(5), [("a", 2), ("b", 1)]);
        assert_eq!(a.names["team"].top_values(1), [("a", 2)]);
    }

    #[test]
    fn values_beyond_the_cap_are_counted_not_kept() {
        let mut s = MetadataSummary::default();
        for i in 0..MAX_VALUES + 50 {
            s.add(&meta(&[("id", &i.to_string())]));
        }
        let id = &s.names["id"];
        assert_eq!(id.values.len(), MAX_VALUES);
        assert_eq!(id.other_values, 50);
        assert_eq!(id.objects, (MAX_VALUES + 50) as u64);
        let mut merged = MetadataSummary::default();
        merged.merge(&s);
        assert_eq!(merged.names["id"], *id);
    }
}
