// A website's time zone (an IANA name) as the statistics use it: the UTC offset in force at
// each instant, the instants where it changes, and the local days and hours that follow.
// Node's time zone data (Intl) is the only tz database: engines are given offsets and
// bounds as numbers, so DuckDB, ClickHouse 18.16 and a current ClickHouse count the same
// local days whatever their own tz data.
//
// A local day is the local date of the instant (its UTC time plus the offset in force), so
// a daylight-saving day has 23 or 25 hours; its events are the instants from the first one
// showing that date to the first one showing the next.

import { createRequire } from "node:module";
import { accept, type RuleResult, reject } from "../field-rule.js";

export const DEFAULT_TIME_ZONE = "UTC";

const DAY_S = 86_400;
const DAY_MS = 86_400_000;

/** An offset in force from `start` (ms since the epoch) until the next segment's start. */
export interface OffsetSegment {
  start: number;
  /** Seconds to add to UTC for local time. */
  offset: number;
}

/** Zone names by their lowercase form, to spell a name given in any case as the database does. */
let listedZones: Map<string, string> | null = null;

/**
 * Every zone name as the IANA database spells it: Intl's list, which keeps some old names
 * (Asia/Calcutta, Europe/Kiev), and @vvo/tzdb's current names with the old ones they
 * replace (Asia/Kolkata, Europe/Kyiv, US/Eastern), so `asia/kolkata` is stored as
 * Asia/Kolkata rather than as typed. Loaded on the first zone checked.
 */
function zoneSpellings(): Map<string, string> {
  const tzdb = createRequire(import.meta.url)("@vvo/tzdb") as typeof import("@vvo/tzdb");
  const names = [
    ...Intl.supportedValuesOf("timeZone"),
    DEFAULT_TIME_ZONE,
    ...tzdb.getTimeZones({ includeUtc: true }).flatMap((zone) => [zone.name, ...zone.group]),
  ];
  return new Map(names.map((name) => [name.toLowerCase(), name]));
}

let zonesByCurrentName: string[] | null = null;

/**
 * The zones to choose from: each zone Intl knows once, under its current name where the
 * database renamed it (Asia/Kolkata, Europe/Kyiv, America/Nuuk rather than the Asia/Calcutta,
 * Europe/Kiev and America/Godthab Node's Intl still lists), UTC first, the rest sorted.
 * Made once, on the first form that offers them (about 90 ms: a format per zone).
 */
export function offeredZones(): readonly string[] {
  if (zonesByCurrentName) return zonesByCurrentName;
  const tzdb = createRequire(import.meta.url)("@vvo/tzdb") as typeof import("@vvo/tzdb");
  const canonical = (name: string) =>
    new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  // Intl's name for each zone -> the database's current name for it, when they differ.
  const renamed = new Map<string, string>();
  for (const zone of tzdb.getTimeZones()) {
    const listed = canonical(zone.name);
    if (listed !== zone.name) renamed.set(listed, zone.name);
  }
  const names = Intl.supportedValuesOf("timeZone")
    .filter((name) => name !== DEFAULT_TIME_ZONE)
    .map((name) => renamed.get(name) ?? name)
    .sort();
  zonesByCurrentName = [DEFAULT_TIME_ZONE, ...new Set(names)];
  return zonesByCurrentName;
}

/**
 * The time zone setting: an IANA name Intl knows, spelt as the database spells it
 * (europe/berlin is Europe/Berlin, asia/kolkata Asia/Kolkata), else as given. A newer name
 * (Asia/Kolkata) is kept rather than replaced by the old one Node's Intl still lists.
 */
export function parseTimeZone(raw: string, label: string): RuleResult {
  // Intl also takes "+05:00" on newer releases: only names, so what is stored is a zone
  // whose offsets follow its laws.
  if (/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(raw)) {
    try {
      const resolved = new Intl.DateTimeFormat("en-US", { timeZone: raw }).resolvedOptions().timeZone;
      listedZones ??= zoneSpellings();
      // Intl's own spelling serves the names neither list has (Etc/GMT+5) when it is the
      // same name; for a link it gives the zone linked to, which is not what was chosen.
      const sameName = resolved.toLowerCase() === raw.toLowerCase() ? resolved : raw;
      return accept(listedZones.get(raw.toLowerCase()) ?? sameName);
    } catch {
      // not a zone: the message below
    }
  }
  return reject(`The ${label} must be a time zone name of the IANA database, such as Europe/Berlin or UTC.`);
}

