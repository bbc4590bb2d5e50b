//! Whole numbers as JSON may write them: `18242` and `18242.0` are the same integer to
//! a JSON Schema (and to many JSON writers), so the agent link accepts both for its
//! counters and times, and refuses a fraction or a number out of range.

use serde::de::{Deserialize, Deserializer, Error};

/// A whole number of type `T` from a JSON number without a fraction.
pub fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + TryFrom<i64>,
{
    whole(serde_json::Number::deserialize(d)?)
        .ok_or_else(|| D::Error::custom("expected a whole number in range (no fraction)"))
}

/// The same for an optional field (absent or null: `None`).
pub fn option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + TryFrom<i64>,
{
    match Option::<serde_json::Number>::deserialize(d)? {
        None => Ok(None),
        Some(n) => whole(n)
            .map(Some)
            .ok_or_else(|| D::Error::custom("expected a whole number in range (no fraction)")),
    }
}

fn whole<T: TryFrom<u64> + TryFrom<i64>>(n: serde_json::Number) -> Option<T> {
    if let Some(u) = n.as_u64() {
        // The API documents these as int64: past its top is out of range.
        return i64::try_from(u).ok().and_then(|i| T::try_from(i).ok());
    }
    if let Some(i) = n.as_i64() {
        return T::try_from(i).ok();
    }
    let f = n.as_f64()?;
    // Below 2^63 in size, an f64 without a fraction converts exactly.
    if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 9.2e18 {
        return None;
    }
    if f >= 0.0 {
        T::try_from(f as u64).ok()
    } else {
        T::try_from(f as i64).ok()
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Counts {
        #[serde(deserialize_with = "super::deserialize")]
        cores: u32,
        #[serde(default, deserialize_with = "super::option")]
        offset: Option<i64>,
        #[serde(default, deserialize_with = "super::deserialize")]
        sent: u64,
    }

    fn parse(json: &str) -> Result<Counts, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn whole_numbers_are_read_however_they_are_written() {
        assert_eq!(
            parse(r#"{"cores": 8}"#).unwrap(),
            Counts {
                cores: 8,
                offset: None,
                sent: 0
            }
        );
        assert_eq!(
            parse(r#"{"cores": 18242.0, "offset": -3.0}"#).unwrap(),
            Counts {
                cores: 18242,
                offset: Some(-3),
                sent: 0
            }
        );
        assert_eq!(
            parse(r#"{"cores": 1, "offset": null}"#).unwrap().offset,
            None
        );
        assert_eq!(
            parse(r#"{"cores": 1, "sent": 9223372036854775807}"#)
                .unwrap()
                .sent,
            i64::MAX as u64
        );
        for bad in [
            r#"{"cores": 1.5}"#,
            r#"{"cores": -1}"#,
            r#"{"cores": 5000000000}"#,
            r#"{"cores": 1e300}"#,
            // Past int64, as the API document bounds it.
            r#"{"cores": 1, "sent": 9223372036854775808}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
