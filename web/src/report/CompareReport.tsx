// The offline report of runs compared (`keystorm report BASE NEW…`): the compare
// page's view drawn from the data inlined in the file — the comparison judged once,
// with the noise floor it was asked with; each run's page data, bucket index,
// integrity and latency distributions. The base is the first run, as given.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { Comparison, Distribution, IndexReport, IntegrityReport, RunDetail } from "../api/types";
import { CompareView, type DistributionChoice, runLabel } from "../components/CompareView";
import type { RoundsView } from "../lib/verdicts";

export interface ComparisonReportData {
  kind: "comparison";
  /** The noise floor the comparison was judged with (a share: 0.02 is ±2 %). */
  noise_floor: number;
  comparison: Comparison;
  /** The base first, then the runs compared with it, in the order given. */
  runs: Array<{
    detail: RunDetail;
    index: IndexReport | null;
    integrity: IntegrityReport | null;
    /** Each phase × round × operation's latency distribution, keyed
     * `section|round|phase|op` (round empty outside rounds). */
    distributions: Record<string, Distribution>;
  }>;
}

/** Whether the report's data is a comparison (rather than one run). */
export function isComparison(data: unknown): data is ComparisonReportData {
  return typeof data === "object" && data !== null && (data as { kind?: unknown }).kind === "comparison";
}

function distributionKey(c: DistributionChoice): string {
  return `${c.section}|${c.round ?? ""}|${c.phase}|${c.op}`;
}

export function CompareReport({ data }: { data: ComparisonReportData }) {
  const client = useMemo(() => new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } }), []);
  const runs = useMemo(() => data.runs.map((r, i) => ({ label: runLabel(r.detail, i), detail: r.detail })), [data]);
  const [metric, setMetric] = useState("ops_per_sec");
  const [normalised, setNormalised] = useState(false);
  const [latencyLog, setLatencyLog] = useState(true);
  const [pick, setPick] = useState(0);
  const [roundsView, setRoundsView] = useState<RoundsView>("each");
  const loadDistribution = (i: number, choice: DistributionChoice) => {
    const d = data.runs[i]?.distributions[distributionKey(choice)];
    return d ? Promise.resolve(d) : Promise.reject(new Error(`this report holds no distribution of ${choice.phase} ${choice.op}`));
  };
  return (
    <QueryClientProvider client={client}>
      <CompareView
        runs={runs}
        indexById={new Map(data.runs.map((r) => [r.detail.info.run_id, r.index ?? undefined]))}
        integrityById={new Map(data.runs.map((r) => [r.detail.info.run_id, r.integrity]))}
        judged={{ comparison: data.comparison, fetching: false }}
        judgedView={{ noiseFloor: data.noise_floor, roundsView, setRoundsView }}
        roundsView={{ metric, setMetric, normalised, setNormalised, latencyLog, setLatencyLog }}
        pick={pick}
        setPick={setPick}
        loadDistribution={loadDistribution}
      />
    </QueryClientProvider>
  );
}
