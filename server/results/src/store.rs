//! The run folder: creating it, appending intervals as they come, rewriting the
//! summary, manifest and checkpoint atomically, and reading past runs back.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::ResultsError;
use super::events::{EventWriter, RunEvent};
use super::hlog::{HLOG_FILE, HlogWriter, tag};
use super::torn_line::cut_torn_line;
use super::{
    CHECKPOINT_FILE, Checkpoint, INTERVALS_FILE, IntervalRecord, LogMarks, MANIFEST_FILE, Manifest,
    PLAN_FILE, SUMMARY_CSV_FILE, SUMMARY_JSON_FILE, Summary, WORKLOAD_FILE, write_csv,
};
use crate::metrics::IntervalStats;

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ResultsError + '_ {
    move |source| ResultsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A new run id: UTC time, the workload name and a random suffix, e.g.
/// `20261122-154000-demo-3f9a`; sortable and safe as a folder name. A secret in the
/// name (a YAML alias can put one there) does not reach the id.
pub fn new_run_id(workload: &str, now: std::time::SystemTime) -> String {
    let workload = crate::secrets::active().redact(workload).into_owned();
    let stamp = humantime::format_rfc3339_seconds(now).to_string();
    // 2026-11-22T15:40:00Z -> 20261122-154000
    let digits: String = stamp.chars().filter(|c| c.is_ascii_digit()).collect();
    let (date, time) = digits.split_at(digits.len().min(8));
    let name: String = workload
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    format!("{date}-{time}-{name}-{:04x}", fastrand::u16(..))
}

/// An open run folder.
pub struct ResultStore {
    dir: PathBuf,
    intervals: BufWriter<File>,
    hlog: BufWriter<File>,
    hlog_writer: HlogWriter,
    events: EventWriter,
}

impl ResultStore {
    /// Creates `root/run_id` with the workload, plan and manifest in it.
    pub fn create(
        root: &Path,
        manifest: &Manifest,
        workload_text: &str,
        plan: &impl Serialize,
        start_epoch_s: f64,
    ) -> Result<ResultStore, ResultsError> {
        let dir = root.join(&manifest.run_id);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let wl = dir.join(WORKLOAD_FILE);
        fs::write(
            &wl,
            crate::secrets::active().redact(workload_text).as_bytes(),
        )
        .map_err(io_err(&wl))?;
        write_json_redacted(&dir.join(PLAN_FILE), plan)?;
        write_json_redacted(&dir.join(MANIFEST_FILE), manifest)?;
        let store = ResultStore::open_append(&dir)?;
        let mut store = store;
        HlogWriter::header(&mut store.hlog, start_epoch_s).map_err(io_err(&dir.join(HLOG_FILE)))?;
        store.hlog.flush().map_err(io_err(&dir.join(HLOG_FILE)))?;
        Ok(store)
    }

