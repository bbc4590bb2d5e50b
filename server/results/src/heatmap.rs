//! A latency heatmap from a run's interval histograms: time in columns, latency in
//! log-spaced rows, the count of operations in each cell — exact, every recorded
//! operation counted once, never sampled. A column is an interval as recorded, at its
//! real start and end (a phase that begins 0.74 s into a second has its columns from
//! there, not from the whole second before), or adjacent intervals merged when the run
//! is long. One pass over the histogram log, and a live view's refresh reads only what
//! the log gained since ([`HeatmapBuilder`]): when the run outgrows the columns asked
//! for, adjacent pairs merge exactly and the grid never holds more than those columns,
//! however long the run.

use hdrhistogram::Histogram;

use crate::hlog::HlogReader;

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

/// Counts per column and row, each column's time span, and where each phase begins.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapGrid {
    /// Recorded intervals each column holds (a power of two; 1 unless the run is long).
    pub merged: u64,
    /// Each column's start and end (ms after the log's base time), in time order.
    pub spans: Vec<(u64, u64)>,
    /// `counts[column][row]`.
    pub counts: Vec<Vec<u64>>,
    /// Each phase's first line: its start (ms) and its tag less the operation.
    pub phases: Vec<(u64, String)>,
}

/// A line that starts this much (ms) before the end of the interval before it is the
/// same time recorded again (by another agent of a merged run, or a resumed part) and
/// counts in that interval's column; less is the rounding of times written to the ms.
const OVERLAP_MS: u64 = 100;

/// Which lines of the log a heatmap takes, by tag: those whose operations it counts,
/// and those that only mark where their phase begins (the phases of the part shown
/// that ran other operations, so a gap in the heatmap is named too). A closure taking
/// a tag counts the lines it accepts and marks no others.
pub trait HeatmapLines {
    fn counts(&self, tag: &str) -> bool;
    fn marks(&self, _tag: &str) -> bool {
        false
    }
}

impl<F: Fn(&str) -> bool> HeatmapLines for F {
    fn counts(&self, tag: &str) -> bool {
        self(tag)
    }
}

/// The heatmap of the lines `wanted` takes, in at most `max_columns` columns.
pub fn heatmap(
    path: &std::path::Path,
    wanted: impl HeatmapLines,
    max_columns: usize,
) -> std::io::Result<Option<HeatmapGrid>> {
    let mut builder = HeatmapBuilder::new(max_columns);
    builder.feed(path, wanted)?;
    Ok(builder.into_grid())
}

/// A heatmap built as its log grows: each [`HeatmapBuilder::feed`] reads the lines
/// written since the last, so a view refreshed every few seconds reads seconds of log,
/// not the whole run again. Its size is the grid's: at most `max_columns` columns of
/// [`row_bounds_us`] rows, and one entry per phase.
#[derive(Debug, Clone)]
pub struct HeatmapBuilder {
    max_columns: usize,
    /// Bytes of the log read: up to the end of the last complete line.
    consumed: u64,
    /// Intervals taken so far (lines of one time counted once).
    intervals: u64,
    /// Intervals per column: a power of two, so merging pairs keeps columns aligned.
    merged: u64,
    spans: Vec<(u64, u64)>,
    counts: Vec<Vec<u64>>,
    phases: Vec<(u64, String)>,
    bounds: Vec<u64>,
}

impl HeatmapBuilder {
    /// An empty heatmap of at most `max_columns` columns (at least one), nothing read.
    pub fn new(max_columns: usize) -> HeatmapBuilder {
        HeatmapBuilder {
            max_columns: max_columns.max(1),
            consumed: 0,
            intervals: 0,
            merged: 1,
            spans: Vec::new(),
            counts: Vec::new(),
            phases: Vec::new(),
            bounds: row_bounds_us(),
        }
    }

    pub fn max_columns(&self) -> usize {
        self.max_columns
    }

