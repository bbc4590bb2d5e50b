// A watched run's live state, folded from its event stream (read with the tab's token;
// a reconnect resumes where it left off, with Last-Event-ID), and how it ended when its
// process died without sending `finished`, and once it ended, the run as recorded (its
// verdict). Kept apart from the live page so the page
// only lays out what this hands it.
import { useEffect, useReducer, useState } from "react";
import { api } from "../api/client";
import { openEventStream } from "../api/eventStream";
import type { RunDetail, RunStatus } from "../api/types";
import { type LiveState, MAX_LIVE_POINTS, type RawEvent, applyEvent, initialLive, isLiveEvent } from "../lib/live";

export interface LiveRun {
  state: LiveState;
  /** Why the stream is not flowing (dropped and reconnecting, or refused), if it is not. */
  connError: string | null;
  /** How the run stands when it ended without a `finished` event (its process died). */
  ended: RunStatus | null;
  /** Whether `keystorm run --resume` can continue it: not on the embedded target. */
  resumable: boolean;
  /** The run as recorded once it ended (its verdict), null while it runs or until read. */
  detail: RunDetail | null;
}

function reducer(state: LiveState, events: RawEvent[]): LiveState {
  return events.reduce(applyEvent, state);
}

export function useLiveRun(id: string): LiveRun {
  const [state, dispatch] = useReducer(reducer, undefined, initialLive);
  const [connError, setConnError] = useState<string | null>(null);
  const [ended, setEnded] = useState<RunStatus | null>(null);
  const [resumable, setResumable] = useState(false);
  const [detail, setDetail] = useState<RunDetail | null>(null);

  useEffect(() => {
    // The page draws the last MAX_LIVE_POINTS seconds: older per-second events of a run
    // that has gone on for days are not worth sending.
    let finished = false;
    const close = openEventStream(`/api/runs/${encodeURIComponent(id)}/events?recent=${MAX_LIVE_POINTS}`, {
      onEvent: (ev) => {
        if (!isLiveEvent(ev.name)) return;
        const e: RawEvent = { id: Number(ev.id), name: ev.name, data: JSON.parse(ev.data) };
        dispatch([e]);
        setConnError(null);
        if (e.name === "finished") {
          finished = true;
          close();
          // The run recorded how it ended before it said so: its verdict is there to read.
          api
            .run(id)
            .then((d) => {
              if (d.info.status !== "running") setDetail(d);
            })
            .catch(() => {});
        }
      },
      onError: (final, reason) => {
        if (finished) return;
        setConnError(final ? reason : "The event stream dropped; reconnecting…");
        // A run whose process died never sends `finished`: ask how it stands.
        api
          .run(id)
          .then((d) => {
            if (d.info.status !== "running" && !finished) {
              finished = true;
              close();
              setEnded(d.info.status);
              setResumable(d.manifest.endpoint !== "embedded");
              setDetail(d);
              setConnError(null);
            }
          })
          .catch(() => {});
      },
    });
    return close;
  }, [id]);

  return { state, connError, ended, resumable, detail };
}
