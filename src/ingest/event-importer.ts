// The authenticated events API (server-side tracking and imports): validates a whole batch
// first (every event must be well-formed and name one of the caller's websites), then runs
// each through the ingest pipeline and stores the kept ones in one transaction before
// answering, so an acknowledged batch is durable. All or nothing.

import { isIP } from "node:net";
import type { Clock } from "../clock.js";
import { FieldErrorCollector } from "../errors.js";
import type { EventStore, WebsiteRepository } from "../storage/ports.js";
import { DROP_REASONS, type DropReason, type HitEvent } from "./hit.js";
import { type PageUrl, parsePageUrl } from "./page-url.js";
import type { IngestPipeline, ScreenedHit } from "./pipeline.js";
import type { SaltScope } from "./visitor-hasher.js";
import { type TrackedWebsite, trackedWebsite } from "./website-directory.js";

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
    private readonly pipeline: IngestPipeline,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async import(userId: number, events: readonly ImportEvent[]): Promise<ImportResult> {
    const owned = await this.ownedWebsites(userId, events);
    const { urls, times } = this.validate(events, owned);
    const dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<
      DropReason,
      number
    >;
    const kept: ScreenedHit[] = [];
    events.forEach((event, index) => {
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
    });
    const scope: SaltScope = new Map();
    await this.store.insert(await this.pipeline.enrich(kept, scope));
    return { accepted: kept.length, dropped };
  }

  private async ownedWebsites(userId: number, events: readonly ImportEvent[]) {
    const owned = new Map<number, TrackedWebsite>();
    for (const id of new Set(events.map((event) => event.websiteId))) {
      const record = await this.websites.find(userId, id);
      if (record) owned.set(id, trackedWebsite(record));
    }
    return owned;
  }

  /**
   * Checks what the schema cannot: ownership, real instants, absolute URLs, IP syntax.
   * Returns the page URLs and instants (ms) it parsed, so screening does not parse them again.
   */
  private validate(
    events: readonly ImportEvent[],
    owned: Map<number, TrackedWebsite>,
  ): { urls: (PageUrl | null)[]; times: Float64Array } {
    const errors = new FieldErrorCollector();
    const urls = new Array<PageUrl | null>(events.length);
    const times = new Float64Array(events.length);
    const latest = this.clock.now().getTime() + FUTURE_TOLERANCE_MS;
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
}
