//! What a listing's file is written as, for `list --keys FILE` and `keys convert IN
//! OUT`: the format `--format` names, else the one the file's extension names.

use std::path::Path;

use keystorm_engine::inventory::Format;

use crate::cli::KeysFormatArg;

/// A file a listing is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOutput {
    /// A key file (`.keys`).
    KeyFile,
    /// A table: Parquet, CSV or JSON lines.
    Table(Format),
}

/// What `path` is written as: `format` when given, else what its extension names;
/// `None` when neither says.
pub fn key_output(path: &Path, format: Option<KeysFormatArg>) -> Option<KeyOutput> {
    match format {
        Some(KeysFormatArg::Parquet) => Some(KeyOutput::Table(Format::Parquet)),
        Some(KeysFormatArg::Csv) => Some(KeyOutput::Table(Format::Csv)),
        Some(KeysFormatArg::Jsonl) => Some(KeyOutput::Table(Format::Jsonl)),
        Some(KeysFormatArg::Keys) => Some(KeyOutput::KeyFile),
        None if path.extension().is_some_and(|e| e == "keys") => Some(KeyOutput::KeyFile),
        None => Format::of_path(path).map(KeyOutput::Table),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_the_extension() {
        let p = Path::new("out.csv");
        assert_eq!(key_output(p, None), Some(KeyOutput::Table(Format::Csv)));
        assert_eq!(
            key_output(p, Some(KeysFormatArg::Parquet)),
            Some(KeyOutput::Table(Format::Parquet))
        );
        assert_eq!(
            key_output(Path::new("x.keys"), None),
            Some(KeyOutput::KeyFile)
        );
        assert_eq!(
            key_output(Path::new("x.out"), Some(KeysFormatArg::Keys)),
            Some(KeyOutput::KeyFile)
        );
        assert_eq!(key_output(Path::new("x.out"), None), None);
    }
}
