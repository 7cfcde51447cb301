// The authenticated events API (server-side tracking and imports): validates a whole batch
// first (every event must be well-formed and name one of the caller's websites), then runs
// each through the ingest pipeline and stores the kept ones in one transaction before
// answering, so an acknowledged batch is durable. All or nothing.
//
// The per-event work (reading the body, checking, screening and enriching each event) runs
// on an import thread (import-threads.ts, ImportPreparer below); this thread looks up the
// websites and salts the batch needs and stores the events, so a large import neither
// holds up the hits answered meanwhile nor leaves the other cores idle.

import { isIP } from "node:net";
import type { Clock } from "../clock.js";
import type { FieldErrors } from "../errors.js";
import { EARLIEST_DAY } from "../stats/day-rule.js";
import { zoneRule } from "../stats/time-zone.js";
import { EventColumnsBuilder } from "../storage/event-columns.js";
import type { EventColumns, EventStore, WebsiteRecord, WebsiteRepository } from "../storage/ports.js";
import { type HitEvent, IMPORT_DROP_REASONS, type ImportDropReason, isImportDropReason } from "./hit.js";
import { ImportErrors } from "./import-errors.js";
import type { ImportThreads } from "./import-threads.js";
import { type PageUrl, parsePageUrl } from "./page-url.js";
import type { IngestPipeline, ScreenedHit } from "./pipeline.js";
import type { VisitorHasher } from "./visitor-hasher.js";
import type { TrackedWebsite } from "./website-directory.js";

export const MAX_IMPORT_EVENTS = 10_000;
const FUTURE_TOLERANCE_MS = 5 * 60_000;
/** Events taken from checks to columns at a time (see ImportPreparer). */
const PREPARE_SLICE = 256;

export interface ImportEvent {
  websiteId: number;
  ts: string;
  page: string;
  referrer?: string | undefined;
  screenResolution?: string | undefined;
  ip?: string | undefined;
  userAgent?: string | undefined;
  acceptLanguage?: string | undefined;
  event?: HitEvent | undefined;
  engagement?: boolean | undefined;
}

/**
 * What the body's schema found wrong with some events, by index: each one's invalid fields
 * (relative to the event: `page`, `event.name`; "" when the event is not an object) with
 * their sentences. The checks below still run on these events' other fields.
 */
export type SchemaRejections = ReadonlyMap<number, FieldErrors>;

/** The websites a batch names, to look up: those of events whose website_id the schema took. */
export function namedWebsites(events: readonly ImportEvent[], rejected: SchemaRejections): number[] {
  const ids = new Set<number>();
  events.forEach((event, index) => {
    const schema = rejected.get(index);
    if (!schema || !("" in schema || "website_id" in schema)) ids.add(event.websiteId);
  });
  return [...ids];
}

export interface ImportResult {
  accepted: number;
  dropped: Record<ImportDropReason, number>;
}

export class EventImporter {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly visitors: VisitorHasher,
    private readonly threads: ImportThreads,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Imports a request body (JSON bytes); throws ImportBodyError or ValidationError for bad input. */
  async importBody(userId: number, body: Uint8Array): Promise<ImportResult> {
    const job = await this.threads.read(body);
    let prepared: Awaited<ReturnType<typeof job.prepare>>;
    try {
      const owned: WebsiteRecord[] = [];
      for (const id of job.websiteIds) {
        const record = await this.websites.find(userId, id);
        if (record) owned.push(record);
      }
      // The salts of the batch's days, from the metadata store, so every request of an
      // import (on any server) counts a visitor once a day. Days too far ahead get none:
      // their events are refused.
      const now = this.clock.now();
      const latest = now.getTime() + FUTURE_TOLERANCE_MS;
      const salts = await this.visitors.saltsFor(localDays(job.instants, latest, owned));
      prepared = await job.prepare(owned, salts, now);
    } finally {
      job.forget();
    }
    await this.store.insert(prepared.columns);
    return { accepted: prepared.columns.count, dropped: prepared.dropped };
  }
}

/**
 * The days whose salts an import's events may need: each instant's local date in the zone
 * of each website the body names (the thread that reads the body does not say which event
 * is whose), except instants too far ahead (their events are refused).
 */
function localDays(instants: Float64Array, latest: number, websites: readonly WebsiteRecord[]): Set<number> {
  const days = new Set<number>();
  for (const zone of new Set(websites.map((website) => website.timezone))) {
    const rule = zoneRule(zone);
    for (const instant of instants) if (instant <= latest) days.add(rule.dayOf(instant));
  }
  return days;
}

/**
 * Checks, screens and enriches a batch whose websites are known (an import thread's work):
 * throws a ValidationError naming every bad event (with the schema's findings, `rejected`),
 * or returns the events to store as columns. The batch goes a slice at a time from checks
 * to columns, so what a slice makes on the way dies young (all of it kept to the end had
 * every collection copy it).
 */
