//! The order phases run in: `before`, then each round's phases, then `after`.

use crate::plan::{PhasePlan, Plan};
use keystorm_results::{PhaseRef, Section};

/// A phase with its place in the run.
#[derive(Debug, Clone)]
pub struct ScheduledPhase {
    pub phase_ref: PhaseRef,
    pub plan: PhasePlan,
}

/// Every phase of the run in execution order (rounds unrolled; small: phases × rounds).
pub fn schedule(plan: &Plan) -> Vec<ScheduledPhase> {
    let mut out = Vec::new();
    let mut push = |section: Section, round: Option<u32>, phases: &[PhasePlan]| {
        for (index, p) in phases.iter().enumerate() {
            out.push(ScheduledPhase {
                phase_ref: PhaseRef {
                    section,
                    round,
                    index,
                    name: p.name.clone(),
                },
                plan: p.clone(),
            });
        }
    };
    push(Section::Before, None, &plan.before);
    for r in 1..=plan.rounds.count {
        push(Section::Round, Some(r), &plan.rounds.phases);
    }
    push(Section::After, None, &plan.after);
    out
}
