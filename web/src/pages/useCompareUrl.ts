// What the compare page's address holds: the runs compared (`runs=a,b`) and the view
// (`metric`, `normalise`, `log`, `dist`). The view opens as the address says; each
// change shows at once and is written back to it, so a link opens the same view.
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router-dom";
import { METRICS } from "../lib/rounds";

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
  useEffect(() => {
    const next = new URLSearchParams(params);
    const put = (key: string, value: string | null) => (value == null ? next.delete(key) : next.set(key, value));
    put("metric", metric === "ops_per_sec" ? null : metric);
    put("normalise", normalised ? "1" : null);
    put("log", latencyLog ? null : "0");
    put("dist", pick ? String(pick) : null);
    // Written only when it differs, so writing it does not come round again.
    if (next.toString() !== params.toString()) setParams(next, { replace: true });
  }, [metric, normalised, latencyLog, pick, params, setParams]);
  return {
    ids,
    rounds: { metric, setMetric, normalised, setNormalised, latencyLog, setLatencyLog },
    pick,
    setPick,
  };
}
