//! Human sizes (`6B`, `1KiB`, `4 MiB`, `1.5GB`) and their inverse for display.

/// Units accepted after a number; a bare number is bytes.
pub const UNITS_HELP: &str = "B, KiB, MiB, GiB, TiB (binary) or KB, MB, GB, TB (decimal)";

/// Why a text is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("{text:?} is not a size: expected a number and a unit ({UNITS_HELP})")]
    NoNumber { text: String },
    #[error("unknown size unit {unit:?} in {text:?}; use {UNITS_HELP}")]
    UnknownUnit { unit: String, text: String },
    #[error("{text:?} is not a size: {number:?} is not a number")]
    NotANumber { text: String, number: String },
    #[error("size {text:?} is too large")]
    TooLarge { text: String },
    #[error("size {text:?} is not a whole number of bytes")]
    Fractional { text: String },
}

/// Parses a byte size with an optional binary (KiB, MiB, GiB, TiB) or decimal
/// (KB, MB, GB, TB) unit; a bare number is bytes. Units are case-insensitive.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let owned = || text.to_string();
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let unit = unit.trim();
    if number.is_empty() {
        return Err(SizeError::NoNumber { text: owned() });
    }
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" | "k" => 1 << 10,
        "mib" | "m" => 1 << 20,
        "gib" | "g" => 1 << 30,
        "tib" | "t" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(SizeError::UnknownUnit {
                unit: unit.to_string(),
                text: owned(),
            });
        }
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole
            .checked_mul(multiplier)
            .ok_or_else(|| SizeError::TooLarge { text: owned() });
    }
    let value: f64 = number.parse().map_err(|_| SizeError::NotANumber {
        text: owned(),
        number: number.to_string(),
    })?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(SizeError::TooLarge { text: owned() });
    }
    if bytes.fract() != 0.0 {
        return Err(SizeError::Fractional { text: owned() });
    }
    Ok(bytes as u64)
}

/// Bytes for people: `6 B`, `1 KiB`, `4.5 MiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_and_decimal_units() {
        assert_eq!(parse_size("6B"), Ok(6));
        assert_eq!(parse_size("6"), Ok(6));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("4 MiB"), Ok(4 << 20));
        assert_eq!(parse_size("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_size("2kb"), Ok(2000));
        assert_eq!(parse_size("0.5KiB"), Ok(512));
    }

    #[test]
    fn bad_sizes_say_what_is_wrong() {
        assert!(
            parse_size("4XB")
                .unwrap_err()
                .to_string()
                .contains("unknown size unit \"XB\"")
        );
        assert!(
            parse_size("KiB")
                .unwrap_err()
                .to_string()
                .contains("not a size")
        );
        assert!(
            parse_size("0.3B")
                .unwrap_err()
                .to_string()
                .contains("whole number")
        );
        assert!(
            parse_size("99999999999TiB")
                .unwrap_err()
                .to_string()
                .contains("too large")
        );
        assert!(parse_size("1.2.3KiB").is_err());
    }

    #[test]
    fn sizes_format_for_people() {
        assert_eq!(format_size(6), "6 B");
        assert_eq!(format_size(1024), "1 KiB");
        assert_eq!(format_size(4_718_592), "4.5 MiB");
    }
}
