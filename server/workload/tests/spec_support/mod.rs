//! What the workload validation tests share: a minimal workload head and the check that
//! a workload is refused with a message at one line and column.

#![allow(dead_code)]

use keystorm_workload::spec::{SpecError, parse_workload};

pub fn expect_error(text: &str, line: usize, column: usize, needle: &str) {
    match parse_workload(text, "w.yaml") {
        Ok(_) => panic!("expected an error containing {needle:?} for:\n{text}"),
        Err(SpecError::Invalid {
            file,
            line: l,
            column: c,
            message,
        }) => {
            assert_eq!(file, "w.yaml");
            assert!(
                message.contains(needle),
                "message {message:?} lacks {needle:?}"
            );
            assert_eq!((l, c), (line, column), "position of {message:?}");
            let shown = parse_workload(text, "w.yaml").unwrap_err().to_string();
            assert!(
                shown.starts_with(&format!("w.yaml:{line}:{column}: ")),
                "{shown}"
            );
            assert!(!shown.contains('\n'), "one line: {shown}");
        }
        Err(e) => panic!("unexpected error kind {e}"),
    }
}

pub const HEAD: &str = "name: e\nbuckets: { name: bkt }\n";
