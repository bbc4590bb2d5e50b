//! Interval histograms in the standard HdrHistogram interval-log format (readable by
//! HdrHistogram's own log processors): one line per operation per interval, tagged
//! `section.round.phase.op`, each a base64 V2-deflate histogram of microseconds.

use std::io::Write;

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};

pub const HLOG_FILE: &str = "histograms.hlog";

/// Appends histogram lines to an open log.
pub struct HlogWriter {
    serializer: V2DeflateSerializer,
    scratch: Vec<u8>,
}

impl Default for HlogWriter {
    fn default() -> Self {
        HlogWriter {
            serializer: V2DeflateSerializer::new(),
            scratch: Vec::new(),
        }
    }
}

/// Tags may not hold commas or whitespace; keep names readable.
pub fn tag(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c == ',' || c.is_whitespace() {
                        '_'
                    } else {
                        c
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(".")
}

impl HlogWriter {
    /// The log's header: format version, start time and column legend.
    pub fn header(out: &mut impl Write, start_epoch_s: f64) -> std::io::Result<()> {
        writeln!(out, "#[Histogram log format version 1.3]")?;
        writeln!(
            out,
            "#[Values are latencies in microseconds; Interval_Max in milliseconds]"
        )?;
        writeln!(
            out,
            "#[StartTime: {start_epoch_s:.3} (seconds since epoch)]"
        )?;
        writeln!(out, "#[BaseTime: {start_epoch_s:.3} (seconds since epoch)]")?;
        writeln!(
            out,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
        )
    }

    /// One line: `Tag=TAG,START,LENGTH,MAX_MS,BASE64`. `start_s` is relative to BaseTime.
    pub fn write(
        &mut self,
        out: &mut impl Write,
        tag: &str,
        start_s: f64,
        length_s: f64,
        histogram: &Histogram<u64>,
    ) -> std::io::Result<()> {
        self.scratch.clear();
        self.serializer
            .serialize(histogram, &mut self.scratch)
            .map_err(|e| std::io::Error::other(format!("histogram serialization: {e:?}")))?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(&self.scratch);
        writeln!(
            out,
            "Tag={tag},{start_s:.3},{length_s:.3},{:.3},{encoded}",
            histogram.max() as f64 / 1000.0
        )
    }
}

/// The merge of every interval histogram tagged `tag` in the log at `path`: exactly the
/// histogram of that phase × round × operation. Read line by line (constant memory).
pub fn read_merged(path: &std::path::Path, tag: &str) -> std::io::Result<Histogram<u64>> {
    let mut merged = crate::metrics::new_histogram();
    let wanted = format!("Tag={tag},");
    for_each_line(
        path,
        |line| line.starts_with(&wanted),
        |line| {
            // The recorder's histograms share one precision, so adding cannot fail.
            let _ = merged.add(&line.histogram);
        },
    )?;
    Ok(merged)
}

/// The merge of every interval histogram of each tag in `tags` in the log at `path`, by
/// tag, in one pass (a tag with no line has no entry). Memory holds one histogram per tag.
pub fn read_merged_tags(
    path: &std::path::Path,
    tags: &std::collections::HashSet<String>,
) -> std::io::Result<std::collections::HashMap<String, Histogram<u64>>> {
    let mut merged = std::collections::HashMap::new();
    for_each_line(
        path,
        |line| {
            line.get("Tag=".len()..)
                .and_then(|rest| rest.split(',').next())
                .is_some_and(|tag| tags.contains(tag))
        },
        |line| {
            // The recorder's histograms share one precision, so adding cannot fail.
            let _ = merged
                .entry(line.tag.to_string())
                .or_insert_with(crate::metrics::new_histogram)
                .add(&line.histogram);
        },
    )?;
    Ok(merged)
}

/// One decoded line of the log.
pub struct HlogLine<'a> {
    pub tag: &'a str,
    /// Its start in milliseconds after the log's base time, as written (3 decimals).
    pub start_ms: u64,
    pub histogram: Histogram<u64>,
}

/// Milliseconds in a number of seconds written with at most three decimals (`12.345`),
/// without going through floating point.
pub fn millis_of(text: &str) -> Option<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_ms: u64 = format!("{frac:0<3}").parse().ok()?;
    whole
        .parse::<u64>()
        .ok()?
        .checked_mul(1000)?
        .checked_add(frac_ms)
}

/// Milliseconds of an interval start as the log writes it (`{:.3}` of the seconds).
pub fn start_ms_of(t_s: f64) -> u64 {
    millis_of(&format!("{t_s:.3}")).unwrap_or(0)
}

