//! The tail counts' columns of `summary.csv`: one per mark the rows were counted at
//! (`over_500ms`, `over_1s`, ...), so a spreadsheet reads a run's marks, whatever the
//! workload chose, as columns of their own.

use crate::tail_counts::TailCounts;
use crate::tail_marks::mark_name;

/// Every mark some row was counted at, ascending (the run's marks: a run counts every
/// row at the same ones), given each row's counts.
pub(crate) fn marks_of<'a>(rows: impl Iterator<Item = &'a TailCounts>) -> Vec<u64> {
    let mut marks: Vec<u64> = rows
        .flat_map(|c| c.as_slice().iter())
        .map(|c| c.mark_us)
        .collect();
    marks.sort_unstable();
    marks.dedup();
    marks
}

/// `,over_1s,over_10s`.
pub(crate) fn header(marks: &[u64]) -> String {
    marks
        .iter()
        .map(|&us| format!(",over_{}", mark_name(us)))
        .collect()
}

/// `,16,3`: the counts at `marks`, empty where a line was not counted at one.
pub(crate) fn cells(counts: &TailCounts, marks: &[u64]) -> String {
    marks
        .iter()
        .map(|&us| match counts.at(us) {
            Some(n) => format!(",{n}"),
            None => ",".to_string(),
        })
        .collect()
}
