//! `tail_marks:` in a workload: 1 s and 10 s when absent, 1 to 4 ascending durations of
//! at least 1 ms when given, and every mistake refused at the line and column of the
//! mark at fault (of the list, when its length is).

use keystorm_workload::spec::parse_workload;

mod spec_support;
use spec_support::{HEAD, expect_error};

const PHASE: &str = "before:\n  - { op: put, operations: 10 }\n";

fn with_marks(marks: &str) -> String {
    format!("{HEAD}tail_marks: {marks}\n{PHASE}")
}

#[test]
fn the_marks_default_to_1_s_and_10_s_and_are_read_as_written() {
    let (plan, _) = parse_workload(&format!("{HEAD}{PHASE}"), "w.yaml").unwrap();
    assert_eq!(plan.tail_marks.as_us(), [1_000_000, 10_000_000]);
    let (plan, _) = parse_workload(&with_marks("[1ms, 500ms, 1s, 1h]"), "w.yaml").unwrap();
    assert_eq!(
        plan.tail_marks.as_us(),
        [1_000, 500_000, 1_000_000, 3_600_000_000]
    );
    let block = format!("{HEAD}tail_marks:\n  - 100ms\n  - 2s\n{PHASE}");
    let (plan, _) = parse_workload(&block, "w.yaml").unwrap();
    assert_eq!(plan.tail_marks.as_us(), [100_000, 2_000_000]);
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["tail_marks"], serde_json::json!(["100ms", "2s"]));
}

#[test]
fn wrong_marks_are_refused_at_their_line_and_column() {
    // `tail_marks` is on line 3; its list opens at column 13, its second mark is at 18.
    for (marks, column, says) in [
        ("[]", 13, "give 1 to 4 tail marks, not 0"),
        (
            "[1ms, 2ms, 3ms, 4ms, 5ms]",
            13,
            "give 1 to 4 tail marks, not 5",
        ),
        ("[1s, 500us]", 18, "500 µs is under 1ms"),
        ("[1s, 2h]", 18, "over 1h"),
        (
            "[500ms, 10s, 1s]",
            26,
            "tail marks go up: 1 s does not follow 10 s",
        ),
        ("[1s, 1s]", 18, "does not follow 1 s"),
        ("[1s, 10]", 18, "`tail_marks: 10` needs a unit"),
        ("[1s, soon]", 18, "`tail_marks: soon` is not a duration"),
        ("1s", 13, "expected a list"),
    ] {
        expect_error(&with_marks(marks), 3, column, says);
    }
    let block = format!("{HEAD}tail_marks:\n  - 10s\n  - 1s\n{PHASE}");
    expect_error(&block, 5, 5, "does not follow 10 s");
}
