// Seeded randomness for the randomized store tests, so a failure can be replayed: a small
// generator (mulberry32), a pick from a list, geolocations as the pipeline makes them
// (city and continent agree with the country), and whole random events.

import type { StoredEvent } from "../../src/storage/ports.js";

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(next: () => number, items: readonly T[]): T =>
  items[Math.floor(next() * items.length)] as T;

export const LOCATIONS = [
  { country: "US:United States", city: "US:Boston", continent: "NA:North America" },
  { country: "US:United States", city: "", continent: "NA:North America" },
  { country: "DE:Germany", city: "DE:Berlin", continent: "EU:Europe" },
  { country: "", city: "", continent: "" },
] as const;

/** The attributes a visitor keeps: those of its user agent, address and browser settings. */
function visitorAttributes(next: () => number) {
  return {
    browser: pick(next, ["Chrome", "Safari"]),
    os: pick(next, ["Windows", "iOS"]),
    device: pick(next, ["desktop", "mobile"]),
    // Language and resolution may change within a visitor's day; the rest rarely do.
    resolution: pick(next, ["1920x1080", "390x844"]),
    language: pick(next, ["en", "de", "fr"]),
    ...pick(next, LOCATIONS),
  };
}

/**
 * `count` random events (pageviews, custom events, engagements) of websites 1 and 2 over `days` days from `start` (ms), with the
 * visitor `visitor()` gives; values include what SQL escaping must survive (`%`, `_`,
 * capitals, `:` in custom events). The visitor's attributes (browser, place...) are drawn
 * for each event; with `mixed`, each visitor keeps its own but for that share of its events,
 * drawn anew (which mixes the visitor's day).
 */
export function randomEvents(
  next: () => number,
  count: number,
  options: { start: number; days: number; visitor: () => bigint; mixed?: number },
): StoredEvent[] {
  return Array.from({ length: count }, () => {
    const kindDraw = next();
    const kind = kindDraw < 0.1 ? "event" : kindDraw < 0.2 ? "engagement" : "pageview";
    const isEvent = kind !== "pageview";
    let second = Math.floor(next() * options.days * 86_400);
    // Some on a coarse grid, so that a visitor's events share a second.
    if (next() < 0.2) second -= second % 600;
    // In the order of the draws before `mixed` existed, so that every seed gives the same events.
    const websiteId = pick(next, [1, 2]);
    const visitor = options.visitor();
    const isVisit = !isEvent && next() < 0.5;
    const page = pick(next, ["/", "/a", "/B", "/c?x=1", "/100%_off"]);
    const referrer = pick(next, ["", "google.com", "t.co"]);
    const campaign = pick(next, ["", "", "spring"]);
    const attributes =
      options.mixed === undefined || next() < options.mixed
        ? visitorAttributes(next)
        : visitorAttributes(random(Number(visitor % 1_000_003n) + 1));
    return {
      websiteId,
      ts: new Date(options.start + second * 1000),
      visitor,
      kind,
      isVisit,
      page,
      referrer,
      campaign,
      ...attributes,
      event: kind === "event" ? pick(next, ["Buy:9.5:EUR", "Signup::"]) : "",
    };
  });
}
