//! The table formats an inventory is written in, and how a file name picks one.

use std::path::Path;

/// An inventory's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Parquet,
    Csv,
    Jsonl,
}

impl Format {
    /// The format a file's extension names (`.parquet`, `.csv`, `.jsonl`, `.ndjson`),
    /// case aside.
    pub fn of_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" => Some(Format::Parquet),
            "csv" => Some(Format::Csv),
            "jsonl" | "ndjson" => Some(Format::Jsonl),
            _ => None,
        }
    }

    /// The name `--format` takes and reports give.
    pub fn name(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_format() {
        assert_eq!(
            Format::of_path(Path::new("a/b.parquet")),
            Some(Format::Parquet)
        );
        assert_eq!(Format::of_path(Path::new("b.CSV")), Some(Format::Csv));
        assert_eq!(Format::of_path(Path::new("b.ndjson")), Some(Format::Jsonl));
        assert_eq!(Format::of_path(Path::new("b.keys")), None);
        assert_eq!(Format::of_path(Path::new("parquet")), None);
    }
}
