// Resolves a page's host to the website tracking it, with its filters prepared (IP block
// list, excluded parameters), from memory, so that a hit waits for the metadata store only
// for a host this server has never looked up:
// - An answer older than 10 seconds is still given, while one lookup in the background
//   refreshes it: changes made on another server apply within seconds, those made through
//   this server at once (invalidate). So while the metadata store cannot answer, hits for
//   every host looked up since the start are screened as before and recorded (the last
//   answer stands, asked again every 10 seconds), and a store that does not answer at all
//   (a black-holed PostgreSQL holds a connection attempt 5 seconds) delays none of them.
// - Hits for a host never looked up wait for its lookup, one per host however many hits
//   ask, and at most MAX_PENDING hosts at once: a flood of made-up hosts against a store
//   that does not answer would otherwise hold a request each for those 5 seconds.
// - Websites and misses (hosts no website tracks) are kept apart: misses are forgotten all
//   at once when 50,000, so a flood of unknown hosts costs that much memory at most and
//   never pushes a website out. Websites are as many as the store holds.

import type { BlockList } from "node:net";
import type { Clock } from "../clock.js";
import { StoreUnavailableError } from "../errors.js";
import { ipBlockList } from "../ip-block-list.js";
import { type ZoneRule, zoneRule } from "../stats/time-zone.js";
import type { WebsiteRecord, WebsiteRepository } from "../storage/ports.js";

export interface TrackedWebsite {
  id: number;
  domain: string;
  excludeBots: boolean;
  excludeDatacenters: boolean;
  excludedIps: BlockList | null;
  excludedParams: ReadonlySet<string> | null;
  /** exclude_params holds `&`: drop the whole query string. */
  stripQuery: boolean;
  /** The website's time zone: a visitor's salt is that of the hit's local date. */
  zone: ZoneRule;
}

/** How long an answer is taken as current; an older one is refreshed (and a failed refresh tried again) after it. */
const TTL_MS = 10_000;
const MAX_MISSES = 50_000;
/** Hosts being looked up at once, beyond which a new host's hit is not looked up (dropped as unavailable). */
export const MAX_PENDING = 1_000;

interface Entry {
  website: TrackedWebsite | null;
  /** When to look the host up again. */
  expires: number;
}

export class WebsiteDirectory {
  private readonly websites = new Map<string, Entry>();
  private readonly misses = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<TrackedWebsite | null>>();

  constructor(
    private readonly repository: WebsiteRepository,
    private readonly clock: Clock,
    /** A background refresh failed; its host keeps its last answer. */
    private readonly onRefreshError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * The website of `host` as last looked up (null when no website tracks it), or undefined
   * when it never was; an answer past its 10 seconds is refreshed in the background.
   */
  known(host: string): TrackedWebsite | null | undefined {
    const entry = this.websites.get(host) ?? this.misses.get(host);
    if (!entry) return undefined;
    if (entry.expires <= this.clock.now().getTime() && !this.pending.has(host)) this.refresh(host, entry);
    return entry.website;
  }

  /** The website of `host` as last looked up, without refreshing it (null when unknown or never looked up). */
  lastKnown(host: string): TrackedWebsite | null {
    return this.websites.get(host)?.website ?? null;
  }

  /**
   * Looks `host` up in the metadata store: hits asking at once share one lookup. Rejects
   * with StoreUnavailableError while the store cannot answer, or while MAX_PENDING other
   * hosts are being looked up.
   */
  lookUp(host: string): Promise<TrackedWebsite | null> {
    const waiting = this.pending.get(host);
    if (waiting) return waiting;
    if (this.pending.size >= MAX_PENDING) {
      return Promise.reject(
        new StoreUnavailableError("metadata", `${MAX_PENDING} hosts are already being looked up`),
      );
    }
    const lookup = this.repository.findByDomain(host).then((record) => {
      const website = record ? trackedWebsite(record) : null;
      // An invalidation meanwhile made this answer stale: the next hit looks the host up again.
      if (this.pending.get(host) === lookup) this.remember(host, website);
      return website;
    });
    this.pending.set(host, lookup);
    const done = () => {
      if (this.pending.get(host) === lookup) this.pending.delete(host);
    };
    lookup.then(done, done);
    return lookup;
  }

  /** Forget a domain after its website was created, changed or deleted here. */
  invalidate(domain: string): void {
    this.websites.delete(domain);
    this.misses.delete(domain);
    this.pending.delete(domain);
  }

  private refresh(host: string, entry: Entry): void {
    this.lookUp(host).catch((error: unknown) => {
      entry.expires = this.clock.now().getTime() + TTL_MS;
      this.onRefreshError(error);
    });
  }

  private remember(host: string, website: TrackedWebsite | null): void {
    const entry = { website, expires: this.clock.now().getTime() + TTL_MS };
    if (website) {
      this.misses.delete(host);
      this.websites.set(host, entry);
      return;
    }
    this.websites.delete(host);
    if (this.misses.size >= MAX_MISSES) this.misses.clear();
    this.misses.set(host, entry);
  }
}

export function trackedWebsite(record: WebsiteRecord): TrackedWebsite {
  const params = record.excludeParams?.split("\n") ?? [];
  return {
    id: record.id,
    domain: record.domain,
    excludeBots: record.excludeBots === 1,
    excludeDatacenters: record.excludeDatacenters === 1,
    excludedIps: record.excludeIps ? ipBlockList(record.excludeIps.split("\n")) : null,
    excludedParams: params.length > 0 ? new Set(params.filter((p) => p !== "&")) : null,
    stripQuery: params.includes("&"),
    zone: zoneRule(record.timezone),
  };
}