    /// Opens an existing run folder to append to it (resume). A line a killed run left
    /// half-written at the end of a file is cut off first, so the next line starts on a
    /// line of its own.
    pub fn open_append(dir: &Path) -> Result<ResultStore, ResultsError> {
        let open = |name: &str| {
            let p = dir.join(name);
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .read(true)
                .open(&p)
                .map_err(io_err(&p))?;
            cut_torn_line(&file).map_err(io_err(&p))?;
            Ok(BufWriter::new(file))
        };
        Ok(ResultStore {
            dir: dir.to_path_buf(),
            intervals: open(INTERVALS_FILE)?,
            hlog: open(HLOG_FILE)?,
            hlog_writer: HlogWriter::default(),
            events: EventWriter::open(dir)?,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one interval (its JSON line and its histograms) and flushes both, so a
    /// killed run keeps it.
    pub fn write_interval(
        &mut self,
        record: &IntervalRecord,
        stats: &IntervalStats,
    ) -> Result<(), ResultsError> {
        let ip = self.dir.join(INTERVALS_FILE);
        serde_json::to_writer(&mut self.intervals, record).map_err(|e| ResultsError::Io {
            path: ip.clone(),
            source: e.into(),
        })?;
        self.intervals.write_all(b"\n").map_err(io_err(&ip))?;
        self.intervals.flush().map_err(io_err(&ip))?;

        let hp = self.dir.join(HLOG_FILE);
        let round = record
            .round
            .map(|r| r.to_string())
            .unwrap_or_else(|| "-".into());
        // Each endpoint's lines (a run that drives several) follow the operation's,
        // tagged `op@E`.
        let endpoints = stats
            .endpoints
            .iter()
            .enumerate()
            .flat_map(|(e, s)| s.active().map(move |(op, s)| (op, Some(e), s)));
        let whole = stats.active().map(|(op, s)| (op, None, s));
        for (op, endpoint, s) in whole.chain(endpoints) {
            if s.latency.is_empty() {
                continue;
            }
            let op_part = match endpoint {
                Some(e) => crate::endpoint_tag(op.as_str(), e),
                None => op.as_str().to_string(),
            };
            let mut parts = vec![record.section.as_str(), &round, &record.phase, &op_part];
            // Warm-up lines carry their own tag so a phase's merge excludes them.
            if record.warmup {
                parts.push("warmup");
            }
            let tag = tag(&parts);
            self.hlog_writer
                .write(
                    &mut self.hlog,
                    &tag,
                    record.t_s,
                    record.duration_s,
                    &s.latency,
                )
                .map_err(io_err(&hp))?;
        }
        self.hlog.flush().map_err(io_err(&hp))
    }

    /// Appends one event to the log and returns its id (see [`EventWriter::append`]).
    pub fn write_event(&mut self, event: &RunEvent) -> u64 {
        self.events.append(event)
    }

    pub fn write_summary(&self, summary: &Summary) -> Result<(), ResultsError> {
        write_json_atomic(&self.dir.join(SUMMARY_JSON_FILE), summary)?;
        let p = self.dir.join(SUMMARY_CSV_FILE);
        let mut buf = Vec::new();
        write_csv(&summary.rows, &mut buf).map_err(io_err(&p))?;
        write_atomic(&p, &buf)
    }

    pub fn write_manifest(&self, manifest: &Manifest) -> Result<(), ResultsError> {
        write_json_redacted(&self.dir.join(MANIFEST_FILE), manifest)
    }

    /// How long the interval and histogram logs are now, with what is written to them
    /// but not yet flushed: what a checkpoint saved now has recorded.
    pub fn log_marks(&self) -> Result<LogMarks, ResultsError> {
        let length = |w: &BufWriter<File>, name: &str| {
            let path = self.dir.join(name);
            w.get_ref()
                .metadata()
                .map(|m| m.len() + w.buffer().len() as u64)
                .map_err(io_err(&path))
        };
        Ok(LogMarks {
            intervals: length(&self.intervals, INTERVALS_FILE)?,
            histograms: length(&self.hlog, HLOG_FILE)?,
        })
    }

    /// Replaces the run's checkpoint atomically. The engine's executor is its one
    /// caller (`save_checkpoint`), so a run has one checkpoint writer.
    pub fn write_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), ResultsError> {
        write_json_atomic(&self.dir.join(CHECKPOINT_FILE), checkpoint)
    }

    pub fn read_manifest(dir: &Path) -> Result<Manifest, ResultsError> {
        read_json(&dir.join(MANIFEST_FILE))
    }

    pub fn read_summary(dir: &Path) -> Result<Summary, ResultsError> {
        read_json(&dir.join(SUMMARY_JSON_FILE))
    }

    /// The summary, or an empty one for a run stopped before its first phase ended
    /// (the file is written when a phase ends).
    pub fn read_summary_or_empty(dir: &Path, run_id: &str) -> Result<Summary, ResultsError> {
        match Self::read_summary(dir) {
            Err(ResultsError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(Summary {
                    format_version: super::FORMAT_VERSION,
                    run_id: run_id.to_string(),
                    rows: Vec::new(),
                    totals: Vec::new(),
                    searches: Vec::new(),
                })
            }
            r => r,
        }
    }

    pub fn read_checkpoint(dir: &Path) -> Result<Checkpoint, ResultsError> {
        read_json(&dir.join(CHECKPOINT_FILE))
    }
}

/// Cuts the interval and histogram logs of the run folder `dir` to `marks` where they
/// are longer: the folder then holds what was recorded up to the checkpoint that named
/// the marks, and nothing after it. For a copy of a lost process's folder that another
/// process resumes from that checkpoint, so what it does again is not counted twice.
/// Returns the bytes cut.
pub fn cut_logs_to(dir: &Path, marks: &LogMarks) -> Result<u64, ResultsError> {
    let mut cut = 0;
    for (name, mark) in [
        (INTERVALS_FILE, marks.intervals),
        (HLOG_FILE, marks.histograms),
    ] {
        let path = dir.join(name);
        let file = match OpenOptions::new().write(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err(&path)(e)),
        };
        let length = file.metadata().map_err(io_err(&path))?.len();
        if length > mark {
            file.set_len(mark).map_err(io_err(&path))?;
            file.sync_all().map_err(io_err(&path))?;
            cut += length - mark;
        }
    }
    Ok(cut)
}

/// Finds a run folder by id (or unique id prefix) under `root`.
pub fn find_run(root: &Path, id: &str) -> Result<PathBuf, ResultsError> {
    let direct = root.join(id);
    if !id.is_empty() && !id.contains(['/', '\\']) && direct.join(MANIFEST_FILE).is_file() {
        return Ok(direct);
    }
    let matches: Vec<PathBuf> = list_runs(root)?
        .into_iter()
        .filter(|(_, m)| m.run_id.starts_with(id))
        .map(|(p, _)| p)
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(ResultsError::NoSuchRun(id.to_string())),
    }
}

