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
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use std::io::BufRead;

    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut merged = crate::metrics::new_histogram();
    let mut deserializer = Deserializer::new();
    let wanted = format!("Tag={tag},");
    for line in file.lines() {
        let mut line = line?;
        if !line.starts_with(&wanted) {
            continue;
        }
        // The log parser wants whole lines, newline included.
        line.push('\n');
        let mut entries = IntervalLogIterator::new(line.as_bytes());
        let Some(Ok(LogEntry::Interval(h))) = entries.next() else {
            continue;
        };
        let Ok(encoded) = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            h.encoded_histogram(),
        ) else {
            continue;
        };
        let Ok(hist) = deserializer.deserialize::<u64, _>(&mut encoded.as_slice()) else {
            continue;
        };
        let _ = merged.add(&hist);
    }
    Ok(merged)
}
