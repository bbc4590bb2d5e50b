// The live page's cards: the running phase, the progress bar (full once the run
// completed, with how it ended once it did), the objects in the keyspace, and the
// phase's operations and errors so far.
import type { RunStatus } from "../api/types";
import { fmtCount, fmtDuration } from "../lib/format";
import { type LiveState, endedSummary } from "../lib/live";
import { placeLabel } from "../lib/rounds";

/** What the progress card says: how the run ended, or how far the phase is. */
function progressText(state: LiveState, status: RunStatus | undefined, running: boolean): string {
  const fraction = state.progress?.fraction;
  if (!running && status) return endedSummary(status, state);
  if (state.progress == null) return "measuring the first second…";
  return `${fraction != null ? `${Math.round(fraction * 100)} %` : "end not known in advance"} · ${fmtDuration(state.progress.elapsed_s)}`;
}

const STEP_WORDS: Record<string, string> = {
  listing_keys: "listing the keys to read",
  audit_expected: "audit: writing the keys that must be there",
  audit_compare: "audit: comparing",
};

/** `listing the keys to read of bucket b: 1.2 M keys, 52 k keys/s, 40 s left`. */
export function stepText(s: NonNullable<LiveState["step"]>): string {
  const of = s.total != null ? ` of ${fmtCount(s.total)}` : "";
  const left = s.eta_s != null ? `, ${fmtDuration(s.eta_s)} left` : "";
  return `${STEP_WORDS[s.step] ?? s.step} of bucket ${s.bucket}: ${fmtCount(s.done)} keys${of}, ${fmtCount(Math.round(s.per_sec))} keys/s${left}`;
}

export function LiveCards({ state, status, running }: { state: LiveState; status?: RunStatus; running: boolean }) {
  // A completed run's bar is full, whatever its last phase knew of its end.
  const barFraction = status === "completed" ? 1 : (state.progress?.fraction ?? 0);
  return (
    <div className="cards">
      <div className="card" data-testid="live-phase">
        <div className="muted">Phase</div>
        <div className="big">{state.phase ? `${placeLabel(state.phase)} · ${state.phase.name}` : "starting…"}</div>
        <div className="muted">
          {state.position != null && state.phases ? `phase ${state.position + 1} of ${state.phases}` : ""}
        </div>
      </div>
      <div className="card">
        <div className="muted">Progress</div>
        <div className="progress" aria-label="phase progress">
          <div style={{ width: `${Math.round(barFraction * 100)}%` }} />
        </div>
        <div className="muted" data-testid="live-progress">
          {progressText(state, status, running)}
        </div>
        {running && state.step && (
          <div className="muted" data-testid="live-step">
            {stepText(state.step)}
          </div>
        )}
      </div>
      <div className="card">
        <div className="muted">Objects in the keyspace</div>
        <div className="big">{fmtCount(state.objects)}</div>
      </div>
      <div className="card">
        <div className="muted">Operations / errors in this phase</div>
        <div className="big">
          {fmtCount(state.progress?.ops)} / {fmtCount(state.progress?.errors)}
        </div>
      </div>
    </div>
  );
}
