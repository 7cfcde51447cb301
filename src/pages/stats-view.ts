// A website's dashboard, the same for its owner and on its public, private or password page:
// the range picker, the filters as removable chips, the totals with their change against the
// period before, the chart of the range (trend-card.ts), one card per top list (each value a
// link that filters the whole dashboard by it) and the hours; or one list in full (search,
// pages, CSV). Rows carry their raw value and count as data attributes, so a script or a
// test can read exactly what the statistics API returns.

import type { DropNumbers } from "../stats/dropped-hits.js";
import { OPERATOR_WORDS, type StatsFilter } from "../stats/stats-filter.js";
import type { Totals } from "../stats/totals.js";
import { unicodeDomain } from "../unicode-domain.js";
import {
  COMPARISONS,
  type DashboardComparison,
  type DashboardState,
  dashboardHref,
  filterFor,
  withDetails,
  withFilter,
  withoutFilter,
  withPage,
  withRange,
  withUnit,
} from "./dashboard-state.js";
import { rangeLabel } from "./date-labels.js";
import type { RangePreset } from "./date-range.js";
import { type Html, html } from "./html.js";
import { type GeoSource, layout } from "./page-layout.js";
import { DETAIL_ROWS, type DetailsModel, type StatsPageModel, type TopList } from "./page-model.js";
import { pager } from "./pager.js";
import type { ListSpec } from "./stat-lists.js";
import { hoursChart, scaleFor, yAxis } from "./svg-chart.js";
import { trendCard } from "./trend-card.js";
import { labelOf, type ValueLabel } from "./value-labels.js";

export interface StatsViewOptions {
  presets: readonly RangePreset[];
  stylesheet: string;
  /** The page's own path, which every link and form of it keeps. */
  action: string;
  geo: GeoSource;
  /** What the header offers beside the title: a stats page's sign-out, the owner's links. */
  nav: Html | "";
  /** Above the page: the web app's header, on the owner's dashboard. */
  appBar?: Html | undefined;
  /** What was wrong with the request (the parts it names are shown at their defaults). */
  error?: string | undefined;
  /** Public pages may be indexed. */
  index: boolean;
}

const numbers = new Intl.NumberFormat("en-US");

/** How each filter dimension reads in a chip. */
const DIMENSION_LABELS: Record<string, string> = {
  page: "Page",
  landing_page: "Landing page",
  referrer: "Referrer",
  campaign: "Campaign",
  browser: "Browser",
  os: "Operating system",
  device: "Device",
  resolution: "Screen resolution",
  language: "Language",
  country: "Country",
  city: "City",
  continent: "Continent",
  event: "Event",
};

function stateOf(model: StatsPageModel | DetailsModel): DashboardState {
  return {
    range: model.range,
    filters: model.filters,
    details: "details" in model ? model.details : null,
    unit: model.unit,
    compare: model.compare,
    compareRange: model.compareRange,
  };
}

export function statsPage(model: StatsPageModel, options: StatsViewOptions): Html {
  const state = stateOf(model);
  return page(
    model,
    options,
    html`${totalsCards(model)}
${model.keptOut ? keptOutLine(model.keptOut) : ""}
${trendCard(model, (unit) => dashboardHref(options.action, withUnit(state, unit)))}
<div class="lists">
${model.lists.map((list) => listCard(list, state, options.action))}
${hoursCard(model)}
</div>`,
  );
}

export function detailsPage(model: DetailsModel, options: StatsViewOptions): Html {
  const state = stateOf(model);
  const { list, search } = model.details;
  const pages = Math.max(1, Math.ceil(model.total / DETAIL_ROWS));
  const csv = `${dashboardHref(options.action, withPage(state, 1))}&format=csv`;
  const largest = Math.max(1, ...model.rows.map((row) => row.count));
  const rows = model.rows.map((row) => valueRow(list, row.value, row.count, state, options.action, largest));
  const hidden = hiddenState(state, [
    "from",
    "to",
    "compare",
    "compare_from",
    "compare_to",
    "filters",
    "details",
  ]);
  return page(
    model,
    options,
    html`<section class="card details" id="details-${list.stat}" data-stat="${list.stat}" aria-labelledby="details-title">
<div class="card-head"><h2 id="details-title">${list.title}</h2>
<p class="links"><a href="${dashboardHref(options.action, withDetails(state, null))}">Back to the dashboard</a> <a href="${csv}" download>Download CSV</a></p></div>
<form class="search" method="get" action="${options.action}" role="search">${hidden}
<label class="visually-hidden" for="details-search">Search ${list.title.toLowerCase()}</label>
<input id="details-search" type="search" name="search" value="${search}" placeholder="Search ${list.title.toLowerCase()}">
<button type="submit">Search</button></form>
${
  model.rows.length === 0 && model.total > 0
    ? html`<p class="empty">There is no page ${model.details.page}: ${model.total === 1 ? "this value fills" : `these ${numbers.format(model.total)} values fill`} ${pages === 1 ? "1 page" : `${pages} pages`}. Go to <a href="${dashboardHref(options.action, withPage(state, pages))}">the last page</a>.</p>`
    : model.rows.length === 0
      ? html`<p class="empty">${search ? "Nothing matches this search in this range." : "Nothing recorded in this range."}</p>`
      : html`<p class="more">${numbers.format(model.total)} ${model.total === 1 ? "value" : "values"}${search ? html` matching the search` : ""}</p>
<table class="top"><thead><tr><th scope="col">${list.column}</th><th scope="col" class="count">${list.counts}</th></tr></thead><tbody>${rows}</tbody></table>
${pager(model.details.page, pages, (number) => dashboardHref(options.action, withPage(state, number)))}`
}
</section>`,
  );
}

