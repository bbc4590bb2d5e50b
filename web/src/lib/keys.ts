// Reads of keys keystorm did not write: what the keys table and the live page say of a
// phase's key file (which bucket, which file, how many keys, how listed), and where an
// `epochs` phase passed from one epoch to the next, from its interval records.
import type { IntervalRecord, KeysEvent } from "../api/types";
import { fmtAxis, fmtBytes, fmtCount } from "./format";

/** Where the keys came from, as the tables say it. */
export function keysSource(k: Pick<KeysEvent, "source">): string {
  return k.source === "listing" ? "listing" : "key file";
}

/** The bucket read, with the prefix listed when there was one: `logs/2026/`… */
export function keysBucket(k: Pick<KeysEvent, "bucket" | "prefix">): string {
  return k.prefix ? `${k.bucket} (prefix ${k.prefix})` : k.bucket;
}

/** How many keys the phase reads: all of the file's, or "N of M" (a shard's part). */
export function keysCount(k: Pick<KeysEvent, "keys" | "part_keys">): string {
  return k.part_keys < k.keys ? `${fmtCount(k.part_keys)} of ${fmtCount(k.keys)}` : fmtCount(k.keys);
}

/** What the listing took, or why it took nothing; "–" for a key file made earlier. */
export function keysListTime(k: Pick<KeysEvent, "source" | "list_seconds">): string {
  if (k.source !== "listing" || k.list_seconds == null) return "–";
  // A resumed run reads the key file its earlier part completed.
  if (k.list_seconds === 0) return "listed before";
  return `${k.list_seconds.toFixed(k.list_seconds < 10 ? 2 : 1)} s`;
}

/** The bytes of the objects listed (listings only). */
export function keysListedBytes(k: Pick<KeysEvent, "object_bytes">): string {
  return k.object_bytes == null ? "–" : fmtBytes(k.object_bytes);
}

/**
 * The live page's line for the phase reading keys: "2,000 keys of bucket logs, listed
 * in 0.52 s into keys-1.keys · epoch 2 of 3". `epoch` is the latest interval's.
 */
export function keysLine(k: KeysEvent, epoch?: number | null): string {
  const what = k.part_keys < k.keys ? `${fmtCount(k.part_keys)} of the ${fmtCount(k.keys)} keys` : `${fmtCount(k.keys)} keys`;
  const how =
    k.source === "file"
      ? `from key file ${k.file}`
      : k.list_seconds
        ? `listed in ${keysListTime(k)} into ${k.file}`
        : `listed before into ${k.file}`;
  const epochs = k.epochs ? (epoch ? ` · epoch ${epoch} of ${k.epochs}` : ` · ${k.epochs} epochs`) : "";
  return `${what} of bucket ${keysBucket(k)}, ${how}${epochs}`;
}

/** Where an epochs phase entered a new epoch, on a time chart. */
export interface EpochMark {
  /** Seconds from the run's start: the start of the first interval that ended in it. */
  t: number;
  /** The epoch entered (the last, when one chart point spans several). */
  epoch: number;
  /** "epoch 2"; "epochs 2–3" when one point passed more than one boundary. */
  label: string;
}

/** One chart point as the marks need it: where it starts, which phase, which epoch. */
export interface EpochPoint {
  start: number;
  /** The phase it belongs to (its section, round and name): epochs count per phase. */
  place: string;
  epoch?: number | null;
}

/**
 * The epoch boundaries among points in time order. An interval records the epoch its
 * reads were in when it ended, so the epoch changed within the first interval that
 * records the next one: the mark stands at that interval's start. The first epoch of
 * each phase is not marked (the phase's start is), nor are points of phases without
 * epochs.
 */
export function epochMarks(points: EpochPoint[]): EpochMark[] {
  const out: EpochMark[] = [];
  let place: string | undefined;
  let epoch: number | undefined;
  for (const p of points) {
    if (p.place !== place) {
      place = p.place;
      epoch = p.epoch ?? undefined;
      continue;
    }
    if (p.epoch == null) continue;
    if (epoch != null && p.epoch > epoch) {
      const label = p.epoch - epoch > 1 ? `epochs ${epoch + 1}–${p.epoch}` : `epoch ${p.epoch}`;
      out.push({ t: p.start, epoch: p.epoch, label });
    }
    epoch = p.epoch;
  }
  return out;
}

/** The points of interval records, for `epochMarks`. */
export function recordEpochPoints(records: IntervalRecord[]): EpochPoint[] {
  return records.map((r) => ({ start: r.t_s, place: `${r.section}/${r.round ?? "-"}/${r.phase}`, epoch: r.epoch }));
}

/** The tooltip's title of a chart point: its time, and its epoch when it has one. */
export function pointTitle(t: unknown, epoch: unknown): string {
  const time = `t = ${fmtAxis(t)} s`;
  return typeof epoch === "number" ? `${time} · epoch ${epoch}` : time;
}
