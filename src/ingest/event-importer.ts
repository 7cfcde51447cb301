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
import { FieldErrorCollector } from "../errors.js";
import type { EventStore, StoredEvent, WebsiteRecord, WebsiteRepository } from "../storage/ports.js";
import { fromColumns } from "./event-columns.js";
import { DROP_REASONS, type DropReason, type HitEvent } from "./hit.js";
import type { ImportThreads } from "./import-threads.js";
import { type PageUrl, parsePageUrl } from "./page-url.js";
import type { IngestPipeline, ScreenedHit } from "./pipeline.js";
import type { SaltScope, VisitorHasher } from "./visitor-hasher.js";
import type { TrackedWebsite } from "./website-directory.js";

export const MAX_IMPORT_EVENTS = 10_000;
const FUTURE_TOLERANCE_MS = 5 * 60_000;

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
}

export interface ImportResult {
  accepted: number;
  dropped: Record<DropReason, number>;
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
      prepared = await job.prepare(owned, await this.visitors.keptSalts(), this.clock.now());
    } finally {
      job.forget();
    }
    await this.store.insert(fromColumns(prepared.columns));
    return { accepted: prepared.columns.count, dropped: prepared.dropped };
  }
}

/**
 * Checks, screens and enriches a batch whose websites are known (an import thread's work):
 * throws a ValidationError naming every bad event, or returns the events to store.
 */
export class ImportPreparer {
  constructor(private readonly pipeline: IngestPipeline) {}

  async prepare(
    events: readonly ImportEvent[],
    owned: ReadonlyMap<number, TrackedWebsite>,
    now: Date,
  ): Promise<{ events: StoredEvent[]; dropped: Record<DropReason, number> }> {
    const { urls, times } = validate(events, owned, now);
    const dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<
      DropReason,
      number
    >;
    const kept: ScreenedHit[] = [];
    for (let index = 0; index < events.length; index++) {
      const event = events[index] as ImportEvent;
      const screening = this.pipeline.screenFor(
        {
          page: event.page,
          referrer: event.referrer ?? "",
          screenResolution: event.screenResolution ?? "",
          event: event.event ?? null,
          ip: event.ip ?? "",
          userAgent: event.userAgent ?? "",
          acceptLanguage: event.acceptLanguage ?? "",
          ts: new Date(times[index] as number),
        },
        owned.get(event.websiteId) as TrackedWebsite,
        urls[index],
      );
      if (screening.kept) kept.push(screening.hit);
      else dropped[screening.reason] += 1;
    }
    const scope: SaltScope = new Map();
    return { events: await this.pipeline.enrich(kept, scope), dropped };
  }
}

/**
 * Checks what the schema cannot: ownership, real instants, absolute URLs, IP syntax.
 * Returns the page URLs and instants (ms) it parsed, so screening does not parse them again.
 */
function validate(
  events: readonly ImportEvent[],
  owned: ReadonlyMap<number, TrackedWebsite>,
  now: Date,
): { urls: (PageUrl | null)[]; times: Float64Array } {
  const errors = new FieldErrorCollector();
  const urls = new Array<PageUrl | null>(events.length);
  const times = new Float64Array(events.length);
  const latest = now.getTime() + FUTURE_TOLERANCE_MS;
  events.forEach((event, index) => {
    const field = (name: string) => `events.${index}.${name}`;
    if (!owned.has(event.websiteId)) {
      errors.add(field("website_id"), "The website id does not name one of your websites.");
    }
    const ts = Date.parse(event.ts);
    times[index] = ts;
    if (Number.isNaN(ts)) errors.add(field("ts"), "The ts must be an ISO-8601 date and time.");
    else if (ts > latest) errors.add(field("ts"), "The ts must not be in the future.");
    urls[index] = parsePageUrl(event.page);
    if (!urls[index]) errors.add(field("page"), "The page must be an absolute http or https URL.");
    if (event.ip !== undefined && event.ip !== "" && isIP(event.ip) === 0) {
      errors.add(field("ip"), "The ip must be an IPv4 or IPv6 address.");
    }
    if (event.event && String(event.event.name).replace(/:/g, " ").trim() === "") {
      errors.add(field("event.name"), "The event name must not be empty.");
    }
  });
  errors.throwIfAny();
  return { urls, times };
}
