//! `tail_marks:` on the workload: the latencies each phase's tail is counted from
//! (`[500ms, 1s, 10s]`; 1 s and 10 s when absent), checked by the one rule every
//! reader of marks shares, and refused at the line of the mark at fault.

use serde_saphyr::Spanned;

use super::values::{R, at, duration, loc_of};
use crate::spec::raw::RawDuration;
use keystorm_results::tail_marks::TailMarks;

pub(super) fn tail_marks(raw: Option<&Spanned<Vec<Spanned<RawDuration>>>>) -> R<TailMarks> {
    let Some(list) = raw else {
        return Ok(TailMarks::default());
    };
    let marks_us = list
        .value
        .iter()
        .map(|item| {
            let d = duration(item, "tail_marks")?;
            Ok(d.as_micros().min(u128::from(u64::MAX)) as u64)
        })
        .collect::<R<Vec<u64>>>()?;
    TailMarks::new(&marks_us).or_else(|e| {
        let place = e
            .index()
            .and_then(|i| list.value.get(i))
            .map_or(loc_of(list), loc_of);
        at(place, format!("`tail_marks`: {e}"))
    })
}