/// Every run folder under `root` with its manifest, oldest first. Folders without a
/// readable manifest are skipped.
pub fn list_runs(root: &Path) -> Result<Vec<(PathBuf, Manifest)>, ResultsError> {
    let entries = match fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(root)(e)),
    };
    let mut runs: Vec<(PathBuf, Manifest)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join(MANIFEST_FILE).is_file())
        .filter_map(|p| ResultStore::read_manifest(&p).ok().map(|m| (p, m)))
        .collect();
    runs.sort_by(|a, b| a.1.started_at.cmp(&b.1.started_at).then(a.0.cmp(&b.0)));
    Ok(runs)
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, ResultsError> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    serde_json::from_str(&text).map_err(|e| ResultsError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Writes `value` as pretty JSON. Used for the files of positions and numbers (the
/// summary, the checkpoint): nothing in them is free text that could hold a secret,
/// and a resume reads them back exactly.
fn write_json_atomic(path: &Path, value: &impl Serialize) -> Result<(), ResultsError> {
    write_atomic(path, &pretty_json(path, value)?)
}

/// Writes `value` as pretty JSON with the secrets of the runs going redacted: for the
/// files that hold text from the workload, the command line and the target's answers
/// (the plan, the manifest).
fn write_json_redacted(path: &Path, value: &impl Serialize) -> Result<(), ResultsError> {
    let json = String::from_utf8(pretty_json(path, value)?).unwrap_or_default();
    write_atomic(path, crate::secrets::active().redact_json(&json).as_bytes())
}

fn pretty_json(path: &Path, value: &impl Serialize) -> Result<Vec<u8>, ResultsError> {
    let mut buf = serde_json::to_vec_pretty(value).map_err(|e| ResultsError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    buf.push(b'\n');
    Ok(buf)
}

/// Writes to a temporary file beside `path`, syncs it and renames it over, so readers
/// (and a crash, of the process or of the machine) never see a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let tmp = path.with_extension("tmp");
    let mut file = File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all(bytes).map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))
}
