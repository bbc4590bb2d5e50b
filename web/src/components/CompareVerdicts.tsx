// The compare page's verdicts, as the server judged them: for each run against the
// base, the study in one paragraph, then the few changes beyond the noise (largest
// first), then every metric with both sides' intervals, the change with its interval
// and the verdict. Only improved and regressed are coloured; no change, inconclusive
// and not judged are grey and say why.
import type { Change, Comparison, RunChanges, SummaryRow } from "../api/types";
import {
  NOISE_FLOORS,
  type RoundsView,
  changesInView,
  countVerdicts,
  countsWords,
  fmtChange,
  fmtFloor,
  fmtSide,
  hasRoundsTogether,
  isReal,
  placeOf,
  realChanges,
  verdictClass,
  verdictWords,
} from "../lib/verdicts";

/** What a run's verdicts are read with: its label on the page and its rows (for the
 * operations a tail share counts). */
export interface JudgedRunSource {
  label: (runId: string) => string;
  rows: (runId: string) => SummaryRow[];
}

/** The judging controls: the noise floor (refetches) and, where phases have rounds,
 * whether their rows are shown per round or together. */
export function VerdictControls(props: {
  noiseFloor: number;
  /** Absent where the floor was fixed when judged (an offline report): shown, not chosen. */
  setNoiseFloor?: (floor: number) => void;
  roundsView: RoundsView;
  setRoundsView: (view: RoundsView) => void;
  withRounds: boolean;
}) {
  const floors = NOISE_FLOORS.includes(props.noiseFloor) ? NOISE_FLOORS : [...NOISE_FLOORS, props.noiseFloor].sort((a, b) => a - b);
  const setFloor = props.setNoiseFloor;
  return (
    <div className="title-row">
      {setFloor ? (
        <label className="inline-label">
          Noise floor
          <select value={String(props.noiseFloor)} onChange={(e) => setFloor(Number(e.target.value))} aria-label="noise floor" data-testid="noise-floor">
            {floors.map((f) => (
              <option key={f} value={String(f)}>
                {fmtFloor(f)}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <span className="inline-label" data-testid="noise-floor-fixed">
          Noise floor {fmtFloor(props.noiseFloor)}
        </span>
      )}
      {props.withRounds && (
        <label className="inline-label">
          Rounds
          <select
            value={props.roundsView}
            onChange={(e) => props.setRoundsView(e.target.value === "together" ? "together" : "each")}
            aria-label="rounds judged"
            data-testid="judged-rounds"
          >
            <option value="each">each round on its own</option>
            <option value="together">each phase's rounds together</option>
          </select>
        </label>
      )}
    </div>
  );
}

/** The verdict cell: the verdict, and for a grey one why (what would settle it). */
function VerdictCell({ c }: { c: Change }) {
  return (
    <td className={verdictClass(c.verdict)} data-testid="verdict-cell" title={isReal(c.verdict) ? c.why : undefined}>
      {verdictWords(c.verdict)}
      {!isReal(c.verdict) && (
        <div className="delta" data-testid="verdict-why">
          {c.why}
        </div>
      )}
    </td>
  );
}

/** The improved and regressed changes, largest first; where there is none, whether the
 * other view has some. */
function RealChanges(props: { changes: Change[]; rows: SummaryRow[]; elsewhere: { count: number; view: RoundsView } }) {
  const { changes, rows, elsewhere } = props;
  const real = realChanges(changes);
  if (!real.length)
    return (
      <p className="muted" data-testid="no-real-change">
        No change beyond the noise
        {elsewhere.count > 0
          ? ` ${elsewhere.view === "together" ? "round by round" : "with each phase's rounds together"}; ${elsewhere.count} with ${elsewhere.view === "together" ? "each phase's rounds together" : "each round on its own"} (switch Rounds above).`
          : "."}
      </p>
    );
  return (
    <table className="grid compact verdicts" data-testid="real-changes">
      <thead>
        <tr>
          <th>Verdict</th>
          <th>Where</th>
          <th>Op</th>
          <th>Metric</th>
          <th className="num">Base → new</th>
          <th className="num">Change (95 %)</th>
        </tr>
      </thead>
      <tbody>
        {real.map((c, i) => (
          <tr key={i} data-testid="real-change" data-verdict={c.verdict}>
            <td className={verdictClass(c.verdict)}>{verdictWords(c.verdict)}</td>
            <td>{placeOf(c)}</td>
            <td>{c.op}</td>
            <td>{c.metric}</td>
            <td className="num">
              {fmtSide(c, c.base, rows)} → {fmtSide(c, c.new, rows)}
            </td>
            <td className={`num ${verdictClass(c.verdict)}`} title={c.why}>
              {fmtChange(c)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every metric of the view, in the server's order. */
function EveryMetric({ changes, baseRows, newRows }: { changes: Change[]; baseRows: SummaryRow[]; newRows: SummaryRow[] }) {
  return (
    <table className="grid compact verdicts" data-testid="verdict-table">
      <thead>
        <tr>
          <th>Where</th>
          <th>Op</th>
          <th>Metric</th>
          <th className="num">Base (±95 %)</th>
          <th className="num">New (±95 %)</th>
          <th className="num">Change (95 % interval)</th>
          <th>Verdict</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c, i) => {
          const first = i === 0 || placeOf(changes[i - 1]) + changes[i - 1].op !== placeOf(c) + c.op;
          return (
            <tr key={i} className={first && i > 0 ? "group-start" : undefined} data-testid="verdict-row" data-verdict={c.verdict} data-metric={c.metric}>
              <td>{placeOf(c)}</td>
              <td>{c.op}</td>
              <td>{c.metric}</td>
              <td className="num">{fmtSide(c, c.base, baseRows)}</td>
              <td className="num">{fmtSide(c, c.new, newRows)}</td>
              <td className={`num ${verdictClass(c.verdict)}`}>{fmtChange(c)}</td>
              <VerdictCell c={c} />
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One run against the base. */
function RunVerdicts(props: { run: RunChanges; baseId: string; source: JudgedRunSource; view: RoundsView }) {
  const { run, baseId, source, view } = props;
  const changes = changesInView(run.changes, view);
  const other: RoundsView = view === "each" ? "together" : "each";
  const elsewhere = { count: realChanges(changesInView(run.changes, other)).length, view: other };
  return (
    <section data-testid="judged-run" data-run={run.run.run_id}>
      <h3>
        {source.label(run.run.run_id)} against {source.label(baseId)}
      </h3>
      {run.paragraph && <p data-testid="judged-paragraph">{run.paragraph}</p>}
      <p className="muted" data-testid="judged-counts">
        {countsWords(countVerdicts(changes))}
      </p>
      <h4>Changes beyond the noise</h4>
      <RealChanges changes={changes} rows={source.rows(run.run.run_id)} elsewhere={elsewhere} />
      <h4>Every metric</h4>
      <EveryMetric changes={changes} baseRows={source.rows(baseId)} newRows={source.rows(run.run.run_id)} />
      {run.only_in_base?.length ? <p className="muted">Only in the base, not judged: {run.only_in_base.join(", ")}.</p> : null}
      {run.only_in_new?.length ? <p className="muted">Only in this run, not judged: {run.only_in_new.join(", ")}.</p> : null}
    </section>
  );
}

/** Every compared run's verdicts against the base. */
export function CompareVerdicts(props: { comparison: Comparison; source: JudgedRunSource; view: RoundsView }) {
  const { comparison, source, view } = props;
  return (
    <div data-testid="compare-judged">
      <p className="muted" data-testid="judged-floor">
        Each figure with its {Math.round(comparison.confidence * 100)} % interval from the run's own seconds; a change is improved or
        regressed only where its interval leaves no change and it is larger than the {fmtFloor(comparison.noise_floor)} noise
        floor. Green is better, red is worse; no change, inconclusive (with what would settle it) and not judged (a percentile that was
        mostly an open loop's schedule lag) are grey.
      </p>
      {comparison.runs.map((run) => (
        <RunVerdicts key={run.run.run_id} run={run} baseId={comparison.base.run_id} source={source} view={view} />
      ))}
    </div>
  );
}

/** Whether any run's changes have a round phase's rounds together. */
export function comparisonHasRounds(comparison: Comparison | undefined): boolean {
  return !!comparison?.runs.some((r) => hasRoundsTogether(r.changes));
}
