//! A latency heatmap from a run's interval histograms: time in columns (one second
//! each, or several merged when the run is long), latency in log-spaced rows, the count
//! of operations in each cell — exact, every recorded operation counted once, never
//! sampled. Two passes over the histogram log: one for the time span (the start of each
//! line, nothing decoded), one adding each histogram into its column, so memory holds
//! the columns asked for, however long the run.

use hdrhistogram::Histogram;

use crate::hlog::{HlogReader, millis_of};

/// Rows per decade of latency.
pub const ROWS_PER_DECADE: u32 = 10;
/// The lowest row's upper bound is 10^MIN_EXP µs (10 µs; faster lands there too) and the
/// highest's 10^MAX_EXP µs (100 s; slower lands there too).
const MIN_EXP: u32 = 1;
const MAX_EXP: u32 = 8;

/// The upper bound (µs) of each row, lowest first.
pub fn row_bounds_us() -> Vec<u64> {
    (0..=(MAX_EXP - MIN_EXP) * ROWS_PER_DECADE)
        .map(|k| {
            10f64
                .powf(MIN_EXP as f64 + k as f64 / ROWS_PER_DECADE as f64)
                .round() as u64
        })
        .collect()
}

/// The row a latency of `us` falls in.
fn row_of(us: u64, bounds: &[u64]) -> usize {
    bounds.partition_point(|&b| b < us).min(bounds.len() - 1)
}

/// Counts per column and row, and where each phase begins.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapGrid {
    /// Seconds each column covers.
    pub column_s: u64,
    /// The first column's start (ms after the log's base time).
    pub first_ms: u64,
    /// `counts[column][row]`.
    pub counts: Vec<Vec<u64>>,
    /// Each phase's first line: its start (ms) and its tag less the operation.
    pub phases: Vec<(u64, String)>,
}

/// The heatmap of the lines `wanted` accepts (by tag), in at most `max_columns` columns.
pub fn heatmap(
    path: &std::path::Path,
    wanted: impl Fn(&str) -> bool,
    max_columns: usize,
) -> std::io::Result<Option<HeatmapGrid>> {
    let Some((first_ms, last_ms)) = span_ms(path, &wanted)? else {
        return Ok(None);
    };
    let seconds = (last_ms - first_ms) / 1000 + 1;
    let column_s = seconds.div_ceil(max_columns.max(1) as u64).max(1);
    let columns = seconds.div_ceil(column_s) as usize;
    let bounds = row_bounds_us();
    let mut grid = HeatmapGrid {
        column_s,
        first_ms,
        counts: vec![vec![0; bounds.len()]; columns],
        phases: Vec::new(),
    };
    let mut reader = HlogReader::open(path)?;
    while let Some(line) = reader.next_line(|l| wanted(tag_of(l)))? {
        let column = (((line.start_ms - first_ms.min(line.start_ms)) / 1000) / column_s) as usize;
        let column = column.min(columns - 1);
        add(&mut grid.counts[column], &line.histogram, &bounds);
        let phase = line
            .tag
            .rsplit_once('.')
            .map_or(line.tag.as_str(), |(p, _)| p);
        if grid.phases.last().is_none_or(|(_, p)| p != phase) {
            grid.phases.push((line.start_ms, phase.to_string()));
        }
    }
    Ok(Some(grid))
}

fn add(column: &mut [u64], histogram: &Histogram<u64>, bounds: &[u64]) {
    for v in histogram.iter_recorded() {
        column[row_of(v.value_iterated_to(), bounds)] += v.count_at_value();
    }
}

/// The tag of a raw log line (`Tag=TAG,...`).
fn tag_of(line: &str) -> &str {
    line.strip_prefix("Tag=")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or("")
}

/// The first and last start (ms) of the lines `wanted` accepts, read without decoding.
fn span_ms(
    path: &std::path::Path,
    wanted: &impl Fn(&str) -> bool,
) -> std::io::Result<Option<(u64, u64)>> {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut span: Option<(u64, u64)> = None;
    for line in file.lines() {
        let line = line?;
        if !line.starts_with("Tag=") || !wanted(tag_of(&line)) {
            continue;
        }
        let Some(start) = line.split(',').nth(1).and_then(millis_of) else {
            continue;
        };
        span = Some(span.map_or((start, start), |(a, b)| (a.min(start), b.max(start))));
    }
    Ok(span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlog::HlogWriter;

    #[test]
    fn rows_are_log_spaced_and_values_land_in_theirs() {
        let bounds = row_bounds_us();
        assert_eq!(bounds.first(), Some(&10));
        assert_eq!(bounds.last(), Some(&100_000_000));
        assert_eq!(bounds.len(), 71);
        assert_eq!(row_of(1, &bounds), 0);
        assert_eq!(row_of(1_000, &bounds), 20);
        assert_eq!(row_of(1_001, &bounds), 21);
        assert_eq!(row_of(u64::MAX, &bounds), 70);
    }

    #[test]
    fn every_operation_is_counted_once_in_its_second_and_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        let mut file = std::fs::File::create(&path).unwrap();
        let mut writer = HlogWriter::default();
        HlogWriter::header(&mut file, 0.0).unwrap();
        let mut total = 0;
        for second in 0..10u64 {
            let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
            // One slow second: a stall shows as a column high up.
            let us = if second == 6 { 2_000_000 } else { 500 };
            h.record_n(us, 100 + second).unwrap();
            total += 100 + second;
            let phase = if second < 5 { "write" } else { "read" };
            writer
                .write(
                    &mut file,
                    &format!("round.1.{phase}.put"),
                    second as f64,
                    1.0,
                    &h,
                )
                .unwrap();
            // Another operation, left out.
            writer
                .write(
                    &mut file,
                    &format!("round.1.{phase}.get"),
                    second as f64,
                    1.0,
                    &h,
                )
                .unwrap();
        }
        drop(file);
        let grid = heatmap(&path, |t| t.ends_with(".put"), 1200)
            .unwrap()
            .unwrap();
        assert_eq!(grid.column_s, 1);
        assert_eq!(grid.counts.len(), 10);
        let sum: u64 = grid.counts.iter().flatten().sum();
        assert_eq!(sum, total);
        let bounds = row_bounds_us();
        assert_eq!(grid.counts[6][row_of(2_000_000, &bounds)], 106);
        assert_eq!(grid.counts[5][row_of(500, &bounds)], 105);
        assert_eq!(
            grid.phases
                .iter()
                .map(|(_, p)| p.as_str())
                .collect::<Vec<_>>(),
            ["round.1.write", "round.1.read"]
        );
        // Fewer columns: seconds merged, counts added, none lost.
        let merged = heatmap(&path, |t| t.ends_with(".put"), 3).unwrap().unwrap();
        assert_eq!(merged.column_s, 4);
        assert_eq!(merged.counts.len(), 3);
        assert_eq!(merged.counts.iter().flatten().sum::<u64>(), total);
        assert!(
            heatmap(&path, |t| t.ends_with(".list"), 10)
                .unwrap()
                .is_none()
        );
    }
}
