// The card of visitors and pageviews over the range: the chart at the grain the range calls
// for (chart-points.ts), its axis labels, a note on how weeks and months count visitors,
// and the chart's numbers in a table. Rows carry their point and counts as data attributes.

import { type Chart, type ChartUnit, chartPoints, chartUnits } from "./chart-points.js";
import { pointLabel, rangeLabel, tickLabel } from "./date-labels.js";
import { type Html, html } from "./html.js";
import type { StatsPageModel } from "./page-model.js";
import { scaleFor, type Tick, trendChart, xAxis, yAxis } from "./svg-chart.js";

const numbers = new Intl.NumberFormat("en-US");

const COLUMNS: Record<ChartUnit, string> = { hour: "Hour", day: "Day", week: "Week", month: "Month" };
const UNIT_LABELS: Record<ChartUnit, string> = { hour: "Hours", day: "Days", week: "Weeks", month: "Months" };

/**
 * Why a week's or month's visitors can exceed the people who came, and why the first and
 * last points may dip: said where it shows.
 */
const NOTES: Partial<Record<ChartUnit, string>> = {
  week: "One point per week, Monday to Sunday; the first and last count only their days in the range. A week’s visitors are the unique visitors of each of its days, added up.",
  month:
    "One point per calendar month; the first and last count only their days in the range. A month’s visitors are the unique visitors of each of its days, added up.",
};

/** Five labels where they fit, three on a phone (the 2nd and 4th are minor). */
const TICKS = 5;

/** `unitHref` links to the same view charted in another unit. */
export function trendCard(model: StatsPageModel, unitHref: (unit: ChartUnit) => string): Html {
  const chart = chartPoints(model.range, model.series, model.hours, model.unit ?? undefined);
  const units = chartUnits(model.range.days);
  const labelled = chart.points.map((point) => ({ ...point, label: pointLabel(chart.unit, point) }));
  const scale = scaleFor(
    Math.max(0, ...chart.points.map((point) => Math.max(point.visitors, point.pageviews))),
  );
  const summary = `Visitors and pageviews per ${chart.unit}, ${rangeLabel(model.range)}: ${numbers.format(model.totals.current.visitors)} visitors, ${numbers.format(model.totals.current.pageviews)} pageviews.`;
  const note = NOTES[chart.unit];
  return html`<section class="card chart" data-unit="${chart.unit}" aria-labelledby="trend-title">
<div class="chart-head"><h2 id="trend-title">Visitors and pageviews per ${chart.unit}</h2>
${
  units.length > 1
    ? html`<nav class="units" aria-label="Chart points"><ul class="presets">${units.map(
        (unit) =>
          html`<li><a href="${unitHref(unit)}"${unit === chart.unit ? html` aria-current="true"` : ""}>${UNIT_LABELS[unit]}</a></li>`,
      )}</ul></nav>`
    : ""
}
<ul class="legend"><li class="visitors">Visitors</li><li class="pageviews">Pageviews</li></ul></div>
<div class="figure">${yAxis(scale)}${trendChart(labelled, scale, summary)}
${xAxis(ticks(chart))}</div>
${note ? html`<p class="note">${note}</p>` : ""}
<details class="data"><summary>Numbers per ${chart.unit}</summary><div class="scroll"><table>
<thead><tr><th scope="col">${COLUMNS[chart.unit]}</th><th scope="col" class="count">Visitors</th><th scope="col" class="count">Pageviews</th></tr></thead>
<tbody>${labelled.map(
    (point) =>
      html`<tr data-point="${point.key}"><td>${point.label}</td><td class="count" data-visitors="${point.visitors}">${numbers.format(point.visitors)}</td><td class="count" data-pageviews="${point.pageviews}">${numbers.format(point.pageviews)}</td></tr>`,
  )}</tbody></table></div></details>
</section>`;
}

/** Up to five evenly spread points get a label, the first and the last always. */
function ticks(chart: Chart): Tick[] {
  const last = chart.points.length - 1;
  // Rounding up puts a day's labels at 00:00, 06:00, 12:00, 18:00 and 23:00.
  const indices = [...new Set(Array.from({ length: TICKS }, (_, k) => Math.ceil((k * last) / (TICKS - 1))))];
  return indices.flatMap((index, k) => {
    const point = chart.points[index];
    if (!point) return [];
    const minor = indices.length === TICKS && k % 2 === 1;
    return [{ at: last === 0 ? 0 : index / last, text: tickLabel(chart.unit, point), minor }];
  });
}