/** The offsets and local days of one time zone. Rules are shared: use zoneRule(). */
export class ZoneRule {
  private readonly format: Intl.DateTimeFormat;
  private readonly fixed: boolean;
  /** Per UTC year, the segments starting in it (the first one at the year's start). */
  private readonly years = new Map<number, OffsetSegment[]>();
  /** The local day last asked for, so a batch of events of one day costs no Intl call each. */
  private lastDay = { from: 0, to: 0, day: 0 };

  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    this.fixed = name === "UTC" || name === "Etc/UTC" || name === "GMT";
  }

  /** True when the offset is always 0: every engine's fast UTC path applies. */
  get isUtc(): boolean {
    return this.fixed;
  }

  /** The offset (seconds) in force at `ms`. */
  offsetAt(ms: number): number {
    if (this.fixed) return 0;
    const second = Math.floor(ms / 1000) * 1000;
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(second)) parts[part.type] = Number(part.value);
    const local = Date.UTC(
      parts.year as number,
      (parts.month as number) - 1,
      parts.day as number,
      parts.hour as number,
      parts.minute as number,
      parts.second as number,
    );
    return Math.round((local - second) / 1000);
  }

  /** The segments of offsets covering [fromMs, toMs): the first starts at fromMs. */
  segments(fromMs: number, toMs: number): OffsetSegment[] {
    if (this.fixed) return [{ start: fromMs, offset: 0 }];
    const result: OffsetSegment[] = [{ start: fromMs, offset: this.offsetAt(fromMs) }];
    const firstYear = new Date(fromMs).getUTCFullYear();
    const lastYear = new Date(Math.max(fromMs, toMs - 1)).getUTCFullYear();
    for (let year = firstYear; year <= lastYear; year++) {
      for (const change of this.changesIn(year)) {
        if (change.start > fromMs && change.start < toMs) result.push(change);
      }
    }
    return result;
  }

  /** The first instant (ms) of the local day `day` (days since 1970-01-01). */
  dayStart(day: number): number {
    const midnight = day * DAY_S;
    // The local day's first instant lies within 26 hours of its midnight read as UTC.
    const around = this.segments(midnight * 1000 - 2 * DAY_MS, midnight * 1000 + 2 * DAY_MS);
    for (let index = 0; index < around.length; index++) {
      const segment = around[index] as OffsetSegment;
      const end = around[index + 1]?.start ?? Number.POSITIVE_INFINITY;
      // Local time within a segment is its UTC time plus the offset: the first instant at
      // or after local midnight, if the segment reaches it (a gap may skip midnight).
      const first = Math.max(segment.start, (midnight - segment.offset) * 1000);
      if (first < end) return first;
    }
    throw new Error(`no local midnight found for day ${day} in ${this.name}`);
  }

  /** The local day (days since 1970-01-01) of the instant `ms`. */
  dayOf(ms: number): number {
    const last = this.lastDay;
    if (ms >= last.from && ms < last.to) return last.day;
    const day = Math.floor((Math.floor(ms / 1000) + this.offsetAt(ms)) / DAY_S);
    this.lastDay = { from: this.dayStart(day), to: this.dayStart(day + 1), day };
    return day;
  }

  /** The local hour of day (0-23) of the instant `ms`. */
  hourOf(ms: number): number {
    return Math.floor((Math.floor(ms / 1000) + this.offsetAt(ms)) / 3600) % 24;
  }

  /**
   * The wall clock at `instant`: a Date whose UTC fields read the local date and time, for
   * date arithmetic in the zone (today's local date is dayOf(wallClock(now)) of day-rule.ts).
   */
  wallClock(instant: Date): Date {
    return new Date(instant.getTime() + this.offsetAt(instant.getTime()) * 1000);
  }

  /** The local date (YYYY-MM-DD) of the instant `ms`. */
  dateOf(ms: number): string {
    return new Date(this.dayOf(ms) * DAY_MS).toISOString().slice(0, 10);
  }

  /** The UTC instants (ms) of the local days `from` to `to` (YYYY-MM-DD, inclusive): [start, end). */
  rangeOf(from: string, to: string): { start: number; end: number } {
    return {
      start: this.dayStart(Date.parse(`${from}T00:00:00Z`) / DAY_MS),
      end: this.dayStart(Date.parse(`${to}T00:00:00Z`) / DAY_MS + 1),
    };
  }

  /**
   * The offset changes of a UTC year: the offset is read every day, and between two days
   * that differ the change is found to the second. (Zones change at most a few times a
   * year, never twice within a day.)
   */
  private changesIn(year: number): OffsetSegment[] {
    let changes = this.years.get(year);
    if (changes) return changes;
    changes = [];
    const end = Date.UTC(year + 1, 0, 1);
    let at = Date.UTC(year, 0, 1);
    let offset = this.offsetAt(at - 1000);
    for (; at <= end; at += DAY_MS) {
      const next = this.offsetAt(at);
      if (next === offset) continue;
      let [low, high] = [Math.max(at - DAY_MS, Date.UTC(year, 0, 1) - 1000), at]; // offset(low) old, offset(high) new
      while (high - low > 1000) {
        const middle = low + Math.floor((high - low) / 2000) * 1000;
        if (this.offsetAt(middle) === offset) low = middle;
        else high = middle;
      }
      if (high < end) changes.push({ start: high, offset: next });
      offset = next;
    }
    this.years.set(year, changes);
    return changes;
  }
}

const rules = new Map<string, ZoneRule>();

/** The shared rule of a zone Intl knows (parseTimeZone checked it). */
export function zoneRule(name: string): ZoneRule {
  let rule = rules.get(name);
  if (!rule) {
    rule = new ZoneRule(name);
    rules.set(name, rule);
  }
  return rule;
}
