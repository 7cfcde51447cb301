// The ingest pipeline: an ordered list of named steps from a raw hit to an enriched event
// or a typed drop reason, in two stages.
//
// screen: parse page -> resolve website -> excluded IP -> bot -> referrer spam -> data
//   centre -> event name. Everything a drop reason depends on, so the collection endpoint
//   can answer once it is done; it runs without waiting whenever the website is cached.
// enrich: page, campaign, referrer and visit, user agent, geo, language, resolution, event,
//   visitor id. Run on a whole batch when it is written (write-buffer.ts): one tight loop
//   over a thousand hits keeps its caches warm, where interleaved with HTTP work each step
//   costs several times as much.
//
// Raw IPs and user agents are used here and never stored.

import { isIP } from "node:net";
import { setImmediate as setImmediatePromise } from "node:timers/promises";
import type { DatacenterRanges } from "../enrich/datacenter-ranges.js";
import type { GeoLookup } from "../enrich/geo.js";
import { primaryLanguage, referrerHost } from "../enrich/referrer.js";
import type { ReferrerSpamList } from "../enrich/referrer-spam.js";
import type { UserAgentClassifier, UserAgentInfo } from "../enrich/user-agent.js";
import type { StoredEvent } from "../storage/ports.js";
import type { DropReason, Hit, HitEvent } from "./hit.js";
import { campaignOf, cut, pageValue, parsePageUrl, websiteHost } from "./page-url.js";
import type { VisitorIds } from "./visitor-hasher.js";
import type { TrackedWebsite, WebsiteDirectory } from "./website-directory.js";

const RESOLUTION = /^(\d{1,5})x(\d{1,5})$/;
/** Hits enriched between two yields to the event loop, so hits arriving meanwhile are answered. */
const STEP_HITS = 256;

export interface PipelineParts {
  /** Page hosts to websites (only public hits are resolved by host). */
  directory: Pick<WebsiteDirectory, "known" | "lookUp" | "lastKnown">;
  userAgents: UserAgentClassifier;
  geo: GeoLookup;
  visitors: VisitorIds;
  /** Referrer spammers' hosts (collection only: imports are the owner's own history). */
  spam?: ReferrerSpamList;
  /** Data-centre networks' addresses (collection only, as spam). */
  datacenters?: Pick<DatacenterRanges, "has">;
}

/**
 * A hit that passed screening: what enrichment needs, raw address and user agent included.
 * Flat and small, as it waits in the write buffer: the page's URL object is reduced to the
 * two values kept from it (a buffered hit is copied by every garbage collection it lives
 * through, and those pauses are the collection endpoint's slowest answers).
 */
export interface ScreenedHit {
  websiteId: number;
  website: TrackedWebsite;
  ts: Date;
  /** The page value: path and kept query. */
  page: string;
  /** The page URL's `utm_campaign`, "" when none. */
  campaign: string;
  /** As sent. */
  referrer: string;
  screenResolution: string;
  acceptLanguage: string;
  /** The client address, normalised ("" when there is none). */
  ip: string;
  userAgent: string;
  agent: UserAgentInfo;
  /** `name:value:unit` of a custom event, "" for a pageview or an engagement. */
  event: string;
  engagement: boolean;
}

/** A kept hit, or why it was dropped and, when known, the website it was for. */
export type Screening =
  | { kept: true; hit: ScreenedHit }
  | { kept: false; reason: DropReason; website: TrackedWebsite | null };

const dropped = (reason: DropReason, website: TrackedWebsite | null = null): Screening => ({
  kept: false,
  reason,
  website,
});

export class IngestPipeline {
  constructor(private readonly parts: PipelineParts) {}

  /** A hit from the public endpoint, whose website is the page's host; waits only to look a new host up. */
  screenPublic(hit: Hit): Screening | Promise<Screening> {
    const url = parsePageUrl(hit.page);
    if (!url) return dropped("invalid");
    const host = websiteHost(url);
    const known = this.parts.directory.known(host);
    if (known !== undefined) return this.screenFor(hit, known, url);
    return this.parts.directory.lookUp(host).then((website) => this.screenFor(hit, website, url));
  }

  /**
   * The website of a page URL as last looked up, without looking it up (null when unknown
   * or never looked up): what a hit refused before screening (rate limited) is counted for,
   * at no cost to a flood.
   */
  knownWebsite(page: string): TrackedWebsite | null {
    const url = parsePageUrl(page);
    return url ? this.parts.directory.lastKnown(websiteHost(url)) : null;
  }

