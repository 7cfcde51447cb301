// Server-rendered SVG charts: visitors and pageviews over the range (areas and lines) and per
// hour of day (bars). The plot stretches to any width (preserveAspectRatio="none", strokes
// that do not scale), so labels live around it: numbers in HTML, dates in an SVG of their own
// placed by percentages, which no inline style could do under the CSP. Each point or hour has
// a hover target with a <title>, so tooltips need no script.

import { type Html, html } from "./html.js";
import type { HourPoint } from "./page-model.js";

const HEIGHT = 100;
const STEP = 10;
const numbers = new Intl.NumberFormat("en-US");

/** One point of the line chart; `label` names what it covers in its tooltip. */
export interface TrendPoint {
  label: string;
  visitors: number;
  pageviews: number;
}

/** A label under the line chart at `at` (0 is the first point, 1 the last). */
export interface Tick {
  at: number;
  text: string;
  /** Left out on narrow screens, where only the others fit. */
  minor: boolean;
}

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
  // A single point is drawn as a level line across the plot.
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

/** Areas of pageviews and visitors over the range; `summary` labels it for screen readers. */
export function trendChart(series: readonly TrendPoint[], scale: Scale, summary: string): Html {
  const width = Math.max(1, series.length - 1) * STEP;
  const pageviews = series.map((point) => point.pageviews);
  const visitors = series.map((point) => point.visitors);
  const slot = series.length === 1 ? width : STEP;
  const targets = series.map((point, index) => {
    const left = series.length === 1 ? 0 : Math.max(0, index * STEP - STEP / 2);
    const right = series.length === 1 ? width : Math.min(width, index * STEP + STEP / 2);
    return html`<rect class="hit" x="${left}" y="0" width="${right - left || slot}" height="${HEIGHT}"><title>${point.label}: ${numbers.format(point.visitors)} visitors, ${numbers.format(point.pageviews)} pageviews</title></rect>`;
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

/** The numbers beside a plot, bottom to top. */
export function yAxis(scale: Scale): Html {
  return html`<div class="y-axis" aria-hidden="true">${scale.ticks.map((tick) => html`<span>${numbers.format(tick)}</span>`)}</div>`;
}

/**
 * Labels under the line chart, each at its point: the first starts there, the last ends
 * there and the others are centred on theirs, so none reaches past the plot.
 */
export function xAxis(ticks: readonly Tick[]): Html {
  const labels = ticks.map((tick) => {
    const anchor = tick.at === 0 ? "start" : tick.at === 1 ? "end" : "middle";
    return html`<text${tick.minor ? html` class="minor"` : ""} x="${round(tick.at * 100)}%" y="12" text-anchor="${anchor}">${tick.text}</text>`;
  });
  return html`<svg class="x-labels" aria-hidden="true">${labels}</svg>`;
}

/** Bars of pageviews with visitors in front, one pair per hour of day. */
export function hoursChart(hours: readonly HourPoint[], scale: Scale, summary: string, zone: string): Html {
  const width = hours.length * STEP;
  const bars = hours.map((point, index) => {
    const x = index * STEP;
    const pageviewsTop = y(point.pageviews, scale.max);
    const visitorsTop = y(point.visitors, scale.max);
    return html`<g><title>${point.hour}:00 ${zone}: ${point.visitors} visitors, ${point.pageviews} pageviews</title>
<rect class="bar pageviews" x="${x + 1}" y="${pageviewsTop}" width="${STEP - 2}" height="${round(HEIGHT - pageviewsTop)}"/>
<rect class="bar visitors" x="${x + 2.5}" y="${visitorsTop}" width="${STEP - 5}" height="${round(HEIGHT - visitorsTop)}"/>
<rect class="hit" x="${x}" y="0" width="${STEP}" height="${HEIGHT}"/></g>`;
  });
  return html`<svg class="plot" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${summary}">
${gridLines(scale, width)}
${bars}
</svg>`;
}
