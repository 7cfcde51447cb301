// The grain of the stats page's chart (chart-points.ts): hours for one day, days up to 92,
// Monday-to-Sunday weeks up to 366, months beyond; weeks and months add up their days. And
// how the points read (date-labels.ts).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chartPoints, chartUnit } from "../src/pages/chart-points.js";
import { pointLabel, tickLabel } from "../src/pages/date-labels.js";
import { type DateRange, daysOf } from "../src/pages/date-range.js";
import type { DayPoint, HourPoint } from "../src/pages/page-model.js";

function range(from: string, to: string): DateRange {
  const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  return { from, to, days };
}

/** Every day of the range with counts that differ from day to day (visitors <= pageviews). */
function daysWithCounts(of: DateRange): DayPoint[] {
  return daysOf(of).map((day, index) => ({ day, visitors: (index % 5) + 1, pageviews: (index % 7) + 3 }));
}

const HOURS: HourPoint[] = Array.from({ length: 24 }, (_, index) => ({
  hour: String(index).padStart(2, "0"),
  visitors: index % 3,
  pageviews: index % 4,
}));

/** [visitors, pageviews] added up. */
function total(points: readonly { visitors: number; pageviews: number }[]): [number, number] {
  let visitors = 0;
  let pageviews = 0;
  for (const point of points) {
    visitors += point.visitors;
    pageviews += point.pageviews;
  }
  return [visitors, pageviews];
}

describe("chart points", () => {
  it("picks hours for one day, days up to 92, weeks up to 366, months beyond", () => {
    assert.deepEqual([1, 2, 30, 92, 93, 365, 366, 367, 731].map(chartUnit), [
      "hour",
      "day",
      "day",
      "day",
      "week",
      "week",
      "week",
      "month",
      "month",
    ]);
  });

  it("charts one day as its 24 hours", () => {
    const day = range("2026-04-01", "2026-04-01");
    const chart = chartPoints(day, daysWithCounts(day), HOURS);
    assert.equal(chart.unit, "hour");
    assert.equal(chart.points.length, 24);
    assert.deepEqual(chart.points[9], {
      key: "2026-04-01T09",
      from: "2026-04-01",
      to: "2026-04-01",
      hour: "09",
      visitors: 0,
      pageviews: 1,
    });
    assert.deepEqual(
      chart.points.map((point) => [point.visitors, point.pageviews]),
      HOURS.map((hour) => [hour.visitors, hour.pageviews]),
    );
  });

  it("charts 30 days as 30 days, as they are", () => {
    const days = range("2026-03-12", "2026-04-10");
    const series = daysWithCounts(days);
    const chart = chartPoints(days, series, HOURS);
    assert.equal(chart.unit, "day");
    assert.equal(chart.points.length, 30);
    assert.deepEqual(
      chart.points.map((point) => [point.key, point.visitors, point.pageviews]),
      series.map((point) => [point.day, point.visitors, point.pageviews]),
    );
  });

  it("charts 365 days as Monday-to-Sunday weeks that add up their days", () => {
    // 2025-04-11 is a Friday, 2026-04-10 too: 3 days, 51 whole weeks, then 5 days.
    const year = range("2025-04-11", "2026-04-10");
    const series = daysWithCounts(year);
    const chart = chartPoints(year, series, HOURS);
    assert.equal(chart.unit, "week");
    assert.equal(chart.points.length, 53);
    assert.equal(chart.points[0]?.key, "2025-04-11/2025-04-13");
    assert.equal(chart.points[1]?.key, "2025-04-14/2025-04-20");
    assert.equal(chart.points[52]?.key, "2026-04-06/2026-04-10");
    // The week across the new year stays one week.
    assert.ok(chart.points.some((point) => point.key === "2025-12-29/2026-01-04"));
    for (const point of chart.points) {
      const own = series.filter((day) => day.day >= point.from && day.day <= point.to);
      assert.equal(own.length, point === chart.points[0] ? 3 : point === chart.points[52] ? 5 : 7);
      assert.deepEqual([point.visitors, point.pageviews], total(own), point.key);
    }
    assert.deepEqual(total(chart.points), total(series));
  });

  it("charts two years as calendar months, the first and last cut by the range", () => {
    const twoYears = range("2024-04-10", "2026-04-09");
    assert.equal(twoYears.days, 730);
    const series = daysWithCounts(twoYears);
    const chart = chartPoints(twoYears, series, HOURS);
    assert.equal(chart.unit, "month");
    assert.equal(chart.points.length, 25);
    assert.equal(chart.points[0]?.key, "2024-04-10/2024-04-30");
    assert.equal(chart.points[10]?.key, "2025-02-01/2025-02-28");
    assert.equal(chart.points[24]?.key, "2026-04-01/2026-04-09");
    const february = series.filter((day) => day.day.startsWith("2025-02"));
    assert.deepEqual([chart.points[10]?.visitors, chart.points[10]?.pageviews], total(february));
    assert.deepEqual(total(chart.points), total(series));
  });

  it("names each point in full and on the axis", () => {
    const hour = {
      key: "2026-04-01T09",
      from: "2026-04-01",
      to: "2026-04-01",
      hour: "09",
      visitors: 0,
      pageviews: 0,
    };
    assert.equal(pointLabel("hour", hour), "Apr 1, 2026, 09:00–10:00");
    assert.equal(tickLabel("hour", hour), "09:00");
    const day = { ...hour, key: "2026-04-01", hour: undefined };
    assert.equal(pointLabel("day", day), "Apr 1, 2026");
    assert.equal(tickLabel("day", day), "Apr 1");
    const week = {
      key: "2025-12-29/2026-01-04",
      from: "2025-12-29",
      to: "2026-01-04",
      visitors: 0,
      pageviews: 0,
    };
    assert.equal(pointLabel("week", week).replace(/\s/g, " "), "Dec 29, 2025 – Jan 4, 2026");
    assert.equal(tickLabel("week", week), "Dec 29");
    const month = {
      key: "2025-02-01/2025-02-28",
      from: "2025-02-01",
      to: "2025-02-28",
      visitors: 0,
      pageviews: 0,
    };
    assert.equal(pointLabel("month", month), "February 2025");
    assert.equal(tickLabel("month", month), "Feb 2025");
    const partMonth = { ...month, key: "2026-04-01/2026-04-09", from: "2026-04-01", to: "2026-04-09" };
    assert.equal(pointLabel("month", partMonth).replace(/\s/g, " "), "April 2026 (Apr 1 – 9)");
  });
});
