// The stats page itself: the range picker, the totals with their change against the period
// before, the chart of the range (trend-card.ts), one card per top list and the hours. Rows
// carry their raw value and count as data attributes, so a script or a test can read
// exactly what the statistics API returns.

import { unicodeDomain } from "../unicode-domain.js";
import { rangeLabel } from "./date-labels.js";
import type { DateRange, RangePreset } from "./date-range.js";
import { type Html, html } from "./html.js";
import { type GeoSource, layout } from "./page-layout.js";
import type { StatsPageModel, TopList, Total } from "./page-model.js";
import { hoursChart, scaleFor, yAxis } from "./svg-chart.js";
import { trendCard } from "./trend-card.js";
import { labelOf, type ValueLabel } from "./value-labels.js";

export interface StatsViewOptions {
  model: StatsPageModel;
  presets: readonly RangePreset[];
  stylesheet: string;
  /** The page's own path, for the picker and the presets. */
  action: string;
  geo: GeoSource;
  /** Shows "Sign out" when the page was opened with a cookie. */
  signedIn: boolean;
  /** A problem with the requested range (the default range is shown instead). */
  error?: string | undefined;
  /** Public pages may be indexed. */
  index: boolean;
}

const numbers = new Intl.NumberFormat("en-US");
const decimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

function rangeHref(action: string, range: DateRange): string {
  return `${action}?${new URLSearchParams({ from: range.from, to: range.to })}`;
}

export function statsPage(options: StatsViewOptions): Html {
  const { model } = options;
  return layout({
    title: `${unicodeDomain(model.domain)}: statistics`,
    stylesheet: options.stylesheet,
    index: options.index,
    geo: options.geo,
    body: html`${header(options)}
<main class="wrap">
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
${totals(model)}
${trendCard(model)}
<div class="lists">
${model.lists.map(listCard)}
${hoursCard(model)}
</div>
</main>`,
  });
}

function header({ model, presets, action, signedIn }: StatsViewOptions): Html {
  const presetLinks = presets.map((preset) => {
    const current = preset.range.from === model.range.from && preset.range.to === model.range.to;
    return html`<li><a href="${rangeHref(action, preset.range)}"${current ? html` aria-current="true"` : ""}>${preset.label}</a></li>`;
  });
  return html`<header class="top"><div class="wrap">
<div class="site"><h1><small>Statistics of</small><span class="domain" title="${unicodeDomain(model.domain)}">${unicodeDomain(model.domain)}</span></h1>
<p class="period">${rangeLabel(model.range)} (UTC)</p>${
    signedIn
      ? html`<form class="signout" method="post" action="${action}"><input type="hidden" name="sign_out" value="1"><button type="submit">Sign out</button></form>`
      : ""
  }</div>
<div class="range">
<nav aria-label="Date ranges"><ul class="presets">${presetLinks}</ul></nav>
<form class="picker" method="get" action="${action}">
<label>From <input type="date" name="from" value="${model.range.from}" required></label>
<label>To <input type="date" name="to" value="${model.range.to}" required></label>
<button type="submit">Show</button>
</form>
</div>
</div></header>`;
}

function change(total: Total, days: number): Html {
  const previous = `the previous ${days === 1 ? "day" : `${days} days`}`;
  const period = html`<span class="vs"> vs ${previous}</span>`;
  if (total.previous === 0 && total.current === 0)
    return html`<span class="change">no change${period}</span>`;
  const percent =
    total.previous === 0 ? null : Math.round(((total.current - total.previous) / total.previous) * 100);
  if (percent === 0) return html`<span class="change">no change${period}</span>`;
  const up = percent === null || percent > 0;
  const amount = percent === null ? "new" : `${numbers.format(Math.abs(percent))}%`;
  const context = percent === null ? html`<span class="vs"> (none in ${previous})</span>` : period;
  return html`<span class="change ${up ? "up" : "down"}"><span aria-hidden="true">${up ? "▲" : "▼"} </span><span class="visually-hidden">${up ? "up" : "down"} </span>${amount}${context}</span>`;
}

function totals(model: StatsPageModel): Html {
  const ratio = (pageviews: number, visitors: number) => (visitors === 0 ? 0 : pageviews / visitors);
  const views: Total = {
    current: ratio(model.pageviews.current, model.visitors.current),
    previous: ratio(model.pageviews.previous, model.visitors.previous),
  };
  const card = (label: string, name: string, value: string, total: Total) =>
    html`<div class="card total" data-total="${name}"><div class="label">${label}</div><div class="value">${value}</div>${change(total, model.range.days)}</div>`;
  return html`<section class="totals" aria-label="Totals">
${card("Unique visitors", "visitors", numbers.format(model.visitors.current), model.visitors)}
${card("Pageviews", "pageviews", numbers.format(model.pageviews.current), model.pageviews)}
${card("Views per visitor", "views_per_visitor", decimals.format(views.current), views)}
</section>`;
}

/** A value's label, cut to its cell by the stylesheet; the title shows it whole on hover. */
function labelText(label: ValueLabel): Html {
  const whole = label.detail ? `${label.text} ${label.detail}` : label.text;
  return html`<span class="text" title="${whole}"><span class="name">${label.text}</span>${label.detail ? html`<span class="detail">${label.detail}</span>` : ""}</span>`;
}

function listCard(list: TopList): Html {
  const id = `list-${list.stat}`;
  const largest = Math.max(1, ...list.rows.map((row) => row.count));
  const rows = list.rows.map((row) => {
    const width = Math.max(0.5, (row.count / largest) * 100).toFixed(1);
    return html`<tr data-value="${row.value}"><td class="name"><svg class="bar-bg" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true"><rect width="${width}" height="1"/></svg>${labelText(labelOf(list.stat, row.value))}</td><td class="count" data-count="${row.count}">${numbers.format(row.count)}</td></tr>`;
  });
  const body =
    list.rows.length === 0
      ? html`<p class="empty">Nothing recorded in this range.</p>`
      : html`<table class="top"><thead><tr><th scope="col">${list.column}</th><th scope="col" class="count">${list.counts}</th></tr></thead><tbody>${rows}</tbody></table>${
          list.total > list.rows.length
            ? html`<p class="more">Top ${list.rows.length} of ${numbers.format(list.total)}</p>`
            : ""
        }`;
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
      : `Pageviews per hour of day (UTC); the busiest hour is ${busiest.hour}:00 with ${numbers.format(busiest.pageviews)} pageviews.`;
  return html`<section class="card hours" data-stat="hours" aria-labelledby="hours-title">
<div class="chart-head"><h2 id="hours-title">Hour of day (UTC)</h2>
<ul class="legend"><li class="visitors">Visitors</li><li class="pageviews">Pageviews</li></ul></div>
<div class="figure">${yAxis(scale)}${hoursChart(model.hours, scale, summary)}
<div class="x-axis" aria-hidden="true"><span>00</span><span>06</span><span>12</span><span>18</span><span>24</span></div></div>
<details class="data"><summary>Numbers per hour</summary><div class="scroll"><table>
<thead><tr><th scope="col">Hour</th><th scope="col" class="count">Visitors</th><th scope="col" class="count">Pageviews</th></tr></thead>
<tbody>${model.hours.map(
    (point) =>
      html`<tr data-hour="${point.hour}"><td>${point.hour}:00</td><td class="count" data-visitors="${point.visitors}">${numbers.format(point.visitors)}</td><td class="count" data-pageviews="${point.pageviews}">${numbers.format(point.pageviews)}</td></tr>`,
  )}</tbody></table></div></details>
</section>`;
}
