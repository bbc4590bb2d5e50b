// Compare: two or more runs aligned by section, round, phase and operation (not by wall
// clock) — throughput across rounds overlaid (or normalised to the first run), latency
// distributions overlaid, and every run's changes against the first as the server
// judged them (each with its interval and a verdict against the noise floor). The page
// for "dynamic vs pre-sharded". The URL holds the whole view (runs, metric,
// normalisation, log scale, distribution, noise floor, rounds judged), so a link opens
// the same page. What it draws is `CompareView`, which a comparison's offline report
// draws too.
import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import { CompareView, type ComparedRun, type JudgedView, runLabel } from "../components/CompareView";
import { Empty, ErrorBox, Loading } from "../components/states";
import { useCompareUrl } from "./useCompareUrl";

export { compareLegend } from "../components/CompareRounds";

/** The runs compared, the oldest first (the baseline, whatever order they were picked
 * in), with their bucket index and integrity reports as they come. */
function useComparedRuns(ids: string[]) {
  const queries = useQueries({ queries: ids.map((id) => ({ queryKey: ["run", id], queryFn: () => api.run(id) })) });
  const indexes = useQueries({
    queries: ids.map((id) => ({ queryKey: ["index", id], queryFn: () => api.index(id), retry: false })),
  });
  const indexById = new Map(ids.map((id, i) => [id, indexes[i]?.data]));
  const integrities = useQueries({
    queries: ids.map((id) => ({ queryKey: ["integrity", id], queryFn: () => api.integrity(id), retry: false })),
  });
  const integrityById = new Map(ids.map((id, i) => [id, integrities[i]?.data]));
  const loaded = queries.every((q) => q.data);
  const runs: ComparedRun[] = useMemo(
    () =>
      loaded
        ? queries
            .map((q) => q.data!)
            .sort((a, b) => a.info.started_at.localeCompare(b.info.started_at))
            .map((d, i) => ({ label: runLabel(d, i), detail: d }))
        : [],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [loaded, ...queries.map((q) => q.dataUpdatedAt)],
  );
  return { runs, loaded, failed: queries.find((q) => q.isError), indexById, integrityById };
}

/** Fewer than two runs picked: how to pick them, or a link comparing the two latest. */
function PickRuns() {
  const runsList = useQuery({ queryKey: ["runs"], queryFn: api.runs });
  return (
    <section>
      <h1>Compare runs</h1>
      <Empty title="Pick two or more runs to compare.">
        Tick them in the <Link to="/runs">runs table</Link> and press Compare.
        {runsList.data && runsList.data.length >= 2 && (
          <div>
            Or compare the two latest:{" "}
            <Link to={`/compare?runs=${runsList.data[1].run_id},${runsList.data[0].run_id}`}>
              {runsList.data[1].run_id} vs {runsList.data[0].run_id}
            </Link>
          </div>
        )}
      </Empty>
    </section>
  );
}

/** The runs' changes against the first, judged by the server with the noise floor
 * asked (a new floor asks again; the last answer stays while it comes). */
function useJudged(runs: ComparedRun[], view: JudgedView) {
  const [base, ...news] = runs.map((r) => r.detail.info.run_id);
  const judged = useQuery({
    queryKey: ["compare", base, news, view.noiseFloor],
    queryFn: () => api.compare(base, news, view.noiseFloor),
    placeholderData: keepPreviousData,
    retry: false,
    enabled: runs.length >= 2,
  });
  return { comparison: judged.data, error: judged.isError ? judged.error : undefined, fetching: judged.isFetching };
}

export function ComparePage() {
  const { ids, rounds, pick, setPick, judged: judgedView } = useCompareUrl();
  const { runs, loaded, failed, indexById, integrityById } = useComparedRuns(ids);
  const judged = useJudged(runs, judgedView);
  if (ids.length < 2) return <PickRuns />;
  if (failed) return <ErrorBox error={failed.error} hint={<Link to="/runs">Back to the runs</Link>} />;
  if (!loaded) return <Loading what="the runs" />;
  return (
    <CompareView
      runs={runs}
      indexById={indexById}
      integrityById={integrityById}
      judged={judged}
      judgedView={judgedView}
      roundsView={rounds}
      pick={pick}
      setPick={setPick}
      loadDistribution={(i, choice) => api.distribution(runs[i].detail.info.run_id, choice)}
      runLink={(id) => <Link to={`/runs/${id}`}>{id}</Link>}
    />
  );
}