function page(model: StatsPageModel | DetailsModel, options: StatsViewOptions, content: Html): Html {
  return layout({
    title: `${unicodeDomain(model.domain)}: statistics`,
    stylesheet: options.stylesheet,
    index: options.index && model.filters.length === 0 && !("details" in model),
    geo: options.geo,
    body: html`${options.appBar ?? ""}${header(model, options)}
<main class="wrap">
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
${filterChips(stateOf(model), options.action)}
${content}
</main>`,
  });
}

function header(model: StatsPageModel | DetailsModel, options: StatsViewOptions): Html {
  const state = stateOf(model);
  const presetLinks = options.presets.map((preset) => {
    const current = preset.range.from === model.range.from && preset.range.to === model.range.to;
    return html`<li><a href="${dashboardHref(options.action, withRange(state, preset.range))}"${current ? html` aria-current="true"` : ""}>${preset.label}</a></li>`;
  });
  const domain = unicodeDomain(model.domain);
  return html`<header class="top"><div class="wrap">
<div class="site"><h1><small>Statistics of</small><span class="domain" title="${domain}">${domain}</span></h1>
<p class="period">${rangeLabel(model.range)} (${model.zone})</p>${"now" in model ? nowLine(model.now) : ""}${options.nav}</div>
<div class="range">
<nav aria-label="Date ranges"><ul class="presets">${presetLinks}</ul></nav>
<form class="picker" method="get" action="${options.action}">
<label>From <input type="date" name="from" value="${model.range.from}" required></label>
<label>To <input type="date" name="to" value="${model.range.to}" required></label>
<label>Compare with <select name="compare">${COMPARISONS.map(
    (compare) =>
      html`<option value="${compare}"${compare === model.compare ? html` selected` : ""}>${COMPARISON_OPTIONS[compare]}</option>`,
  )}</select></label>${compareRangeFields(model)}${hiddenState(state, ["filters", "details"])}
<button type="submit">Show</button>
</form>
</div>
</div></header>`;
}

/** What each drop reason reads as, after the number of hits. */
const KEPT_OUT_REASONS: Record<Exclude<keyof DropNumbers, "total">, string> = {
  bot: "from bots",
  excluded_ip: "from excluded addresses",
  spam: "referrer spam",
  datacenter: "from data centres",
  invalid: "invalid events",
  rate_limited: "over the per-address limit",
  unavailable: "refused while the store could not write",
};

/** The owner's line of what collection dropped over the range (GET /api/v1/stats/{id}/dropped). */
function keptOutLine(dropped: DropNumbers): Html {
  const parts = (Object.keys(KEPT_OUT_REASONS) as (keyof typeof KEPT_OUT_REASONS)[])
    .filter((reason) => dropped[reason] > 0)
    .map((reason) => `${numbers.format(dropped[reason])} ${KEPT_OUT_REASONS[reason]}`);
  return html`<p class="kept-out" data-kept-out="${dropped.total}">${
    dropped.total === 0
      ? "No hit was kept out of these numbers."
      : `Kept out of these numbers: ${numbers.format(dropped.total)} ${dropped.total === 1 ? "hit" : "hits"} (${parts.join(", ")}).`
  }</p>`;
}

/** Who is on the website now (realtime, unfiltered). */
function nowLine(now: StatsPageModel["now"]): Html {
  const visitors = `${numbers.format(now.visitors)} ${now.visitors === 1 ? "visitor" : "visitors"}`;
  return html`<p class="now" data-now-visitors="${now.visitors}"><span class="dot${now.visitors > 0 ? " live" : ""}" aria-hidden="true"></span>${visitors} in the last 5 minutes · ${numbers.format(now.pageviews)} ${now.pageviews === 1 ? "pageview" : "pageviews"} in the last 30 minutes</p>`;
}

