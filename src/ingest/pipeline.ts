// The ingest pipeline: an ordered list of named steps from a raw hit to an enriched event
// or a typed drop reason. parse page -> resolve website -> excluded IP -> bot -> enrich
// (page, campaign, referrer and visit, user agent, geo, language, resolution, event) ->
// visitor id. Raw IPs and user agents are used here and never stored.

import { isIP } from "node:net";
import type { GeoLookup } from "../enrich/geo.js";
import { primaryLanguage, referrerHost } from "../enrich/referrer.js";
import type { UserAgentClassifier } from "../enrich/user-agent.js";
import { drop, type Hit, type HitEvent, type IngestOutcome } from "./hit.js";
import { campaignOf, cut, pageValue, parsePageUrl, websiteHost } from "./page-url.js";
import type { SaltScope, VisitorHasher } from "./visitor-hasher.js";
import type { TrackedWebsite, WebsiteDirectory } from "./website-directory.js";

const RESOLUTION = /^(\d{1,5})x(\d{1,5})$/;

export interface PipelineParts {
  directory: WebsiteDirectory;
  userAgents: UserAgentClassifier;
  geo: GeoLookup;
  visitors: VisitorHasher;
}

export class IngestPipeline {
  constructor(private readonly parts: PipelineParts) {}

  /** A hit from the public endpoint: the website is the page's host. */
  async processPublic(hit: Hit): Promise<IngestOutcome> {
    const url = parsePageUrl(hit.page);
    if (!url) return drop("invalid");
    const website = await this.parts.directory.byHost(websiteHost(url));
    if (!website) return drop("unknown_website");
    return this.process(hit, url, website);
  }

  /** A hit whose website is already known (the authenticated events API). */
  async processFor(hit: Hit, website: TrackedWebsite, scope: SaltScope): Promise<IngestOutcome> {
    const url = parsePageUrl(hit.page);
    if (!url) return drop("invalid");
    return this.process(hit, url, website, scope);
  }

  private async process(
    hit: Hit,
    url: URL,
    website: TrackedWebsite,
    scope?: SaltScope,
  ): Promise<IngestOutcome> {
    const ip = clientIp(hit.ip);
    if (website.excludedIps && ip && website.excludedIps.check(ip, isIP(ip) === 4 ? "ipv4" : "ipv6")) {
      return drop("excluded_ip");
    }
    const agent = this.parts.userAgents.classify(hit.userAgent);
    if (website.excludeBots && agent.bot) return drop("bot");
    const event = hit.event ? eventValue(hit.event) : "";
    if (event === null) return drop("invalid");

    const referrer = referrerHost(hit.referrer);
    const kind = hit.event ? "event" : "pageview";
    const isVisit = kind === "pageview" && referrer !== website.domain;
    const location = await this.parts.geo.lookup(ip);
    return {
      kept: true,
      event: {
        websiteId: website.id,
        ts: hit.ts,
        visitor: await this.parts.visitors.visitorId(hit.ts, website.id, ip, hit.userAgent, scope),
        kind,
        isVisit,
        page: pageValue(url, website),
        // Referrer and campaign describe how a visit began; they count for nothing else.
        referrer: isVisit ? cut(referrer) : "",
        campaign: isVisit ? campaignOf(url) : "",
        browser: cut(agent.browser),
        os: cut(agent.os),
        device: agent.device,
        resolution: RESOLUTION.test(hit.screenResolution) ? hit.screenResolution : "",
        language: primaryLanguage(hit.acceptLanguage),
        country: location.country,
        city: cut(location.city),
        continent: location.continent,
        event,
      },
    };
  }
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
