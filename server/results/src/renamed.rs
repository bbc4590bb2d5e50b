//! Counts of the event log (and of what the API reads from it) renamed so that each
//! name has one meaning. `concurrency` was a listing's listers and `head_concurrency` a
//! metadata scan's HEAD workers; they are now `listers` and `head_workers`, the names
//! the workload gives them.
//!
//! While old names are taken (`keystorm_types::old_names`, which lists these) each is
//! written under both names (the old one deprecated), so a reader of the old name keeps
//! working, and read under either, so runs recorded before read as they were. A field using this is `#[serde(flatten, with = ...)]`:
//! the two keys sit in the record beside its other fields. Once the old name is no
//! longer written, the reader still takes it: runs of this release carry both.

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserializer, Serializer};

use keystorm_types::old_names::{self, Place};

/// Writes `value` under `new` and, deprecated, under `old` while old names are taken.
fn write_both<S: Serializer>(
    value: u32,
    new: &'static str,
    old: &'static str,
    s: S,
) -> Result<S::Ok, S::Error> {
    let old = old_names::taken(Place::Results, old, new).map(|r| r.old);
    let mut map = s.serialize_map(Some(1 + usize::from(old.is_some())))?;
    map.serialize_entry(new, &value)?;
    if let Some(old) = old {
        map.serialize_entry(old, &value)?;
    }
    map.end()
}

/// Reads the count under `new`, or under `old` in a record written before the rename;
/// other keys of the record are left to its other fields.
fn read_either<'de, D: Deserializer<'de>>(
    d: D,
    new: &'static str,
    old: &'static str,
) -> Result<u32, D::Error> {
    struct Either {
        new: &'static str,
        old: &'static str,
    }
    impl<'de> Visitor<'de> for Either {
        type Value = u32;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "`{}` (or its old name `{}`)", self.new, self.old)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u32, A::Error> {
            let (mut new, mut old) = (None, None);
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == self.new {
                    new = Some(map.next_value()?);
                } else if key == self.old {
                    old = Some(map.next_value()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            new.or(old)
                .ok_or_else(|| serde::de::Error::missing_field(self.new))
        }
    }
    d.deserialize_map(Either { new, old })
}

/// A listing's `listers`, once `concurrency`.
pub mod listers {
    use keystorm_types::old_names::RESULTS_RENAMED;

    pub const NEW: &str = RESULTS_RENAMED[0].new;
    pub const OLD: &str = RESULTS_RENAMED[0].old;

    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        crate::renamed::write_both(*v, NEW, OLD, s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        crate::renamed::read_either(d, NEW, OLD)
    }
}

/// A metadata scan's `head_workers`, once `head_concurrency`.
pub mod head_workers {
    use keystorm_types::old_names::RESULTS_RENAMED;

    pub const NEW: &str = RESULTS_RENAMED[1].new;
    pub const OLD: &str = RESULTS_RENAMED[1].old;

    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        crate::renamed::write_both(*v, NEW, OLD, s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        crate::renamed::read_either(d, NEW, OLD)
    }
}

/// A listing's listers, under their name and, until the next release, their old one.
#[cfg(feature = "openapi")]
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ListersCount {
    /// Listers that listed the bucket at once (1 in serial mode); in a merged run, the
    /// listers of all the shards that listed it, added up.
    listers: u32,
    /// Deprecated: `listers` under its name before this release; written until the
    /// next release.
    #[schema(deprecated)]
    concurrency: u32,
}

/// A metadata scan's HEAD workers, under their name and, until the next release, their
/// old one.
#[cfg(feature = "openapi")]
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct HeadWorkersCount {
    /// HEAD workers (HEAD requests in flight at most); in a merged run, those of all
    /// the shards that HEADed, added up.
    head_workers: u32,
    /// Deprecated: `head_workers` under its name before this release; written until the
    /// next release.
    #[schema(deprecated)]
    head_concurrency: u32,
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Counted {
        bucket: String,
        #[serde(flatten, with = "super::listers")]
        listers: u32,
        keys: u64,
    }

    #[test]
    fn written_under_both_names_read_under_either() {
        let c = Counted {
            bucket: "b".into(),
            listers: 4,
            keys: 9,
        };
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(
            text,
            r#"{"bucket":"b","listers":4,"concurrency":4,"keys":9}"#
        );
        assert_eq!(serde_json::from_str::<Counted>(&text).unwrap(), c);
        let old = r#"{"bucket":"b","concurrency":4,"keys":9}"#;
        assert_eq!(serde_json::from_str::<Counted>(old).unwrap(), c);
        let new_only = r#"{"bucket":"b","listers":4,"keys":9}"#;
        assert_eq!(serde_json::from_str::<Counted>(new_only).unwrap(), c);
    }

    #[test]
    fn the_new_name_wins_and_neither_is_an_error() {
        let both = r#"{"bucket":"b","concurrency":3,"listers":4,"keys":9}"#;
        assert_eq!(serde_json::from_str::<Counted>(both).unwrap().listers, 4);
        let neither = serde_json::from_str::<Counted>(r#"{"bucket":"b","keys":9}"#);
        assert!(
            neither
                .unwrap_err()
                .to_string()
                .contains("missing field `listers`")
        );
        let wrong = serde_json::from_str::<Counted>(r#"{"bucket":"b","listers":-1,"keys":9}"#);
        assert!(wrong.is_err());
    }
}