/** Hidden fields that keep the named parts of the state across a form of the page. */
function hiddenState(
  state: DashboardState,
  parts: readonly ("from" | "to" | "compare" | "compare_from" | "compare_to" | "filters" | "details")[],
): Html {
  const query = new URL(dashboardHref("/", state), "http://page").searchParams;
  return html`${parts.map((part) => {
    const value = query.get(part);
    return value === null ? "" : html`<input type="hidden" name="${part}" value="${value}">`;
  })}`;
}

function filterText(filter: StatsFilter): string {
  const whole = filter.operator === "is" || filter.operator === "is_not";
  const label = labelOf(
    filter.dimension.name === "landing_page" ? "page" : filter.dimension.column,
    filter.value,
  );
  const value = whole ? [label.text, label.detail].filter(Boolean).join(" ") : `“${filter.value}”`;
  return `${DIMENSION_LABELS[filter.dimension.name] ?? filter.dimension.name} ${OPERATOR_WORDS[filter.operator]} ${value}`;
}

function filterChips(state: DashboardState, action: string): Html | "" {
  if (state.filters.length === 0) return "";
  const chips = state.filters.map((filter, index) => {
    const text = filterText(filter);
    return html`<li class="chip" data-filter="${filter.dimension.name}"><span class="chip-text" title="${text}">${text}</span><a class="chip-remove" href="${dashboardHref(action, withoutFilter(state, index))}" aria-label="Remove filter: ${text}">×</a></li>`;
  });
  return html`<nav class="filters" aria-label="Filters"><span class="filters-label">Filtered by</span><ul>${chips}</ul>${
    state.filters.length > 1
      ? html`<a class="filters-clear" href="${dashboardHref(action, withoutFilter(state, null))}">Clear all</a>`
      : ""
  }</nav>`;
}

interface TotalSpec {
  key: keyof Totals;
  label: string;
  format: (value: number) => string;
  /** A rise is bad news (bounces): the change is coloured the other way. */
  lowerIsBetter?: boolean;
}

const TOTALS: readonly TotalSpec[] = [
  { key: "visitors", label: "Unique visitors", format: (value) => numbers.format(value) },
  { key: "visits", label: "Visits", format: (value) => numbers.format(value) },
  { key: "pageviews", label: "Pageviews", format: (value) => numbers.format(value) },
  { key: "views_per_visit", label: "Views per visit", format: (value) => value.toFixed(2) },
  {
    key: "bounce_rate",
    label: "Bounce rate",
    format: (value) => `${value.toFixed(1)}%`,
    lowerIsBetter: true,
  },
  { key: "visit_duration", label: "Visit duration", format: duration },
];

