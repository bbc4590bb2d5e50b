//! What a listing counted: a page's, a lister's or the whole listing's, added up as
//! pages come.

use keystorm_results::space_report::ReportBuilder;
use keystorm_types::ListEntry;

/// What was counted: a page's, a lister's or the whole listing's.
#[derive(Default)]
pub(super) struct Totals {
    pub(super) keys: u64,
    pub(super) bytes: u64,
    pub(super) requests: u64,
    pub(super) errors: u64,
    pub(super) report: Option<ReportBuilder>,
}

impl Totals {
    pub(super) fn merge(&mut self, other: Totals) {
        self.keys += other.keys;
        self.bytes += other.bytes;
        self.requests += other.requests;
        self.errors += other.errors;
        match (&mut self.report, other.report) {
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
            (None, theirs) => self.report = theirs,
            _ => {}
        }
    }

    /// Adds a page's counts and resets them for the next page.
    pub(super) fn merge_page(&mut self, page: &mut Totals) {
        self.keys += std::mem::take(&mut page.keys);
        self.bytes += std::mem::take(&mut page.bytes);
        self.requests += std::mem::take(&mut page.requests);
        self.errors += std::mem::take(&mut page.errors);
        if let Some(theirs) = &mut page.report {
            match &mut self.report {
                Some(mine) => mine.merge(theirs),
                None => self.report = Some(theirs.clone()),
            }
            theirs.clear();
        }
    }

    pub(super) fn take(&mut self, e: &ListEntry) {
        self.keys += 1;
        self.bytes += e.size;
        if let Some(r) = &mut self.report {
            r.add(e);
        }
    }
}
