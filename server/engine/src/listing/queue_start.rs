//! The queue a listing starts with: where the checkpoint it resumes left off (its
//! ranges still to list, its prefix cells, what it had counted), or a fresh one by its
//! mode, an adaptive listing's seeded by one delimiter page.

use std::time::Instant;

use super::checkpoint::ListCheckpoint;
use super::job::{ListJob, ListMode};
use super::outputs::{PageEvent, PageObserver};
use super::prefix_cells::{PrefixCells, gap};
use super::queue::{Queue, Start};
use super::range::KeyRange;
use super::shard_ranges;
use super::totals::Totals;
use keystorm_results::space_report::{ReportBuilder, SpaceReport};
use keystorm_s3::{ListRequest, S3Client};

/// What the first queue of a listing depends on.
pub(super) struct FirstQueue<'a> {
    pub job: &'a ListJob,
    pub listers: usize,
    /// When the listing first started (a resumed one keeps its start).
    pub started_unix_s: u64,
}

impl FirstQueue<'_> {
    /// The space report to add up, if the job asks for one: carried on from `so_far`.
    pub fn report(&self, so_far: Option<SpaceReport>) -> Option<ReportBuilder> {
        let job = self.job;
        job.report_depth.map(|d| match so_far {
            Some(r) => ReportBuilder::resume(&job.prefix, r, self.started_unix_s),
            None => ReportBuilder::new(&job.prefix, d, self.started_unix_s),
        })
    }

    /// The queue as the checkpoint `r` left it.
    pub fn resumed(&self, r: ListCheckpoint) -> Queue {
        let job = self.job;
        let cells = match (&job.mode, r.cells) {
            (ListMode::Prefix { depth, alphabet }, Some(position)) => Some(
                PrefixCells::new(&job.prefix, alphabet, *depth)
                    .for_shard(job.shard)
                    .resume_at(position),
            ),
            _ => None,
        };
        let start = Start {
            counted: Totals {
                keys: r.keys,
                bytes: r.bytes,
                requests: r.requests,
                errors: r.errors,
                report: self.report(r.report),
            },
            ranges: r.ranges,
            cuts: r.cuts,
            keys_file_bytes: r.keys_file_bytes,
        };
        Queue::new(r.todo, cells, self.listers, start)
    }

    /// A fresh queue: the job's whole range (its shard's) for its mode.
    pub async fn fresh(&self, client: &S3Client, observer: &dyn PageObserver) -> Queue {
        let job = self.job;
        // The delimiter request that seeds an adaptive listing is one of its
        // requests (an error if it failed), as the observer recorded it.
        let mut seeding = Totals::default();
        let (ready, cells) = match &job.mode {
            ListMode::Serial => (shard_ranges::serial(&job.prefix, job.shard), None),
            ListMode::Prefix { depth, alphabet } => (
                Vec::new(),
                Some(PrefixCells::new(&job.prefix, alphabet, *depth).for_shard(job.shard)),
            ),
            ListMode::Adaptive { delimiter } => {
                let seeds = match delimiter {
                    Some(d) if job.shard.is_whole() => {
                        seed_from_folders(client, job, d, observer, &mut seeding).await
                    }
                    _ => vec![shard_ranges::whole(&job.prefix, job.shard)],
                };
                (seeds, None)
            }
        };
        let start = Start {
            counted: Totals {
                report: self.report(None),
                ..seeding
            },
            ..Start::default()
        };
        Queue::new(ready, cells, self.listers, start)
    }
}

/// One delimiter page: its common prefixes become whole-folder ranges, with gap ranges
/// between them for loose keys, and an open range after the last for whatever the
/// page did not reach. Without folders (or if the page fails), the whole prefix.
async fn seed_from_folders(
    client: &S3Client,
    job: &ListJob,
    delimiter: &str,
    observer: &dyn PageObserver,
    counted: &mut Totals,
) -> Vec<KeyRange> {
    let request = ListRequest {
        prefix: (!job.prefix.is_empty()).then(|| job.prefix.clone()),
        delimiter: Some(delimiter.to_string()),
        max_keys: Some(job.page_size),
        ..ListRequest::default()
    };
    let start = Instant::now();
    let page = client.list_objects_v2(&job.bucket, &request).await;
    observer.page(PageEvent {
        lister: 0,
        start,
        end: Instant::now(),
        outcome: page.as_ref().map(|_| 0).map_err(|e| e.class),
    });
    counted.requests += 1;
    counted.errors += u64::from(page.is_err());
    let folders = match page {
        Ok(p) if !p.common_prefixes.is_empty() => p.common_prefixes,
        _ => return vec![KeyRange::whole(&job.prefix)],
    };
    let mut seeds = Vec::with_capacity(2 * folders.len() + 1);
    let mut previous: Option<&str> = None;
    for folder in &folders {
        seeds.push(gap(&job.prefix, previous, Some(folder.clone())));
        seeds.push(KeyRange::prefix(folder.clone()));
        previous = Some(folder);
    }
    seeds.push(gap(&job.prefix, previous, None));
    seeds
}
