// Resolves a page's host to the website tracking it, with its filters prepared (IP block
// list, excluded parameters). Lookups are cached for a few seconds, including misses, so a
// flood of hits for unknown hosts costs no database queries; changes made through this
// server are applied at once (invalidate), changes made elsewhere within the TTL.

import type { BlockList } from "node:net";
import type { Clock } from "../clock.js";
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

const TTL_MS = 10_000;
const MAX_ENTRIES = 50_000;

export class WebsiteDirectory {
  private readonly cache = new Map<string, { website: TrackedWebsite | null; expires: number }>();

  constructor(
    private readonly websites: WebsiteRepository,
    private readonly clock: Clock,
  ) {}

  async byHost(host: string): Promise<TrackedWebsite | null> {
    const cached = this.cached(host);
    if (cached !== undefined) return cached;
    const record = await this.websites.findByDomain(host);
    const website = record ? trackedWebsite(record) : null;
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(host, { website, expires: this.clock.now().getTime() + TTL_MS });
    return website;
  }

  /** The website (or null for none) as cached, or undefined when the cache cannot tell. */
  cached(host: string): TrackedWebsite | null | undefined {
    const cached = this.cache.get(host);
    return cached && cached.expires > this.clock.now().getTime() ? cached.website : undefined;
  }

  /**
   * The website as last looked up, even past its few seconds (null when unknown or never
   * looked up): a failed lookup leaves the entry as it was.
   */
  lastKnown(host: string): TrackedWebsite | null {
    return this.cache.get(host)?.website ?? null;
  }

  /** Forget a domain after its website was created, changed or deleted here. */
  invalidate(domain: string): void {
    this.cache.delete(domain);
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