    /// Bytes of the log read so far: where the next feed starts. A last line with no
    /// line break yet (being written) is not among them, and is read whole next time.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Adds the lines `wanted` accepts (by tag, decoded only then) that the log at
    /// `path` gained since the last feed.
    pub fn feed(
        &mut self,
        path: &std::path::Path,
        wanted: impl HeatmapLines,
    ) -> std::io::Result<()> {
        self.feed_file(std::fs::File::open(path)?, wanted)
    }

    /// As [`HeatmapBuilder::feed`], from a log already open (one its caller checked is
    /// the log this builder read before).
    pub fn feed_file(
        &mut self,
        file: std::fs::File,
        wanted: impl HeatmapLines,
    ) -> std::io::Result<()> {
        let mut reader = HlogReader::open_at(file, self.consumed)?;
        // Phases met on lines that only mark them, in log order with the counted ones.
        let marked = std::cell::RefCell::new(std::mem::take(&mut self.phases));
        let read = loop {
            let next = reader.next_line(|l| {
                let tag = tag_of(l);
                if wanted.counts(tag) {
                    return true;
                }
                if wanted.marks(tag)
                    && let Some(start_ms) = l.split(',').nth(1).and_then(crate::hlog::millis_of)
                {
                    note_phase(&mut marked.borrow_mut(), start_ms, tag);
                }
                false
            });
            match next {
                Ok(Some(line)) => {
                    note_phase(&mut marked.borrow_mut(), line.start_ms, &line.tag);
                    self.add_line(line.start_ms, line.length_ms, &line.histogram);
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.phases = marked.into_inner();
        // Up to the last line taken even when reading broke off, so none counts twice.
        self.consumed = reader.consumed();
        read
    }

    /// The heatmap so far; `None` while no wanted line was read.
    pub fn grid(&self) -> Option<HeatmapGrid> {
        self.clone().into_grid()
    }

    pub fn into_grid(self) -> Option<HeatmapGrid> {
        (!self.counts.is_empty()).then_some(HeatmapGrid {
            merged: self.merged,
            spans: self.spans,
            counts: self.counts,
            phases: self.phases,
        })
    }

    fn add_line(&mut self, start_ms: u64, length_ms: u64, histogram: &Histogram<u64>) {
        let end_ms = start_ms + length_ms;
        // The same time recorded again (or, not from keystorm, out of order): counted in
        // the interval it falls in, so columns never overlap.
        if let Some(last) = self.spans.last_mut()
            && start_ms + OVERLAP_MS < last.1
        {
            last.1 = last.1.max(end_ms);
            let column = self.counts.len() - 1;
            add(&mut self.counts[column], histogram, &self.bounds);
            return;
        }
        let interval = self.intervals;
        self.intervals += 1;
        while interval / self.merged >= self.max_columns as u64 {
            self.merge_pairs();
        }
        if interval.is_multiple_of(self.merged) {
            self.spans.push((start_ms, end_ms));
            self.counts.push(vec![0; self.bounds.len()]);
        } else if let Some(last) = self.spans.last_mut() {
            last.1 = end_ms;
        }
        let column = self.counts.len() - 1;
        add(&mut self.counts[column], histogram, &self.bounds);
    }

    /// Doubles the intervals a column holds: columns 2k and 2k+1 become column k. Exact,
    /// counts added and spans joined.
    fn merge_pairs(&mut self) {
        let merged = self.counts.len().div_ceil(2);
        for k in 0..merged {
            let mut column = std::mem::take(&mut self.counts[2 * k]);
            let mut span = self.spans[2 * k];
            if let Some(next) = self.counts.get(2 * k + 1) {
                for (cell, n) in column.iter_mut().zip(next) {
                    *cell += n;
                }
                span.1 = self.spans[2 * k + 1].1;
            }
            self.counts[k] = column;
            self.spans[k] = span;
        }
        self.counts.truncate(merged);
        self.spans.truncate(merged);
        self.merged *= 2;
    }
}

/// Notes the phase of a line tagged `tag` (its tag less the operation) when it is not
/// the phase noted last.
fn note_phase(phases: &mut Vec<(u64, String)>, start_ms: u64, tag: &str) {
    let phase = tag.rsplit_once('.').map_or(tag, |(p, _)| p);
    if phases.last().is_none_or(|(_, p)| p != phase) {
        phases.push((start_ms, phase.to_string()));
    }
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
        let grid = heatmap(&path, |t: &str| t.ends_with(".put"), 1200)
            .unwrap()
            .unwrap();
        assert_eq!(grid.merged, 1);
        assert_eq!(grid.counts.len(), 10);
        assert_eq!(grid.spans[6], (6_000, 7_000));
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
        let merged = heatmap(&path, |t: &str| t.ends_with(".put"), 3)
            .unwrap()
            .unwrap();
        assert_eq!(merged.merged, 4);
        assert_eq!(merged.counts.len(), 3);
        assert_eq!(merged.spans, [(0, 4_000), (4_000, 8_000), (8_000, 10_000)]);
        assert_eq!(merged.counts.iter().flatten().sum::<u64>(), total);
        assert!(
            heatmap(&path, |t: &str| t.ends_with(".list"), 10)
                .unwrap()
                .is_none()
        );
    }

    /// One histogram line, as the recorder writes it: `n` operations of `us` each.
    fn line(tag: &str, second: u64, us: u64, n: u64) -> Vec<u8> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        h.record_n(us, n).unwrap();
        h.record(us * 3).unwrap();
        let mut out = Vec::new();
        HlogWriter::default()
            .write(&mut out, tag, second as f64, 1.0, &h)
            .unwrap();
        out
    }

    fn append(path: &std::path::Path, bytes: &[u8]) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        file.write_all(bytes).unwrap();
    }