export class ImportPreparer {
  constructor(private readonly pipeline: IngestPipeline) {}

  async prepare(
    events: readonly ImportEvent[],
    rejected: SchemaRejections,
    owned: ReadonlyMap<number, TrackedWebsite>,
    now: Date,
    /** Each event's `Date.parse(ts)`, as the thread computed it when reading the body. */
    instants: Float64Array,
  ): Promise<{ columns: EventColumns; transfer: ArrayBuffer[]; dropped: Record<ImportDropReason, number> }> {
    const errors = new ImportErrors();
    const latest = now.getTime() + FUTURE_TOLERANCE_MS;
    const dropped = Object.fromEntries(IMPORT_DROP_REASONS.map((reason) => [reason, 0])) as Record<
      ImportDropReason,
      number
    >;
    const columns = new EventColumnsBuilder(events.length);
    for (let start = 0; start < events.length; start += PREPARE_SLICE) {
      const kept: ScreenedHit[] = [];
      for (let index = start; index < Math.min(events.length, start + PREPARE_SLICE); index++) {
        const event = events[index] as ImportEvent;
        const schema = rejected.get(index);
        if (schema) errors.addEvent(index, schema);
        const checked = check(event, index, owned, latest, errors, schema, instants[index] as number);
        // Past the first bad event (or in a batch the schema refused some of), only checks go on.
        if (!checked || !errors.empty || rejected.size > 0) continue;
        const screening = this.pipeline.screenFor(
          {
            page: event.page,
            referrer: event.referrer ?? "",
            screenResolution: event.screenResolution ?? "",
            event: event.event ?? null,
            engagement: event.engagement === true,
            ip: event.ip ?? "",
            userAgent: event.userAgent ?? "",
            acceptLanguage: event.acceptLanguage ?? "",
            ts: new Date(checked.ts),
          },
          owned.get(event.websiteId) as TrackedWebsite,
          checked.url,
        );
        if (screening.kept) kept.push(screening.hit);
        // (never a collection-only reason: the import's pipeline has no such screens)
        else if (isImportDropReason(screening.reason)) dropped[screening.reason] += 1;
      }
      if (kept.length > 0) for (const stored of await this.pipeline.enrich(kept)) columns.add(stored);
    }
    errors.throwIfAny();
    return { ...columns.build(), dropped };
  }
}

/**
 * Checks what the schema cannot: ownership, real instants (`instant` is the event's ts
 * parsed when the body was read), absolute URLs, IP syntax. Gives the page URL it parsed
 * and the instant, so screening does not parse them again, or null
 * when `errors` got something or the schema refused the event. A field the schema refused
 * (`schema`) is not checked again: its value may not even have the type checked here.
 */
function check(
  event: ImportEvent,
  index: number,
  owned: ReadonlyMap<number, TrackedWebsite>,
  latest: number,
  errors: ImportErrors,
  schema: FieldErrors | undefined,
  instant: number,
): { url: PageUrl; ts: number } | null {
  if (schema && "" in schema) return null; // not an object: no field to check
  const valid = (name: string) => schema === undefined || !(name in schema);
  let ok = schema === undefined;
  const fail = (name: string, message: string) => {
    errors.add(`events.${index}.${name}`, message);
    ok = false;
  };
  if (valid("website_id") && !owned.has(event.websiteId)) {
    fail("website_id", "The website id does not name one of your websites.");
  }
  let ts = Number.NaN;
  if (valid("ts")) {
    ts = instant;
    if (Number.isNaN(ts)) fail("ts", "The ts must be an ISO-8601 date and time.");
    else if (ts > latest) fail("ts", "The ts must not be in the future.");
    // Days are counted from 1970 everywhere (the stores' day numbers are unsigned), as the
    // statistics' ranges start there (day-rule.ts): in the website's time zone, where its
    // days are (1970-01-01T00:00Z is 31 December 1969 in New York, a day no range names).
    else if (ts < Date.parse(`${EARLIEST_DAY}T00:00:00Z`))
      fail("ts", `The ts must not be before ${EARLIEST_DAY}.`);
    else {
      const zone = owned.get(event.websiteId)?.zone;
      if (zone && zone.dayOf(ts) < 0)
        fail("ts", `The ts must not be before ${EARLIEST_DAY} in the website's time zone (${zone.name}).`);
    }
  }
  const url = valid("page") ? parsePageUrl(event.page) : null;
  if (valid("page") && !url) fail("page", "The page must be an absolute http or https URL.");
  if (valid("ip") && event.ip !== undefined && event.ip !== "" && isIP(event.ip) === 0) {
    fail("ip", "The ip must be an IPv4 or IPv6 address.");
  }
  if (
    valid("event") &&
    valid("event.name") &&
    event.event &&
    String(event.event.name).replace(/:/g, " ").trim() === ""
  ) {
    fail("event.name", "The event name must not be empty.");
  }
  return ok && url ? { url, ts } : null;
}
