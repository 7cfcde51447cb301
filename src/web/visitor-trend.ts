// A website's trend for the list of websites: its unique visitors of the last 30 days of its
// own time zone (today included), each day's, and the change against the 30 days before,
// from the `visitors` statistic of days, so the figures are the statistics' own (a range's
// visitors are its days' unique visitors added up). One read of 60 days per website.

import type { Clock } from "../clock.js";
import { addDays, dayOf } from "../stats/day-rule.js";
import { ALL_ROWS } from "../stats/stats-query.js";
import type { StatsService } from "../stats/stats-service.js";
import { zoneRule } from "../stats/time-zone.js";
import type { WebsiteRecord } from "../storage/ports.js";

export const TREND_DAYS = 30;

export interface VisitorTrend {
  /** Visitors of the last TREND_DAYS days. */
  visitors: number;
  /** Visitors of the TREND_DAYS days before those. */
  before: number;
  /** Each of the last TREND_DAYS days' visitors, oldest first. */
  daily: number[];
}

export async function visitorTrend(
  stats: StatsService,
  clock: Clock,
  website: WebsiteRecord,
): Promise<VisitorTrend> {
  const today = dayOf(zoneRule(website.timezone).wallClock(clock.now()));
  const from = addDays(today, 1 - 2 * TREND_DAYS);
  const page = await stats.read(website.userId, website.id, {
    name: "visitors",
    from,
    to: today,
    sortBy: "value",
    sort: "asc",
    perPage: ALL_ROWS,
    page: 1,
  });
  const byDay = new Map(page.rows.map((row) => [row.value, row.count]));
  const days = Array.from({ length: 2 * TREND_DAYS }, (_, i) => byDay.get(addDays(from, i)) ?? 0);
  const daily = days.slice(TREND_DAYS);
  const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
  return { visitors: sum(daily), before: sum(days.slice(0, TREND_DAYS)), daily };
}