/** `42s`, `3m 05s`, `1h 02m`. */
function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}m ${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** The option of each comparison in the range picker. */
const COMPARISON_OPTIONS: Record<DashboardComparison, string> = {
  previous: "the period before",
  year: "a year before",
  range: "other days",
};

/** The days to compare with, in the picker when "other days" is chosen (prefilled with the period before). */
function compareRangeFields(model: StatsPageModel | DetailsModel): Html | "" {
  if (!model.compareRange) return "";
  return html`
<label>Compare from <input type="date" name="compare_from" value="${model.compareRange.from}" required></label>
<label>Compare to <input type="date" name="compare_to" value="${model.compareRange.to}" required></label>`;
}

/** The days compared with, as a change's context says them. */
function comparedDays(model: StatsPageModel): string {
  const { days } = model.range;
  if (model.compareRange) return rangeLabel(model.compareRange);
  if (model.compare === "year") return `the same ${days === 1 ? "day" : "days"} a year before`;
  return `the previous ${days === 1 ? "day" : `${days} days`}`;
}

function change(spec: TotalSpec, current: number | null, previous: number | null, before: string): Html {
  const period = html`<span class="vs"> vs ${before}</span>`;
  // A ratio of visits has no value in a period without visits.
  if (previous === null) {
    const none = html`<span class="vs"> (no visits in ${before})</span>`;
    if (current === null)
      return html`<span class="change">no visits<span class="vs"> in either period</span></span>`;
    return html`<span class="change">new${none}</span>`;
  }
  if (current === null)
    return html`<span class="change">no visits<span class="vs"> (some in ${before})</span></span>`;
  if (previous === 0 && current === 0) return html`<span class="change">no change${period}</span>`;
  const percent = previous === 0 ? null : Math.round(((current - previous) / previous) * 100);
  if (percent === 0) return html`<span class="change">no change${period}</span>`;
  const up = percent === null || percent > 0;
  const good = spec.lowerIsBetter ? !up : up;
  const amount = percent === null ? "new" : `${numbers.format(Math.abs(percent))}%`;
  const context = percent === null ? html`<span class="vs"> (none in ${before})</span>` : period;
  return html`<span class="change ${good ? "up" : "down"}"><span aria-hidden="true">${up ? "▲" : "▼"} </span><span class="visually-hidden">${up ? "up" : "down"} </span>${amount}${context}</span>`;
}

function totalsCards(model: StatsPageModel): Html {
  const { current, previous } = model.totals;
  const cards = TOTALS.map((spec) => {
    const value = current[spec.key];
    return html`<div class="card total" data-total="${spec.key}" data-value="${value ?? ""}"><div class="label">${spec.label}</div><div class="value">${value === null ? "–" : spec.format(value)}</div>${change(spec, value, previous[spec.key], comparedDays(model))}</div>`;
  });
  return html`<section class="totals" aria-label="Totals">
${cards}
</section>`;
}

/** A value's label, cut to its cell by the stylesheet; the title shows it whole on hover. */
function labelText(label: ValueLabel): Html {
  return html`<span class="name">${label.text}</span>${label.detail ? html`<span class="detail">${label.detail}</span>` : ""}`;
}

/**
 * One row of a list: its value (a link adding it as a filter, where the list filters) over a
 * bar of its share of the largest count, and the count.
 */
function valueRow(
  list: ListSpec,
  value: string,
  count: number,
  state: DashboardState,
  action: string,
  largest: number,
): Html {
  const label = labelOf(list.stat, value);
  const whole = label.detail ? `${label.text} ${label.detail}` : label.text;
  const filter = filterFor(list, value);
  const width = Math.max(0.5, (count / largest) * 100).toFixed(1);
  const text = filter
    ? html`<a class="text" href="${dashboardHref(action, withFilter(state, filter))}" title="${whole}: show only these">${labelText(label)}</a>`
    : html`<span class="text" title="${whole}">${labelText(label)}</span>`;
  return html`<tr data-value="${value}"><td class="name"><svg class="bar-bg" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true"><rect width="${width}" height="1"/></svg>${text}</td><td class="count" data-count="${count}">${numbers.format(count)}</td></tr>`;
}

function listCard(list: TopList, state: DashboardState, action: string): Html {
  const id = `list-${list.stat}`;
  const largest = Math.max(1, ...list.rows.map((row) => row.count));
  const rows = list.rows.map((row) => valueRow(list, row.value, row.count, state, action, largest));
  const body =
    list.rows.length === 0
      ? html`<p class="empty">Nothing recorded in this range.</p>`
      : html`<table class="top"><thead><tr><th scope="col">${list.column}</th><th scope="col" class="count">${list.counts}</th></tr></thead><tbody>${rows}</tbody></table>
<p class="more">${list.total > list.rows.length ? html`Top ${list.rows.length} of ${numbers.format(list.total)}. ` : ""}<a href="${dashboardHref(action, withDetails(state, list))}">All ${list.title.toLowerCase()}<span class="visually-hidden">: search, pages and CSV</span></a></p>`;
  return html`<section class="card list" id="${id}" data-stat="${list.stat}" aria-labelledby="${id}-title">
<h2 id="${id}-title">${list.title}</h2>
${body}
</section>`;
}

function hoursCard(model: StatsPageModel): Html {
  const scale = scaleFor(
    Math.max(0, ...model.hours.map((point) => Math.max(point.visitors, point.pageviews))),
  );
  const busiest = model.hours.reduce((best, point) => (point.pageviews > best.pageviews ? point : best));
  const summary =
    busiest.pageviews === 0
      ? "Pageviews per hour of day: none in this range."
      : `Pageviews per hour of day (${model.zone}); the busiest hour is ${busiest.hour}:00 with ${numbers.format(busiest.pageviews)} pageviews.`;
  return html`<section class="card hours" data-stat="hours" aria-labelledby="hours-title">
<div class="chart-head"><h2 id="hours-title">Hour of day (${model.zone})</h2>
<ul class="legend"><li class="visitors">Visitors</li><li class="pageviews">Pageviews</li></ul></div>
<div class="figure">${yAxis(scale)}${hoursChart(model.hours, scale, summary, model.zone)}
<div class="x-axis" aria-hidden="true"><span>00</span><span>06</span><span>12</span><span>18</span><span>24</span></div></div>
<details class="data"><summary>Numbers per hour</summary><div class="scroll"><table>
<thead><tr><th scope="col">Hour</th><th scope="col" class="count">Visitors</th><th scope="col" class="count">Pageviews</th></tr></thead>
<tbody>${model.hours.map(
    (point) =>
      html`<tr data-hour="${point.hour}"><td>${point.hour}:00</td><td class="count" data-visitors="${point.visitors}">${numbers.format(point.visitors)}</td><td class="count" data-pageviews="${point.pageviews}">${numbers.format(point.pageviews)}</td></tr>`,
  )}</tbody></table></div></details>
</section>`;
}