  /** A hit whose website is known (the authenticated events API), or null for none. */
  screenFor(hit: Hit, website: TrackedWebsite | null, url = parsePageUrl(hit.page)): Screening {
    if (!url) return dropped("invalid");
    if (!website) return dropped("unknown_website");
    const ip = clientIp(hit.ip);
    if (website.excludedIps && ip && website.excludedIps.check(ip, isIP(ip) === 4 ? "ipv4" : "ipv6")) {
      return dropped("excluded_ip", website);
    }
    const agent = this.parts.userAgents.classify(hit.userAgent);
    if (website.excludeBots && agent.bot) return dropped("bot", website);
    if (this.parts.spam?.has(referrerHost(hit.referrer))) return dropped("spam", website);
    if (website.excludeDatacenters && this.parts.datacenters?.has(ip)) return dropped("datacenter", website);
    const event = hit.event ? eventValue(hit.event) : "";
    if (event === null) return dropped("invalid", website);
    return {
      kept: true,
      hit: {
        websiteId: website.id,
        website,
        ts: hit.ts,
        page: pageValue(url, website),
        campaign: campaignOf(url),
        referrer: hit.referrer,
        screenResolution: hit.screenResolution,
        acceptLanguage: hit.acceptLanguage,
        ip,
        userAgent: hit.userAgent,
        agent,
        event,
        engagement: hit.engagement && event === "",
      },
    };
  }

  /**
   * The events of screened hits, in order. Waits only for what is not loaded yet (a
   * geolocation database, the salt of a new day).
   */
  async enrich(hits: readonly ScreenedHit[]): Promise<StoredEvent[]> {
    const { geo, visitors } = this.parts;
    const events = new Array<StoredEvent>(hits.length);
    for (let i = 0; i < hits.length; i++) {
      if (i > 0 && i % STEP_HITS === 0) await setImmediatePromise();
      const hit = hits[i] as ScreenedHit;
      const { ts, websiteId, ip, userAgent } = hit;
      const location = geo.lookupNow(ip) ?? (await geo.lookup(ip));
      const day = hit.website.zone.dayOf(ts.getTime());
      const visitor =
        visitors.visitorIdNow(day, websiteId, ip, userAgent) ??
        (await visitors.visitorId(day, websiteId, ip, userAgent));
      events[i] = enriched(hit, location, visitor);
    }
    return events;
  }
}

function enriched(
  hit: ScreenedHit,
  location: { country: string; city: string; continent: string },
  visitor: bigint,
): StoredEvent {
  const { website, agent, event } = hit;
  const referrer = referrerHost(hit.referrer);
  const kind = event !== "" ? "event" : hit.engagement ? "engagement" : "pageview";
  const isVisit = kind === "pageview" && referrer !== website.domain;
  return {
    websiteId: website.id,
    ts: hit.ts,
    visitor,
    kind,
    isVisit,
    page: hit.page,
    // Referrer and campaign describe how a visit began; they count for nothing else.
    referrer: isVisit ? cut(referrer) : "",
    campaign: isVisit ? hit.campaign : "",
    browser: cut(agent.browser),
    os: cut(agent.os),
    device: agent.device,
    resolution: RESOLUTION.test(hit.screenResolution) ? hit.screenResolution : "",
    language: primaryLanguage(hit.acceptLanguage),
    country: location.country,
    city: cut(location.city),
    continent: location.continent,
    event,
  };
}

/** IPv4 addresses reach a dual-stack socket as `::ffff:1.2.3.4`; unwrap them. */
export function clientIp(raw: string): string {
  const ip = raw.startsWith("::ffff:") && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
  return isIP(ip) ? ip.toLowerCase() : "";
}

/**
 * `name:value:unit`, as the original product keeps custom events: `:` in the name becomes a
 * space, the value is kept only if numeric, > 0 and at most 10 characters, the unit only if
 * at most 32 characters. Null when there is no name.
 */
export function eventValue(event: HitEvent): string | null {
  const name = cut(
    String(event.name ?? "")
      .replace(/:/g, " ")
      .trim(),
    200,
  );
  if (name === "") return null;
  const rawValue = event.value === undefined || event.value === null ? "" : String(event.value).trim();
  const value =
    rawValue.length <= 10 && /^\d+(\.\d+)?$/.test(rawValue) && Number(rawValue) > 0 ? rawValue : "";
  const rawUnit = String(event.unit ?? "")
    .replace(/:/g, " ")
    .trim();
  const unit = rawUnit.length <= 32 ? rawUnit : "";
  return `${name}:${value}:${unit}`;
}
