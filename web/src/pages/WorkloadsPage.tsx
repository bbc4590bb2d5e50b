// Workloads: the files of the workloads folder, and an editor that validates as you
// type, saves (never overwriting without a confirmation) and starts a run.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { useAccess } from "../api/access";
import { ApiError, api } from "../api/client";
import type { ValidateResponse } from "../api/types";
import { YamlEditor } from "../components/YamlEditor";
import { clipWords } from "../lib/format";
import { outlineText } from "../lib/outline";
import { Empty, ErrorBox, Loading } from "../components/states";
import { parseLabels } from "./RunDetailPage";

const NEW_WORKLOAD = `# my-workload: what this workload shows, in a sentence or two.
name: my-workload
target: { endpoint: embedded }
buckets: { names: [my-bucket] }
objects: { size: 4KiB }
before:
  - { name: fill, op: put, workers: 16, until_objects: 10000 }
rounds:
  count: 3
  phases:
    - { name: write, op: put, workers: 16, duration: 5s }
    - { name: read, op: get, workers: 16, duration: 5s }
`;

/**
 * Validates the text on the server once typing pauses; the error is why it could not.
 * Not `enabled` (the read-only token cannot validate), nothing is asked.
 */
export function useValidation(text: string, delayMs = 300, enabled = true): { result: ValidateResponse | null; error: unknown } {
  const [state, setState] = useState<{ result: ValidateResponse | null; error: unknown }>({ result: null, error: null });
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    const t = setTimeout(() => {
      api.validate(text).then(
        (result) => live && setState({ result, error: null }),
        (error: unknown) => live && setState({ result: null, error }),
      );
    }, delayMs);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, delayMs, enabled]);
  return state;
}

/** What to do about a 409 on start: one run at a time, so point at the one that goes. */
function RunGoing() {
  const status = useQuery({ queryKey: ["status"], queryFn: api.status });
  const running = status.data?.running;
  return (
    <div data-testid="run-in-progress">
      A run is already going; keystorm runs one at a time.{" "}
      {running ? (
        <>
          Watch or stop it: <Link to={`/runs/${encodeURIComponent(running)}/live`}>{running}</Link>.
        </>
      ) : (
        <>
          It may have just ended: try again, or see the <Link to="/runs">runs</Link>.
        </>
      )}
    </div>
  );
}

/**
 * Saving the text as a workload (asking before replacing one) and starting a run of it
 * (of the saved workload when the text is unchanged, else of the text); what came of it
 * (a line to show, or an error) and whether a start is under way.
 */
function useSaveAndStart(name: string | null, initial: string, text: string) {
  const [message, setMessage] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const qc = useQueryClient();

  const save = async (target: string) => {
    setMessage(null);
    try {
      await api.saveWorkload(target, text, false);
      setMessage(`Saved as ${target}.yaml.`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && window.confirm(`${target}.yaml exists. Replace it?`)) {
        try {
          await api.saveWorkload(target, text, true);
          setMessage(`Replaced ${target}.yaml.`);
        } catch (e2) {
          setMessage(e2);
        }
      } else {
        setMessage(e);
      }
    }
    await qc.invalidateQueries({ queryKey: ["workloads"] });
    if (target !== name) navigate(`/workloads/${target}`);
  };

  const start = async (labels: string, endpoint: string) => {
    setMessage(null);
    const parsed = parseLabels(labels);
    if (typeof parsed === "string") {
      setMessage(parsed);
      return;
    }
    setBusy(true);
    try {
      const unchanged = name != null && text === initial;
      const r = await api.startRun({
        ...(unchanged ? { workload: name } : { yaml: text }),
        labels: parsed,
        ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}),
      });
      navigate(`/runs/${r.run_id}/live`);
    } catch (e) {
      setMessage(e);
      setBusy(false);
    }
  };

  return { save, start, message, busy };
}

