// The stylesheet of the stats pages, served as a static asset (the CSP allows no inline
// style). Light and dark follow the visitor's system; one column on a phone, two or three
// beside each other on wider screens.

export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f5f6f8; --card: #ffffff; --text: #17191d; --muted: #5d6570; --line: #e3e6ea;
  --visitors: #4f46e5; --pageviews: #a5b4fc; --bar: #eef0ff; --good: #0f7b45; --bad: #b42318;
  --focus: #2563eb; --error-bg: #fdecea; --on-accent: #ffffff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1115; --card: #181b21; --text: #e8eaed; --muted: #9aa3ad; --line: #2a2f37;
    --visitors: #8b8cf8; --pageviews: #5558b0; --bar: #23264a; --on-accent: #0f1115; --good: #4ade80; --bad: #f87171;
    --focus: #93c5fd; --error-bg: #3b1d1d;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--visitors); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.wrap { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
header.top { padding: 20px 0 8px; }
header.top .wrap { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: end; justify-content: space-between; }
/* A long domain wraps beside the range picker rather than pushing it onto a line of its own. */
header.top .site { flex: 1 1 20rem; min-width: 0; }
h1 { font-size: 1.5rem; margin: 0; }
/* A domain is one long word: it wraps at its dots and hyphens, or anywhere if it must, and
   the longest (up to 253 characters) end in an ellipsis after three lines. */
