// Server-rendered SVG charts: visitors and pageviews per day (areas and lines) and per hour
// of day (bars). The plot stretches to any width (preserveAspectRatio="none", strokes that
// do not scale), so labels live in HTML around it and stay readable on a phone. Each day or
// hour has a hover target with a <title>, so tooltips need no script.

import { type Html, html } from "./html.js";
import type { DayPoint, HourPoint } from "./page-model.js";

const HEIGHT = 100;
const STEP = 10;

export interface Scale {
  /** The top of the axis: a round number at or above the largest value. */
  max: number;
  ticks: number[];
}

/** A round, even axis top at or above the largest value, and three ticks. */
export function scaleFor(largest: number): Scale {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(1, largest)));
  const max =
    [1, 2, 4, 6, 8, 10].map((m) => m * magnitude).find((m) => m >= largest && m % 2 === 0) ?? 10 * magnitude;
  return { max, ticks: [0, max / 2, max] };
}

function y(value: number, max: number): number {
  return round(HEIGHT - (value / max) * HEIGHT);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function linePath(values: readonly number[], max: number): string {
  // One day alone is drawn as a level line across the plot.
  const points = values.length === 1 ? [values[0] ?? 0, values[0] ?? 0] : values;
  return points.map((value, index) => `${index === 0 ? "M" : "L"}${index * STEP} ${y(value, max)}`).join("");
}

function areaPath(values: readonly number[], max: number): string {
  const width = Math.max(1, values.length - 1) * STEP;
  return `${linePath(values, max)}L${width} ${HEIGHT}L0 ${HEIGHT}Z`;
}

function gridLines(scale: Scale, width: number): Html {
  return html`${scale.ticks.map((tick) => {
    const at = y(tick, scale.max);
    return html`<line class="grid" x1="0" x2="${width}" y1="${at}" y2="${at}" vector-effect="non-scaling-stroke"/>`;
  })}`;
}

/** Areas of pageviews and visitors per day; `summary` labels it for screen readers. */
export function dailyChart(series: readonly DayPoint[], scale: Scale, summary: string): Html {
  const width = Math.max(1, series.length - 1) * STEP;
  const pageviews = series.map((point) => point.pageviews);
  const visitors = series.map((point) => point.visitors);
  const slot = series.length === 1 ? width : STEP;
  const targets = series.map((point, index) => {
    const left = series.length === 1 ? 0 : Math.max(0, index * STEP - STEP / 2);
    const right = series.length === 1 ? width : Math.min(width, index * STEP + STEP / 2);
    return html`<rect class="hit" x="${left}" y="0" width="${right - left || slot}" height="${HEIGHT}"><title>${point.day}: ${point.visitors} visitors, ${point.pageviews} pageviews</title></rect>`;
  });
  return html`<svg class="plot" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${summary}">
${gridLines(scale, width)}
<path class="area pageviews" d="${areaPath(pageviews, scale.max)}"/>
<path class="line pageviews" d="${linePath(pageviews, scale.max)}" vector-effect="non-scaling-stroke"/>
<path class="area visitors" d="${areaPath(visitors, scale.max)}"/>
<path class="line visitors" d="${linePath(visitors, scale.max)}" vector-effect="non-scaling-stroke"/>
${targets}
</svg>`;
}

/** Bars of pageviews with visitors in front, one pair per hour of day. */
export function hoursChart(hours: readonly HourPoint[], scale: Scale, summary: string): Html {
  const width = hours.length * STEP;
  const bars = hours.map((point, index) => {
    const x = index * STEP;
    const pageviewsTop = y(point.pageviews, scale.max);
    const visitorsTop = y(point.visitors, scale.max);
    return html`<g><title>${point.hour}:00 UTC: ${point.visitors} visitors, ${point.pageviews} pageviews</title>
<rect class="bar pageviews" x="${x + 1}" y="${pageviewsTop}" width="${STEP - 2}" height="${round(HEIGHT - pageviewsTop)}"/>
<rect class="bar visitors" x="${x + 2.5}" y="${visitorsTop}" width="${STEP - 5}" height="${round(HEIGHT - visitorsTop)}"/>
<rect class="hit" x="${x}" y="0" width="${STEP}" height="${HEIGHT}"/></g>`;
  });
  return html`<svg class="plot" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${summary}">
${gridLines(scale, width)}
${bars}
</svg>`;
}
