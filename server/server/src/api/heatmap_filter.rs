//! Which part of a run a heatmap covers — a section, a round, a phase, any of them
//! or none — as a test of the histogram log's tags.

use keystorm_types::OpKind;

/// Which part of a run a heatmap covers: each field given must match; none given, the
/// whole run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HeatmapFilter {
    pub section: Option<String>,
    /// The round's number (`-` outside rounds).
    pub round: Option<String>,
    /// The phase's name as the log writes it.
    pub phase: Option<String>,
}

impl HeatmapFilter {
    /// Whether the log's line tagged `section.round.phase.op` is one of `op`'s in this
    /// part (warm-up lines, tagged `....op.warmup`, are left out as from the summary).
    pub fn accepts(&self, tag: &str, op: OpKind) -> bool {
        self.accepts_part(tag, |last| last == op.as_str())
    }

    /// Whether the line tagged `tag` is of any operation in this part (warm-up aside):
    /// where it begins marks its phase on a heatmap of another operation.
    pub fn accepts_any_op(&self, tag: &str) -> bool {
        self.accepts_part(tag, |last| OpKind::parse(last).is_some())
    }

    fn accepts_part(&self, tag: &str, op: impl Fn(&str) -> bool) -> bool {
        let Some((section, rest)) = tag.split_once('.') else {
            return false;
        };
        let Some((round, rest)) = rest.split_once('.') else {
            return false;
        };
        // A phase's name may hold dots; the operation is the last part.
        let Some((phase, last)) = rest.rsplit_once('.') else {
            return false;
        };
        let matches = |want: &Option<String>, got: &str| want.as_deref().is_none_or(|w| w == got);
        op(last)
            && matches(&self.section, section)
            && matches(&self.round, round)
            && matches(&self.phase, phase)
    }
}

/// The lines of a heatmap of `op` over the part `filter` covers: its operations counted,
/// every other operation's lines of the part marking where their phases begin.
pub struct PartLines<'a> {
    pub filter: &'a HeatmapFilter,
    pub op: OpKind,
}

impl keystorm_results::HeatmapLines for PartLines<'_> {
    fn counts(&self, tag: &str) -> bool {
        self.filter.accepts(tag, self.op)
    }

    fn marks(&self, tag: &str) -> bool {
        self.filter.accepts_any_op(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_given_narrows_and_warm_up_is_left_out() {
        let all = HeatmapFilter::default();
        assert!(all.accepts("round.2.read.get", OpKind::Get));
        assert!(!all.accepts("round.2.read.get", OpKind::Put));
        assert!(!all.accepts("round.2.read.get.warmup", OpKind::Get));
        let reads = HeatmapFilter {
            phase: Some("read".to_string()),
            ..HeatmapFilter::default()
        };
        assert!(reads.accepts("round.1.read.get", OpKind::Get));
        assert!(reads.accepts("after.-.read.get", OpKind::Get));
        assert!(!reads.accepts("round.1.write.get", OpKind::Get));
        // A phase name with dots in it.
        let dotted = HeatmapFilter {
            section: Some("round".to_string()),
            round: Some("3".to_string()),
            phase: Some("v1.2".to_string()),
        };
        assert!(dotted.accepts("round.3.v1.2.put", OpKind::Put));
        assert!(!dotted.accepts("round.2.v1.2.put", OpKind::Put));
        assert!(!all.accepts("garbage", OpKind::Put));
        // Any operation of the part marks its phase; warm-up and other parts do not.
        assert!(reads.accepts_any_op("round.1.read.put"));
        assert!(!reads.accepts_any_op("round.1.read.put.warmup"));
        assert!(!reads.accepts_any_op("round.1.write.put"));
    }
}
