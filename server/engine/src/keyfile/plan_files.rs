//! The key files a workload reads (`keys: {file: PATH}`), checked on the disk of the
//! machine that runs it. Validation reads no file, because the same text is checked by
//! a controller whose agents hold the files; `validate` and a run starting here call
//! [`check_key_files`] so that a missing, empty, cut or foreign file is refused at its
//! line and column before anything is sent.

use keystorm_workload::plan::{KeySource, Plan};
use keystorm_workload::spec::SpecError;

use super::KeyFile;

/// Opens every key file `plan` reads (`keys: {file}`) on this machine's disk; the first
/// that is missing, empty, cut or of another kind is an error at the `keys` that names
/// it (`file` names the workload).
pub fn check_key_files(plan: &Plan, file: &str) -> Result<(), SpecError> {
    plan.phases()
        .find_map(|phase| {
            let Some(KeySource::File { path, at, .. }) = &phase.keys else {
                return None;
            };
            let e = KeyFile::open(path).err()?;
            Some(SpecError::Invalid {
                file: file.to_string(),
                line: at.line.max(1),
                column: at.column.max(1),
                message: format!(
                    "phase {:?} reads `keys: {{file}}`: {e}; a key file is written by \
                     `keystorm list BUCKET --keys FILE.keys`",
                    phase.name
                ),
            })
        })
        .map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use crate::keyfile::{KeyEntry, KeyFileWriter};

    fn workload(path: &std::path::Path) -> String {
        format!(
            "name: w\ntarget: {{ endpoint: embedded }}\nbuckets: {{ names: [bkt] }}\n\
             before:\n  - name: read\n    op: get\n    operations: 10\n    keys: {{ file: {:?} }}\n",
            path.display().to_string()
        )
    }

    fn checked(path: &std::path::Path) -> Result<(), keystorm_workload::spec::SpecError> {
        let (plan, _) = keystorm_workload::spec::parse_workload(&workload(path), "w.yaml").unwrap();
        super::check_key_files(&plan, "w.yaml")
    }

    #[test]
    fn a_key_file_that_is_not_one_is_refused_where_the_workload_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.keys");
        let mut w = KeyFileWriter::create(&good, dir.path()).unwrap();
        w.push(KeyEntry {
            key: "a".into(),
            size: 1,
            etag: None,
            last_modified_ms: None,
        })
        .unwrap();
        w.finish().unwrap();
        checked(&good).unwrap();
        let empty = dir.path().join("empty.keys");
        std::fs::write(&empty, b"").unwrap();
        let parquet = dir.path().join("inv.parquet");
        std::fs::write(&parquet, [b"PAR1".as_slice(), &[7; 100], b"PAR1"].concat()).unwrap();
        let missing = dir.path().join("missing.keys");
        for (path, says) in [
            (&empty, "is not a keystorm key file (too short"),
            (
                &parquet,
                "is not a keystorm key file (no keystorm key file header",
            ),
            (&missing, "No such file"),
        ] {
            let e = checked(path).unwrap_err().to_string();
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(
                e.starts_with("w.yaml:8:11: phase \"read\" reads `keys: {file}`: "),
                "{e}"
            );
            assert!(e.contains(name) && e.contains(says), "{e}");
        }
    }
}
