//! Keys become local paths, and back, without a key ever reaching outside the download
//! folder. A key is split at `/`; each part becomes one path component: an empty part
//! (from `a//b`, a leading `/` or a folder marker `dir/`) is written `%`, a `.` or `..`
//! part `%2E` / `%2E%2E`, NUL `%00`, and a `%` that would read as one of these escapes
//! (before `25` or `00`, or making the whole part `%`, `%2E` or `%2E%2E`) `%25`. Every
//! other name is kept as it is, so folders of ordinary files upload to the keys their
//! names say and download back to the same names; keys map to paths one-to-one.

use std::path::{Path, PathBuf};

/// Longest file name most file systems take, in bytes.
const MAX_COMPONENT: usize = 255;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    #[error(
        "key {key:?} has a part longer than {MAX_COMPONENT} bytes once encoded: no file system takes it"
    )]
    TooLong { key: String },
    #[error("{path} is a symbolic link: keystorm does not write through links")]
    Symlink { path: String },
    #[error("file name {name:?} is not valid UTF-8, so it cannot be an S3 key")]
    NotUtf8 { name: String },
}

/// Names that stand for parts a file system cannot have.
const SPECIAL: [(&str, &str); 3] = [("", "%"), (".", "%2E"), ("..", "%2E%2E")];

fn encode_part(part: &str) -> String {
    if let Some((_, name)) = SPECIAL.iter().find(|(p, _)| *p == part) {
        return name.to_string();
    }
    let mut out = String::with_capacity(part.len() + 2);
    for (i, c) in part.char_indices() {
        match c {
            '\0' => out.push_str("%00"),
            '%' if part[i + 1..].starts_with("25") || part[i + 1..].starts_with("00") => {
                out.push_str("%25")
            }
            c => out.push(c),
        }
    }
    if SPECIAL.iter().any(|(_, name)| *name == out) {
        // The part is literally `%`, `%2E` or `%2E%2E`: escape its first `%`.
        out.replace_range(0..1, "%25");
    }
    out
}

fn decode_part(name: &str) -> String {
    if let Some((part, _)) = SPECIAL.iter().find(|(_, n)| *n == name) {
        return part.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(t) = tail.strip_prefix("%25") {
            out.push('%');
            rest = t;
        } else if let Some(t) = tail.strip_prefix("%00") {
            out.push('\0');
            rest = t;
        } else {
            out.push('%');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The path under `root` for `key` (relative to the listing prefix).
pub fn key_to_path(root: &Path, key: &str) -> Result<PathBuf, PathError> {
    let mut path = root.to_path_buf();
    for part in key.split('/') {
        let name = encode_part(part);
        if name.len() > MAX_COMPONENT {
            return Err(PathError::TooLong {
                key: key.to_string(),
            });
        }
        path.push(name);
    }
    Ok(path)
}

/// The key (relative to the upload prefix) of `path`, a file under `root`.
pub fn path_to_key(root: &Path, path: &Path) -> Result<String, PathError> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut parts = Vec::new();
    for c in rel.components() {
        let name = c.as_os_str();
        let name = name.to_str().ok_or_else(|| PathError::NotUtf8 {
            name: name.to_string_lossy().into_owned(),
        })?;
        parts.push(decode_part(name));
    }
    Ok(parts.join("/"))
}

/// Refuses a path under `root` whose existing parts include a symbolic link (which
/// could point anywhere); parts that do not exist yet are fine.
pub fn check_no_symlinks(root: &Path, path: &Path) -> Result<(), PathError> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut at = root.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(PathError::Symlink {
                    path: at.display().to_string(),
                });
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_climb_out_of_the_folder() {
        let root = Path::new("/data/dl");
        for key in [
            "../../etc/x",
            "/etc/passwd",
            "a/../../b",
            "./x",
            "..",
            "a//b",
            "dir/",
        ] {
            let p = key_to_path(root, key).unwrap();
            assert!(p.starts_with(root), "{key} -> {}", p.display());
            // No component is `..` or `.`, and none is absolute.
            let rel = p.strip_prefix(root).unwrap();
            assert!(
                rel.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{key} -> {}",
                p.display()
            );
            assert_eq!(path_to_key(root, &p).unwrap(), key, "round trip");
        }
        assert_eq!(
            key_to_path(root, "../../etc/x").unwrap(),
            root.join("%2E%2E/%2E%2E/etc/x")
        );
    }

    #[test]
    fn the_mapping_is_one_to_one() {
        let root = Path::new("r");
        let keys = [
            "a%2E%2E",
            "a/..",
            "%",
            "",
            "100%",
            "100%25",
            "%25",
            "%00",
            "x\0y",
            "%2E",
            "%2E%2E",
            "日本/語 b+c&d",
        ];
        let paths: Vec<PathBuf> = keys.iter().map(|k| key_to_path(root, k).unwrap()).collect();
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                assert_ne!(a, b);
            }
            assert_eq!(path_to_key(root, a).unwrap(), keys[i]);
        }
    }

    #[test]
    fn ordinary_names_are_kept_as_they_are() {
        let root = Path::new("r");
        for name in ["100%", "a b", "x%2Fy", "日本語", "50% off.txt", "%41"] {
            let p = root.join(name);
            let key = path_to_key(root, &p).unwrap();
            assert_eq!(key, name);
            assert_eq!(key_to_path(root, &key).unwrap(), p, "{name}");
        }
    }

    #[test]
    fn overlong_parts_are_an_error() {
        let key = format!("ok/{}", "x".repeat(300));
        assert!(matches!(
            key_to_path(Path::new("r"), &key),
            Err(PathError::TooLong { .. })
        ));
    }

    #[test]
    fn symbolic_links_on_the_way_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let p = key_to_path(dir.path(), "link/file").unwrap();
        assert!(matches!(
            check_no_symlinks(dir.path(), &p),
            Err(PathError::Symlink { .. })
        ));
        let fine = key_to_path(dir.path(), "new/file").unwrap();
        assert!(check_no_symlinks(dir.path(), &fine).is_ok());
    }
}