/** Under the editor: whether the text is valid (and what it runs), or each problem by line. */
function ValidationStatus(props: { canCheck: boolean; validation: ValidateResponse | null; error: unknown }) {
  const { validation } = props;
  const problems = validation?.errors ?? [];
  return (
    <div className="validation" aria-live="polite">
      {!props.canCheck ? (
        <span className="muted" data-testid="validation-off">
          Not checked: the read-only token cannot validate, save or start workloads.
        </span>
      ) : props.error != null ? (
        <ErrorBox error={props.error} hint="The text could not be checked; it is checked again as you type." />
      ) : validation == null ? (
        <span className="muted">Checking…</span>
      ) : validation.valid ? (
        <span className="good" data-testid="validation-ok">
          Valid: {validation.outline ? outlineText(validation.outline) : "no phases"}.
        </span>
      ) : (
        problems.map((p, i) => (
          <div className="bad" key={i} data-testid="validation-error">
            line {p.line}, column {p.column}: {p.message}
          </div>
        ))
      )}
      {validation?.warnings.map((w, i) => (
        <div className="warn-text" key={i}>
          warning, line {w.line}: {w.message}
        </div>
      ))}
    </div>
  );
}

/** What came of the last save or start: a line, or the error (pointing at the run that
 * goes when one already does). */
function ActionMessage({ message }: { message: unknown }) {
  if (message == null) return null;
  if (typeof message === "string") return <div className="state">{message}</div>;
  return (
    <ErrorBox error={message} hint={message instanceof ApiError && message.code === "run_in_progress" ? <RunGoing /> : undefined} />
  );
}

function Editor({ name, initial }: { name: string | null; initial: string }) {
  const [text, setText] = useState(initial);
  const [saveName, setSaveName] = useState(name ?? "");
  const [labels, setLabels] = useState("");
  const [endpoint, setEndpoint] = useState("");
  const access = useAccess();
  const { result: validation, error: validationError } = useValidation(text, 300, access.canChange);
  const { save, start, message, busy } = useSaveAndStart(name, initial, text);
  const problems = validation?.errors ?? [];
  return (
    <div>
      <YamlEditor value={text} onChange={setText} problems={[...problems, ...(validation?.warnings ?? [])]} />
      <ValidationStatus canCheck={access.canChange} validation={validation} error={validationError} />
      <div className="form-row">
        <label>
          Save as
          <input value={saveName} onChange={(e) => setSaveName(e.target.value)} placeholder="name (letters, digits, - or _)" />
        </label>
        <button
          onClick={() => save(saveName.trim())}
          disabled={!access.canChange || !saveName.trim() || !validation?.valid}
          title={access.why}
          data-testid="save-workload"
        >
          Save
        </button>
      </div>
      <div className="form-row">
        <label>
          Labels
          <input value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="bucket=presharded, host=a" data-testid="run-labels" />
        </label>
        <label>
          Endpoint override
          <input value={endpoint} onChange={(e) => setEndpoint(e.target.value)} placeholder="http://127.0.0.1:7480 (optional)" />
        </label>
        <button
          className="primary"
          onClick={() => start(labels, endpoint)}
          disabled={!access.canChange || busy || !validation?.valid}
          title={access.why}
          data-testid="start-run"
        >
          {busy ? "Starting…" : "Start run"}
        </button>
      </div>
      <ActionMessage message={message} />
    </div>
  );
}

export function WorkloadsPage() {
  const { name } = useParams();
  const list = useQuery({ queryKey: ["workloads"], queryFn: api.workloads });
  const one = useQuery({ queryKey: ["workload", name], queryFn: () => api.workload(name!), enabled: !!name });
  return (
    <section className="workloads">
      <aside>
        <h2>Workloads</h2>
        {list.isPending ? (
          <Loading what="workloads" />
        ) : list.isError ? (
          <ErrorBox error={list.error} />
        ) : list.data.length === 0 ? (
          <Empty title="The workloads folder is empty.">Write one on the right and save it.</Empty>
        ) : (
          <ul className="workload-list" data-testid="workload-list">
            {list.data.map((w) => (
              <li key={w.name} className={w.name === name ? "active" : ""}>
                <Link to={`/workloads/${w.name}`} data-testid={`workload-${w.name}`}>
                  {w.name}
                </Link>
                {w.description && <div className="muted small">{clipWords(w.description, 140)}</div>}
              </li>
            ))}
          </ul>
        )}
        <Link to="/workloads" className="button">
          New workload
        </Link>
      </aside>
      <div className="editor-pane">
        <h1>{name ? `${name}.yaml` : "New workload"}</h1>
        {name == null ? (
          <Editor key="new" name={null} initial={NEW_WORKLOAD} />
        ) : one.isPending ? (
          <Loading what={`${name}.yaml`} />
        ) : one.isError ? (
          <ErrorBox error={one.error} />
        ) : (
          <Editor key={name} name={name} initial={one.data.text} />
        )}
      </div>
    </section>
  );
}
