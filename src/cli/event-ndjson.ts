// The file format of `analytics export` and `analytics import`: newline-delimited JSON, a
// header line naming the format, then one stored event per line. The visitor is a decimal
// string (a 64-bit value does not fit a JSON number).

import { EVENT_KINDS, EVENT_TEXT_FIELDS, type EventKind, type StoredEvent } from "../storage/ports.js";

export const NDJSON_HEADER = { format: "analytics-events", version: 1 } as const;

const MAX_VISITOR = (1n << 64n) - 1n;

export function encodeEvent(event: StoredEvent): string {
  const line: Record<string, unknown> = {
    websiteId: event.websiteId,
    ts: event.ts.toISOString(),
    visitor: event.visitor.toString(),
    kind: event.kind,
    isVisit: event.isVisit,
  };
  for (const field of EVENT_TEXT_FIELDS) line[field] = event[field];
  return JSON.stringify(line);
}

/** Reads the header line; throws a message saying what the file is not. */
export function checkHeader(line: string): void {
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch {
    header = null;
  }
  const { format, version } = (header ?? {}) as { format?: unknown; version?: unknown };
  if (format !== NDJSON_HEADER.format) {
    throw new Error("line 1: not an `analytics export` file (no analytics-events header).");
  }
  if (version !== NDJSON_HEADER.version) {
    throw new Error(`line 1: export format version ${String(version)} is not supported (expected 1).`);
  }
}

/** Parses and checks one event line; throws a message naming the line and the field. */
export function decodeEvent(line: string, lineNumber: number): StoredEvent {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new Error(`line ${lineNumber}: not valid JSON.`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`line ${lineNumber}: not an event object.`);
  }
  const bad = (field: string, expected: string) =>
    new Error(`line ${lineNumber}: ${field} must be ${expected}.`);
  const { websiteId, ts, visitor, kind, isVisit } = raw;
  if (typeof websiteId !== "number" || !Number.isSafeInteger(websiteId) || websiteId < 1) {
    throw bad("websiteId", "a positive integer");
  }
  const time = typeof ts === "string" ? new Date(ts) : new Date(Number.NaN);
  if (Number.isNaN(time.getTime())) throw bad("ts", "an ISO-8601 timestamp");
  if (typeof visitor !== "string" || !/^\d{1,20}$/.test(visitor) || BigInt(visitor) > MAX_VISITOR) {
    throw bad("visitor", "a decimal string of an unsigned 64-bit integer");
  }
  if (!EVENT_KINDS.includes(kind as EventKind)) throw bad("kind", `one of: ${EVENT_KINDS.join(", ")}`);
  if (typeof isVisit !== "boolean") throw bad("isVisit", "true or false");
  const event = { websiteId, ts: time, visitor: BigInt(visitor), kind, isVisit } as StoredEvent;
  for (const field of EVENT_TEXT_FIELDS) {
    const value = raw[field];
    if (typeof value !== "string") throw bad(field, "a string");
    event[field] = value;
  }
  return event;
}
