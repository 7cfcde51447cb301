// The page URL of a hit: its host (which names the website), the `page` value (path and
// query after the website's excluded parameters, no fragment) and the campaign.

import { remembered } from "../enrich/remembered.js";
import type { TrackedWebsite } from "./website-directory.js";

export const MAX_PAGE_LENGTH = 2048;
export const MAX_VALUE_LENGTH = 255;

/** The parts of a page URL the pipeline reads, as the WHATWG URL parser normalises them. */
export interface PageUrl {
  readonly hostname: string;
  readonly pathname: string;
  readonly search: string;
}

/**
 * The URL of a tracked page, or null when it is not an absolute http(s) URL with a host.
 * Remembered by its text (remembered.ts): a site's hits come from a few thousand pages, and
 * parsing one costs about a microsecond. The answer is shared, hence frozen.
 */
export const parsePageUrl = remembered(parse);

function parse(raw: string): PageUrl | null {
  if (raw.length > 8192) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") return null;
  return Object.freeze({ hostname: url.hostname, pathname: url.pathname, search: url.search });
}

/** The host a website is registered under: lowercase, no `www.`, no trailing dot. */
export function websiteHost(url: PageUrl): string {
  let host = url.hostname;
  if (host.endsWith(".")) host = host.slice(0, -1);
  return host.startsWith("www.") ? host.slice(4) : host;
}

export function pageValue(
  url: PageUrl,
  website: Pick<TrackedWebsite, "excludedParams" | "stripQuery">,
): string {
  const query = website.stripQuery ? "" : keptQuery(url.search, website.excludedParams);
  return cut(readablePath(url.pathname) + (query ? `?${query}` : ""), MAX_PAGE_LENGTH);
}

export function campaignOf(url: PageUrl): string {
  // Most pages have none: look before parsing the query (the name may be escaped).
  if (!/utm(?:_|%5f)campaign/i.test(url.search)) return "";
  return cut(new URLSearchParams(url.search).get("utm_campaign")?.trim() ?? "", MAX_VALUE_LENGTH);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROLS = /[\u0000-\u001f\u007f]/g;

/**
 * A text value as stored (a campaign, referrer, browser, place, event name...): without
 * control characters, which no page shows and which would reach the dashboard's HTML and
 * the CSV downloads as they are (a NUL did), and at most `max` long.
 */
export function cut(value: string, max: number = MAX_VALUE_LENGTH): string {
  const shown = CONTROL.test(value) ? value.replace(CONTROLS, "") : value;
  return shown.length > max ? shown.slice(0, max) : shown;
}

/** The query string without excluded parameters, otherwise exactly as sent. */
function keptQuery(search: string, excluded: ReadonlySet<string> | null): string {
  const query = search.startsWith("?") ? search.slice(1) : search;
  if (!query || !excluded) return query;
  return query
    .split("&")
    .filter((pair) => pair !== "" && !excluded.has(safeDecode(pair.split("=", 1)[0] ?? "")))
    .join("&");
}

/** `/caf%C3%A9` reads `/café`; reserved characters such as %2F stay encoded (decodeURI). */
function readablePath(pathname: string): string {
  if (!pathname.includes("%")) return pathname; // nothing to decode; decodeURI would still scan and copy it
  try {
    const decoded = decodeURI(pathname);
    // A control character stays escaped (/a%00b), as the path named it, rather than raw.
    return CONTROL.test(decoded) ? decoded.replace(CONTROLS, encodeURIComponent) : decoded;
  } catch {
    return pathname;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