/// Calls `each` with every well-formed histogram line that `wanted` accepts (it sees
/// the raw line first, so unwanted lines are not decoded). Read line by line; torn or
/// foreign lines are skipped.
pub fn for_each_line(
    path: &std::path::Path,
    wanted: impl Fn(&str) -> bool,
    mut each: impl FnMut(HlogLine<'_>),
) -> std::io::Result<()> {
    let mut reader = HlogReader::open(path)?;
    while let Some(line) = reader.next_line(&wanted)? {
        each(HlogLine {
            tag: &line.tag,
            start_ms: line.start_ms,
            histogram: line.histogram,
        });
    }
    Ok(())
}

/// A decoded line that owns its tag, as [`HlogReader`] hands it out.
pub struct OwnedHlogLine {
    pub tag: String,
    pub start_ms: u64,
    /// The interval's length in milliseconds, as written.
    pub length_ms: u64,
    pub histogram: Histogram<u64>,
}

/// Reads a log one histogram line at a time, for readers that pull (a merge of several
/// logs in time order), or that take up where an earlier reader stopped
/// ([`HlogReader::open_at`], [`HlogReader::consumed`]: a live view reading what a
/// running log gained since its last look).
pub struct HlogReader {
    file: std::io::BufReader<std::fs::File>,
    deserializer: hdrhistogram::serialization::Deserializer,
    line: Vec<u8>,
    /// Bytes of the file up to the end of the last complete line read.
    consumed: u64,
    /// Stop at a last line with no line break yet (a line being written), leaving it
    /// for a later reader to read whole.
    whole_lines_only: bool,
    /// Such a line was met: reading on would start in its middle.
    stopped: bool,
}

impl HlogReader {
    pub fn open(path: &std::path::Path) -> std::io::Result<HlogReader> {
        Ok(HlogReader::new(std::fs::File::open(path)?, 0, false))
    }

    /// Reads the open log `file` from `offset` (the start of a line: an earlier reader's
    /// [`HlogReader::consumed`]) to its last line break: a last line still being
    /// written is left to the next reader, which reads it whole.
    pub fn open_at(mut file: std::fs::File, offset: u64) -> std::io::Result<HlogReader> {
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(offset))?;
        Ok(HlogReader::new(file, offset, true))
    }

    fn new(file: std::fs::File, offset: u64, whole_lines_only: bool) -> HlogReader {
        HlogReader {
            file: std::io::BufReader::new(file),
            deserializer: hdrhistogram::serialization::Deserializer::new(),
            line: Vec::new(),
            consumed: offset,
            whole_lines_only,
            stopped: false,
        }
    }

    /// Where the file's complete lines read so far end: the offset a later reader
    /// opens at to read only what comes after.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The next well-formed histogram line that `wanted` accepts; `None` at the end.
    pub fn next_line(
        &mut self,
        wanted: impl Fn(&str) -> bool,
    ) -> std::io::Result<Option<OwnedHlogLine>> {
        use std::io::BufRead;
        loop {
            if self.stopped {
                return Ok(None);
            }
            self.line.clear();
            let read = self.file.read_until(b'\n', &mut self.line)?;
            if read == 0 {
                return Ok(None);
            }
            if self.whole_lines_only && self.line.last() != Some(&b'\n') {
                self.stopped = true;
                return Ok(None);
            }
            self.consumed += read as u64;
            // Bytes that are not text are no line of the log: skipped like a torn one.
            let Ok(line) = std::str::from_utf8(&self.line) else {
                continue;
            };
            if !line.starts_with("Tag=") || !wanted(line) {
                continue;
            }
            // `Tag=TAG,START,LENGTH,MAX,BASE64`
            let mut fields = line.trim_end().splitn(5, ',');
            let (Some(tag), Some(start), Some(length), Some(_), Some(encoded)) = (
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
            ) else {
                continue;
            };
            let (Some(start_ms), Some(length_ms), Ok(bytes)) = (
                millis_of(start),
                millis_of(length),
                base64::engine::general_purpose::STANDARD.decode(encoded),
            ) else {
                continue;
            };
            let Ok(histogram) = self
                .deserializer
                .deserialize::<u64, _>(&mut bytes.as_slice())
            else {
                continue;
            };
            return Ok(Some(OwnedHlogLine {
                tag: tag["Tag=".len()..].to_string(),
                start_ms,
                length_ms,
                histogram,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_times_read_back_as_written() {
        assert_eq!(millis_of("12.345"), Some(12_345));
        assert_eq!(millis_of("0.5"), Some(500));
        assert_eq!(millis_of("7"), Some(7000));
        assert_eq!(millis_of("1.2345"), None);
        assert_eq!(millis_of("x.1"), None);
        for t in [0.0, 0.0005, 1.000_499_9, 86_399.999_6, 4.567_89] {
            assert_eq!(Some(start_ms_of(t)), millis_of(&format!("{t:.3}")));
        }
        assert_eq!(start_ms_of(1.0006), 1001);
    }

    #[test]
    fn lines_round_trip_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(HLOG_FILE);
        let mut out = Vec::new();
        HlogWriter::header(&mut out, 1000.0).unwrap();
        let mut writer = HlogWriter::default();
        let mut all = crate::metrics::new_histogram();
        for i in 0..4u64 {
            let mut h = crate::metrics::new_histogram();
            for v in 1..=100 {
                h.record(v * (i + 1)).unwrap();
            }
            all.add(&h).unwrap();
            writer
                .write(&mut out, "round.1.r.get", i as f64 * 1.0005, 1.0, &h)
                .unwrap();
            writer
                .write(&mut out, "round.1.r.put", i as f64, 1.0, &h)
                .unwrap();
        }
        out.extend_from_slice(b"Tag=round.1.r.get,9.000,1.0,0.1,torn");
        std::fs::write(&path, out).unwrap();
        assert_eq!(read_merged(&path, "round.1.r.get").unwrap(), all);
        let mut starts = Vec::new();
        for_each_line(
            &path,
            |l| l.contains(".get,"),
            |l| {
                assert_eq!(l.tag, "round.1.r.get");
                starts.push(l.start_ms);
            },
        )
        .unwrap();
        let expected: Vec<u64> = (0..4).map(|i| start_ms_of(i as f64 * 1.0005)).collect();
        assert_eq!(starts, expected);
        assert_eq!(expected[2], 2001);
    }
}
