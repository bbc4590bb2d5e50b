// What the compare page's address holds: the runs compared (`runs=a,b`), the view
// (`metric`, `normalise`, `log`, `dist`), the noise floor changes are judged against
// (`floor=5` for ±5 %) and whether the judged rounds are shown together
// (`rounds=together`). The view opens as the address says; each change shows at once
// and is written back to it, so a link opens the same view.
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router-dom";
import { METRICS } from "../lib/rounds";
import { DEFAULT_NOISE_FLOOR, type RoundsView } from "../lib/verdicts";

/** The noise floor (a share) of the address's `floor` (in percent); the default for
 * none or one that is not a percentage under 100. */
export function floorOfParam(param: string | null): number {
  const percent = param == null || param.trim() === "" ? NaN : Number(param);
  return Number.isFinite(percent) && percent >= 0 && percent < 100 ? percent / 100 : DEFAULT_NOISE_FLOOR;
}

/** The address's `floor` for a noise floor; none for the default. */
export function paramOfFloor(floor: number): string | null {
  return floor === DEFAULT_NOISE_FLOOR ? null : String(Math.round(floor * 10_000) / 100);
}

export function useCompareUrl() {
  const [params, setParams] = useSearchParams();
  const ids = (params.get("runs") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const [metric, setMetric] = useState(() => {
    const wanted = params.get("metric") ?? "";
    return wanted in METRICS ? wanted : "ops_per_sec";
  });
  const [normalised, setNormalised] = useState(() => params.get("normalise") === "1");
  // Latency reads best on a log scale (one slow round does not flatten the rest).
  const [latencyLog, setLatencyLog] = useState(() => params.get("log") !== "0");
  const [pick, setPick] = useState(() => Math.max(0, Number(params.get("dist") ?? 0) || 0));
  const [noiseFloor, setNoiseFloor] = useState(() => floorOfParam(params.get("floor")));
  const [roundsView, setRoundsView] = useState<RoundsView>(() => (params.get("rounds") === "together" ? "together" : "each"));
  useEffect(() => {
    const next = new URLSearchParams(params);
    const put = (key: string, value: string | null) => (value == null ? next.delete(key) : next.set(key, value));
    put("metric", metric === "ops_per_sec" ? null : metric);
    put("normalise", normalised ? "1" : null);
    put("log", latencyLog ? null : "0");
    put("dist", pick ? String(pick) : null);
    put("floor", paramOfFloor(noiseFloor));
    put("rounds", roundsView === "together" ? "together" : null);
    // Written only when it differs, so writing it does not come round again.
    if (next.toString() !== params.toString()) setParams(next, { replace: true });
  }, [metric, normalised, latencyLog, pick, noiseFloor, roundsView, params, setParams]);
  return {
    ids,
    rounds: { metric, setMetric, normalised, setNormalised, latencyLog, setLatencyLog },
    pick,
    setPick,
    judged: { noiseFloor, setNoiseFloor, roundsView, setRoundsView },
  };
}
