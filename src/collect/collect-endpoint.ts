// What POST /api/event does with a hit, shared by the Fastify route (documented, used by
// inject tests) and the raw fast path (fast-collect.ts): read the payload, apply the
// per-address allowance, screen the hit, buffer a kept one (enriched when its batch is
// written), and say why a hit was dropped. The payload is checked here by hand, once, so
// both paths read it alike. The answer comes without waiting for every hit but those of a
// host this server has never looked up (website-directory.ts), unless the write buffer is
// backed up (it then answers when a write ends: back-pressure). While the event store
// cannot take writes, a hit the full buffer refuses is dropped as `unavailable`: it is
// never acknowledged as recorded; so is one of a host never looked up while the metadata
// store cannot answer. A dropped hit whose website is known is counted for it
// (drop-counter.ts), so its owner can see afterwards what was kept out and why.

import type { Clock } from "../clock.js";
import { StoreUnavailableError } from "../errors.js";
import type { CollectRateLimiter } from "../ingest/collect-rate-limiter.js";
import type { DropCounter } from "../ingest/drop-counter.js";
import type { CollectDropReason, HitEvent } from "../ingest/hit.js";
import type { IngestPipeline, ScreenedHit, Screening } from "../ingest/pipeline.js";
import type { WriteBuffer } from "../ingest/write-buffer.js";
import type { StoreFailureLog } from "../store-failure-log.js";

export const COLLECT_BODY_LIMIT = 16 * 1024;

/** The CORS header of every answer of the endpoint, so the tracker's page may read any of them. */
export const COLLECT_CORS = { "access-control-allow-origin": "*" } as const;

/**
 * Whether a body sent with this Content-Type is read: `application/json`, or `text/plain`
 * (sendBeacon's `text/plain;charset=UTF-8`, which needs no CORS preflight), any parameters
 * and case. Another type, or none, is not read, so the hit is dropped as invalid: the
 * endpoint answers 202 whatever happens to a hit, never 415 (CONTRACT.md section 5).
 */
export function readsContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*(?:application\/json|text\/plain)\s*(?:;|$)/i.test(contentType);
}

export interface HitContext {
  ip: string;
  userAgent: string;
  acceptLanguage: string;
}

interface Payload {
  page: string;
  referrer: string;
  screenResolution: string;
  event: HitEvent | null;
  engagement: boolean;
}

export class CollectEndpoint {
  constructor(
    private readonly pipeline: IngestPipeline,
    private readonly buffer: WriteBuffer<ScreenedHit>,
    private readonly limiter: CollectRateLimiter,
    private readonly clock: Clock,
    private readonly drops: DropCounter | null = null,
    private readonly storeFailures: StoreFailureLog | null = null,
  ) {}

  /** Records the hit; gives why it was dropped, or null when it was kept (a promise only when it must wait). */
  handle(body: unknown, context: HitContext): CollectDropReason | null | Promise<CollectDropReason | null> {
    const payload = readPayload(body);
    if (!payload) return "invalid";
    const now = this.clock.now();
    if (!this.limiter.allow(context.ip, now.getTime())) {
      const website = this.drops && this.pipeline.knownWebsite(payload.page);
      if (website) this.drops?.count(website, "rate_limited", now.getTime());
      return "rate_limited";
    }
    // Spelled out: spreading two objects into one cost about 3 µs a hit.
    const screening = this.pipeline.screenPublic({
      page: payload.page,
      referrer: payload.referrer,
      screenResolution: payload.screenResolution,
      event: payload.event,
      engagement: payload.engagement,
      ip: context.ip,
      userAgent: context.userAgent,
      acceptLanguage: context.acceptLanguage,
      ts: now,
    });
    if (!(screening instanceof Promise)) return this.keep(screening);
    return screening.then(
      (s) => this.keep(s),
      (error: unknown) => this.notLookedUp(error),
    );
  }

  /**
   * The hit's host, never looked up before, could not be looked up: while the metadata
   * store cannot answer, the hit is dropped as `unavailable` (a tracker does not retry, so a
   * 500 would say nothing more); no website can be named to count it for. Any other error
   * goes on.
   */
  private notLookedUp(error: unknown): "unavailable" {
    if (!(error instanceof StoreUnavailableError)) throw error;
    this.storeFailures?.refused(error);
    return "unavailable";
  }

  /** Null once buffered; a promise when the buffer asks for a pause (back-pressure). */
  private keep(screening: Screening): CollectDropReason | null | Promise<CollectDropReason | null> {
    if (!screening.kept) {
      const { reason, website } = screening;
      if (website && reason !== "unknown_website")
        this.drops?.count(website, reason, this.clock.now().getTime());
      return reason;
    }
    const { hit } = screening;
    const kept = this.buffer.add(hit);
    if (kept === true) return null;
    if (kept === false) return this.unavailable(hit);
    return kept.then((taken) => (taken ? null : this.unavailable(hit)));
  }

  private unavailable(hit: ScreenedHit): "unavailable" {
    this.drops?.count(hit.website, "unavailable", hit.ts.getTime());
    return "unavailable";
  }
}

/** The tracker's JSON body, or null when it is not one. Optional fields of the wrong type are ignored. */
export function readPayload(body: unknown): Payload | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const {
    page,
    referrer,
    screen_resolution: resolution,
    event,
    engagement,
  } = body as Record<string, unknown>;
  if (typeof page !== "string") return null;
  let hitEvent: HitEvent | null = null;
  if (event !== undefined && event !== null) {
    if (typeof event !== "object" || Array.isArray(event)) return null;
    const { name, value, unit } = event as Record<string, unknown>;
    if (typeof name !== "string") return null;
    hitEvent = {
      name,
      value: typeof value === "string" || typeof value === "number" ? value : undefined,
      unit: typeof unit === "string" ? unit : undefined,
    };
  }
  return {
    page,
    referrer: typeof referrer === "string" ? referrer : "",
    screenResolution: typeof resolution === "string" ? resolution : "",
    event: hitEvent,
    engagement: engagement === true || engagement === 1,
  };
}