    fn header(path: &std::path::Path) {
        let mut out = Vec::new();
        HlogWriter::header(&mut out, 1000.0).unwrap();
        std::fs::write(path, out).unwrap();
    }

    fn is_put(tag: &str) -> bool {
        tag.ends_with(".put")
    }

    #[test]
    fn a_log_read_piece_by_piece_as_it_grows_gives_the_grid_of_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        header(&path);
        // Few columns, so pieces arrive after columns had to merge, and merge again.
        let mut builder = HeatmapBuilder::new(5);
        let mut second = 0;
        for piece in [1, 3, 4, 9, 1, 30] {
            let mut bytes = Vec::new();
            for _ in 0..piece {
                let phase = if second < 20 { "write" } else { "read" };
                let us = 100 * (1 + second % 13);
                bytes.extend(line(
                    &format!("round.1.{phase}.put"),
                    second,
                    us,
                    1 + second,
                ));
                bytes.extend(line(&format!("round.1.{phase}.get"), second, 7, 5));
                second += 1;
            }
            append(&path, &bytes);
            builder.feed(&path, is_put).unwrap();
            let whole = heatmap(&path, is_put, 5).unwrap();
            assert_eq!(builder.grid(), whole, "after {second} seconds");
            assert_eq!(builder.consumed(), std::fs::metadata(&path).unwrap().len());
        }
        let grid = builder.into_grid().unwrap();
        assert!(grid.counts.len() <= 5);
        assert_eq!(grid.merged, 16);
        // Every PUT once: 1 + s at its latency and one more at three times it.
        let expected: u64 = (0..second).map(|s| 2 + s).sum();
        assert_eq!(grid.counts.iter().flatten().sum::<u64>(), expected);
        assert_eq!(grid.phases.len(), 2);
        // Nothing new: a feed reads nothing and changes nothing.
        let mut again = HeatmapBuilder::new(5);
        again.feed(&path, is_put).unwrap();
        let before = again.grid();
        again.feed(&path, is_put).unwrap();
        assert_eq!(again.grid(), before);
    }

    #[test]
    fn a_line_still_being_written_counts_once_it_is_complete_and_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        header(&path);
        append(&path, &line("round.1.w.put", 0, 500, 10));
        let mut builder = HeatmapBuilder::new(100);
        builder.feed(&path, is_put).unwrap();
        let whole = std::fs::metadata(&path).unwrap().len();
        assert_eq!(builder.consumed(), whole);
        // The next line, all but its line break: whole as text and decodable, but the
        // writer has not finished it.
        let next = line("round.1.w.put", 1, 500, 20);
        let (body, newline) = next.split_at(next.len() - 1);
        append(&path, &body[..body.len() / 2]);
        builder.feed(&path, is_put).unwrap();
        assert_eq!(builder.consumed(), whole);
        append(&path, &body[body.len() / 2..]);
        builder.feed(&path, is_put).unwrap();
        assert_eq!(builder.consumed(), whole);
        let total = |b: &HeatmapBuilder| b.grid().unwrap().counts.iter().flatten().sum::<u64>();
        assert_eq!(total(&builder), 11);
        assert_eq!(builder.grid().unwrap().counts.len(), 1);
        append(&path, newline);
        builder.feed(&path, is_put).unwrap();
        assert_eq!(total(&builder), 11 + 21);
        assert_eq!(builder.consumed(), whole + next.len() as u64);
        builder.feed(&path, is_put).unwrap();
        assert_eq!(total(&builder), 11 + 21);
        assert_eq!(builder.grid(), heatmap(&path, is_put, 100).unwrap());
    }

    #[test]
    fn a_long_run_fits_its_columns_in_powers_of_two_seconds_losing_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        header(&path);
        let mut bytes = Vec::new();
        // Lines that are no histogram, skipped as before.
        bytes.extend(b"Tag=round.1.w.put,3.000,1.000,0.1,notbase64\n");
        bytes.extend(b"Tag=round.1.w.put,x,1.000,0.1,AAAA\n");
        bytes.extend(b"\xff\xfe not text\n");
        let seconds = 10_000u64;
        for s in 0..seconds {
            bytes.extend(line("round.1.w.put", s, 1_000, s % 7));
        }
        append(&path, &bytes);
        let grid = heatmap(&path, is_put, 1_200).unwrap().unwrap();
        assert!(grid.counts.len() <= 1_200, "{} columns", grid.counts.len());
        assert!(grid.merged.is_power_of_two());
        // 16 is the least power of two that fits 10,000 seconds in 1,200 columns.
        assert_eq!(grid.merged, 16);
        assert_eq!(grid.spans[1], (16_000, 32_000));
        assert_eq!(grid.counts.len(), 625);
        for (k, column) in grid.counts.iter().enumerate() {
            let expected: u64 = (k as u64 * 16..(k as u64 + 1) * 16)
                .map(|s| s % 7 + 1)
                .sum();
            assert_eq!(column.iter().sum::<u64>(), expected, "column {k}");
        }
        let total: u64 = (0..seconds).map(|s| s % 7 + 1).sum();
        assert_eq!(grid.counts.iter().flatten().sum::<u64>(), total);
    }

    #[test]
    fn columns_sit_where_their_intervals_ran_and_one_time_recorded_twice_is_one_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        header(&path);
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        h.record_n(800, 10).unwrap();
        let mut bytes = Vec::new();
        let mut writer = HlogWriter::default();
        // A phase that begins 1.74 s into the run: a second, then its last 1.2 s (a
        // sliver folded in); the next phase's first second, recorded by two agents.
        for (tag, start, length) in [
            ("round.1.write.put", 1.74, 1.0),
            ("round.1.write.put", 2.74, 1.2),
            ("round.1.mixed.put", 3.95, 1.0),
            ("round.1.mixed.put", 3.951, 1.0),
        ] {
            writer.write(&mut bytes, tag, start, length, &h).unwrap();
        }
        append(&path, &bytes);
        let grid = heatmap(&path, is_put, 100).unwrap().unwrap();
        assert_eq!(grid.spans, [(1_740, 2_740), (2_740, 3_940), (3_950, 4_951)]);
        let per_column: Vec<u64> = grid.counts.iter().map(|c| c.iter().sum()).collect();
        assert_eq!(per_column, [10, 10, 20]);
        assert_eq!(grid.phases.len(), 2);
    }
}