h1 .domain {
  display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; line-clamp: 3;
  overflow: hidden; overflow-wrap: anywhere;
}
h1 small { display: block; font-size: .8rem; font-weight: 500; color: var(--muted); letter-spacing: .02em; }
h2 { font-size: 1rem; margin: 0 0 12px; }
.range { display: flex; flex-direction: column; gap: 8px; align-items: flex-end; }
.presets { display: flex; flex-wrap: wrap; gap: 4px; margin: 0; padding: 0; list-style: none; }
.presets a {
  display: inline-block; padding: 4px 10px; border-radius: 999px; text-decoration: none;
  color: var(--muted); border: 1px solid var(--line); background: var(--card); font-size: .85rem;
}
.presets a[aria-current="true"] { color: var(--on-accent); background: var(--visitors); border-color: var(--visitors); }
.picker { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
.picker label { display: flex; flex-direction: column; font-size: .75rem; color: var(--muted); gap: 2px; }
input, button {
  font: inherit; color: var(--text); background: var(--card); border: 1px solid var(--line);
  border-radius: 8px; padding: 6px 10px; min-height: 36px;
}
button { background: var(--visitors); border-color: var(--visitors); color: var(--on-accent); font-weight: 600; cursor: pointer; }
main { padding-bottom: 24px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 16px; min-width: 0; }
.totals { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; margin: 12px 0; }
.total .label { color: var(--muted); font-size: .85rem; }
.total .value { font-size: 1.75rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
.change { font-size: .85rem; font-variant-numeric: tabular-nums; color: var(--muted); }
.change.up { color: var(--good); }
.change.down { color: var(--bad); }
.chart { margin-bottom: 12px; }
.chart-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 8px; }
.legend { display: flex; gap: 16px; margin: 0 0 8px; padding: 0; list-style: none; font-size: .85rem; color: var(--muted); }
/* The units keep the legend's space below them: on a phone they share a line with it right
   above the chart, whose top value reaches half a line above it. */
.chart-head .units { margin-bottom: 8px; }
.legend li::before {
  content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 3px; margin-right: 6px;
}
.legend .visitors::before { background: var(--visitors); }
.legend .pageviews::before { background: var(--pageviews); }
.figure { display: grid; grid-template-columns: auto 1fr; gap: 0 8px; }
.y-axis {
  display: flex; flex-direction: column-reverse; justify-content: space-between; text-align: right;
  font-size: .75rem; color: var(--muted); font-variant-numeric: tabular-nums; margin: -.5em 0;
}
.plot { display: block; width: 100%; height: 220px; overflow: visible; }
.hours .plot { height: 140px; }
.x-axis {
  grid-column: 2; display: flex; justify-content: space-between; font-size: .75rem; color: var(--muted);
  margin-top: 4px; font-variant-numeric: tabular-nums;
}
/* The line chart's dates: an SVG whose labels sit at their points by percentage. */
.x-labels {
  grid-column: 2; display: block; width: 100%; height: 18px; margin-top: 4px; overflow: visible;
  font-size: .75rem; fill: var(--muted); font-variant-numeric: tabular-nums;
}
.chart .note { margin: 8px 0 0; font-size: .8rem; color: var(--muted); }
.plot .grid { stroke: var(--line); stroke-width: 1; }
.plot .line { fill: none; stroke-width: 2; stroke-linejoin: round; }
.plot .line.visitors { stroke: var(--visitors); }
.plot .line.pageviews { stroke: var(--pageviews); }
.plot .area.visitors { fill: var(--visitors); opacity: .14; }
.plot .area.pageviews { fill: var(--pageviews); opacity: .35; }
.plot .bar.visitors { fill: var(--visitors); }
.plot .bar.pageviews { fill: var(--pageviews); }
.plot .hit { fill: transparent; }
.plot .hit:hover, .plot g:hover .hit { fill: var(--text); opacity: .06; }
details.data { margin-top: 12px; font-size: .85rem; }
details.data summary { cursor: pointer; color: var(--muted); }
details.data .scroll { max-height: 240px; overflow: auto; margin-top: 8px; }
.lists { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 12px; }
table { width: 100%; border-collapse: collapse; font-size: .9rem; }
th { text-align: left; font-size: .75rem; font-weight: 600; color: var(--muted); padding: 0 8px 6px; }
th.count, td.count { text-align: right; width: 1%; white-space: nowrap; font-variant-numeric: tabular-nums; }
.top td { padding: 0; border-top: 2px solid var(--card); }
/* max-width: 0 keeps a long label from widening the table: the name column takes what the
   count column leaves, so counts stay in the card and the label is cut instead. */
.top td.name { position: relative; max-width: 0; }
.top td.name .bar-bg { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
.top td.name .bar-bg rect { fill: var(--bar); }
.top td.name .text { position: relative; display: flex; align-items: baseline; gap: 6px; padding: 5px 8px; }
/* Name and detail are cut apart and the name gives way first, so an event's amount or a
   city's country stays in sight; the cell's title holds the whole text. */
.top td.name .name, .top td.name .detail {
  min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
}
.top td.name .name { flex: 0 1 auto; }
.top td.name .detail { flex: none; max-width: 45%; }
.top td.count { padding: 5px 8px; }
.detail { color: var(--muted); font-size: .8rem; }
.more { margin: 8px 0 0; font-size: .8rem; color: var(--muted); }
.empty { color: var(--muted); font-size: .9rem; margin: 0; }
.data td, .data th { padding: 3px 8px; border-top: 1px solid var(--line); }
footer { color: var(--muted); font-size: .8rem; padding: 8px 0 32px; }
footer .wrap { display: flex; flex-wrap: wrap; gap: 4px 16px; justify-content: space-between; }
.error { background: var(--error-bg); border-radius: 8px; padding: 10px 12px; margin: 0 0 12px; }
.gate { max-width: 420px; margin: 12vh auto 24px; }
.gate h1 { margin-bottom: 4px; }
.gate p { color: var(--muted); margin: 0 0 16px; }
.gate form { display: flex; flex-direction: column; gap: 10px; }
.gate label { font-weight: 600; font-size: .9rem; }
.gate details { margin-top: 16px; }
.gate details summary { cursor: pointer; color: var(--muted); font-size: .9rem; }
.gate details form { margin-top: 10px; }
.period { margin: 2px 0 0; color: var(--muted); font-size: .85rem; }
.signout button {
  background: none; border: 0; color: var(--muted); padding: 0; min-height: 0; font-weight: 400;
  font-size: .85rem; text-decoration: underline;
}
/* The web app's account pages (src/web): hints and errors beside their fields, the header. */
.hint { color: var(--muted); font-size: .8rem; margin-top: -6px; }
.field-error { color: var(--bad); font-size: .85rem; margin-top: -6px; }
/* A message quotes the wrong line (a pasted URL, a long number): one long word that must
   wrap within the form rather than widen a phone's page. */
.hint, .field-error { overflow-wrap: anywhere; }
input[aria-invalid="true"] { border-color: var(--bad); }
.gate .error { color: var(--text); }
.gate.in-app { margin-top: 0; }
.notice { background: var(--bar); border-radius: 8px; padding: 10px 12px; margin: 0 0 12px; }
header.app { padding: 12px 0; border-bottom: 1px solid var(--line); margin-bottom: 16px; }
header.app .wrap { align-items: center; }
header.app .home { font-weight: 700; text-decoration: none; color: var(--text); }
header.app nav { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; font-size: .85rem; min-width: 0; }
header.app .who { color: var(--muted); overflow-wrap: anywhere; }
.sites { margin: 12px 0 0; padding: 0; list-style: none; }
.sites li { padding: 6px 0; border-top: 1px solid var(--line); }
.created { margin-bottom: 16px; border-color: var(--visitors); }
.gate.wide { max-width: 640px; }
.gate h2 { margin: 20px 0 8px; }
select, textarea {
  font: inherit; color: var(--text); background: var(--card); border: 1px solid var(--line);
  border-radius: 8px; padding: 6px 10px; min-height: 36px; max-width: 100%;
}
textarea { resize: vertical; }
/* As tall as the snippet wherever it wraps (a phone's width took 5 of its 4 rows); browsers
   without field-sizing keep the rows the markup gives. */
.snippet { width: 100%; font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; field-sizing: content; }
fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; min-width: 0; }
legend { font-weight: 600; font-size: .9rem; padding: 0; margin-bottom: 4px; }
.check { display: flex; gap: 8px; align-items: flex-start; }
.check input { min-height: 0; margin: 4px 0 0; flex: none; }
.gate .check label { font-weight: 400; }
.card-head { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between; }
a.button {
  display: inline-block; padding: 6px 12px; border-radius: 8px; background: var(--visitors);
  color: var(--on-accent); font-weight: 600; text-decoration: none;
}
.search { display: flex; gap: 8px; margin: 12px 0 4px; }
.search input { flex: 1 1 auto; min-width: 0; }
.sites li { display: flex; flex-wrap: wrap; gap: 2px 12px; justify-content: space-between; }
.site-name { min-width: 0; overflow-wrap: anywhere; }
.site-meta { color: var(--muted); font-size: .85rem; }
.trend { display: inline-flex; gap: 8px; align-items: center; margin-right: 12px; }
.trend-count { color: var(--text); font-variant-numeric: tabular-nums; }
.spark { flex: none; }
.spark polyline { fill: none; stroke: var(--visitors); stroke-width: 1.5; stroke-linejoin: round; }
.pager { display: flex; gap: 16px; align-items: center; margin-top: 12px; font-size: .9rem; }
.danger { color: var(--bad); }
.keys li { align-items: center; }
.keys + h2, .keys + .pager + h2 { margin-top: 24px; }
.card h1, .card h2, .notice, .error { overflow-wrap: anywhere; }
.user-actions { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
.card > p.hint { margin: 4px 0 12px; }
.keys a.button { padding: 2px 10px; font-size: .85rem; font-weight: 400; }
.key-name { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
form.inline { display: inline; }
form.stack { display: flex; flex-direction: column; gap: 10px; max-width: 420px; }
form.stack label, form.stack legend { font-weight: 600; font-size: .9rem; }
form.stack .check label { font-weight: 400; }
.gate p.install { border-radius: 8px; padding: 10px 12px; margin: 12px 0 0; }
.gate p.receiving { background: var(--bar); color: var(--text); }
.gate p.waiting { border: 1px dashed var(--line); }
button.danger, a.button.danger { background: var(--bad); border-color: var(--bad); color: var(--on-accent); }
.key code { overflow-wrap: anywhere; font-size: .85rem; }
/* The dashboard: filters as chips that each remove themselves, values that filter by
   themselves, and a list opened in full. */
.filters { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; margin: 12px 0 0; font-size: .85rem; }
.filters ul { display: flex; flex-wrap: wrap; gap: 6px; margin: 0; padding: 0; list-style: none; min-width: 0; max-width: 100%; }
.filters-label { color: var(--muted); }
.chip {
  display: inline-flex; align-items: center; max-width: 100%; min-width: 0;
  border: 1px solid var(--visitors); border-radius: 999px; background: var(--bar);
}
.chip-text { padding: 3px 2px 3px 10px; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chip-remove { padding: 3px 10px 3px 6px; text-decoration: none; font-weight: 700; line-height: 1; }
.top td.name a.text { color: inherit; text-decoration: none; }
.top td.name a.text:hover .name, .top td.name a.text:focus-visible .name { text-decoration: underline; }
.now { margin: 4px 0 0; font-size: .85rem; color: var(--muted); display: flex; align-items: center; gap: 6px; }
.now .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--line); flex: none; }
.now .dot.live { background: var(--good); }
.kept-out { margin: -4px 0 16px; font-size: .85rem; color: var(--muted); }
.owner-links { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 4px 0 0; font-size: .85rem; }
.details .links { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 0; font-size: .9rem; }
.details { margin-top: 12px; }
/* A list opened in full is where a value is read whole (a phone shows no title): the name
   wraps onto as many lines as it needs, anywhere inside a long path or URL if it must, its
   detail follows it or takes a line of its own, and the count stays at the right of the row's
   first line. The cards above keep one line per value and link here. */
.details .top td.name .text { flex-wrap: wrap; }
.details .top td.name .name, .details .top td.name .detail {
  overflow: visible; text-overflow: clip; white-space: normal; overflow-wrap: anywhere;
}
.details .top td.name .detail { flex: 0 1 auto; max-width: 100%; }
.details .top td.count { vertical-align: top; }
@media (min-width: 900px) {
  .totals { grid-template-columns: repeat(6, minmax(0, 1fr)); }
}
@media (min-width: 1100px) {
  .lists .hours { grid-column: span 2; }
}
@media (max-width: 640px) {
  header.top .wrap { flex-direction: column; align-items: stretch; }
  header.top .site { flex: none; }
  .range { align-items: stretch; }
  .picker label { flex: 1 1 40%; }
  .picker input, .picker select { width: 100%; }
  .totals { grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 8px; }
  .card { padding: 12px; }
  .total .value { font-size: 1.3rem; }
  .total .label { font-size: .75rem; }
  .change .vs { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .lists { grid-template-columns: 1fr; }
  .plot { height: 180px; }
  .x-labels .minor { display: none; }
}
`;
