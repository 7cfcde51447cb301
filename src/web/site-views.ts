// The web app's website pages: the owner's list (search, pages), the form that adds one,
// a website's page (its tracking snippet to copy, its settings, the way to delete it) and
// the confirmation of a deletion. Fields, defaults and messages are the API's.

import { type Html, html } from "../pages/html.js";
import { pager } from "../pages/pager.js";
import { offeredZones } from "../stats/time-zone.js";
import type { UserRecord, WebsiteRecord } from "../storage/ports.js";
import { unicodeDomain } from "../unicode-domain.js";
import { PASSWORD_MAX_LENGTH, WEBSITE_DEFAULTS } from "../websites/website-rules.js";
import { TREND_DAYS, type VisitorTrend } from "./visitor-trend.js";
import { type FieldSpec, type FormState, formFields, formNotices, ownerPage } from "./web-page.js";

export const PRIVACY_LABELS: Readonly<Record<number, string>> = {
  0: "Public: anyone may see the statistics page",
  1: "Private: only you, signed in",
  2: "Password: anyone with the password",
};

export interface ListState {
  search?: string | undefined;
  page?: number;
  perPage?: number;
}

/** A line of the days' visitors, drawn in a 60 x 16 box; the numbers beside it say what it shows. */
function sparkline(daily: readonly number[]): Html {
  const top = Math.max(1, ...daily);
  const step = 60 / Math.max(1, daily.length - 1);
  const points = daily.map((count, i) => `${(i * step).toFixed(1)},${(15 - (count / top) * 14).toFixed(1)}`);
  return html`<svg class="spark" viewBox="0 0 60 16" width="60" height="16" aria-hidden="true" focusable="false"><polyline points="${points.join(" ")}"/></svg>`;
}

function trendLine(trend: VisitorTrend): Html {
  const visitors = html`<span class="trend-count">${trend.visitors.toLocaleString("en")} visitor${trend.visitors === 1 ? "" : "s"}<span class="visually-hidden"> in the last ${TREND_DAYS} days</span></span>`;
  let change: Html | "" = "";
  if (trend.before > 0) {
    const percent = Math.round(((trend.visitors - trend.before) / trend.before) * 100);
    const direction = percent > 0 ? "up" : percent < 0 ? "down" : "";
    change = html`<span class="change ${direction}">${percent > 0 ? "+" : ""}${percent} %<span class="visually-hidden"> against the ${TREND_DAYS} days before</span></span>`;
  } else if (trend.visitors > 0) {
    change = html`<span class="change up">new</span>`;
  }
  return html`<span class="trend">${sparkline(trend.daily)}${visitors}${change}</span>`;
}

/** The signed-in home: the owner's websites, searchable, a page at a time. */
export function homePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  listed: { items: readonly WebsiteRecord[]; total: number },
  list: ListState,
  apiKey?: string,
  /** Per listed website (by id), its visitors of the last days. */
  trends: ReadonlyMap<number, VisitorTrend> = new Map(),
): Html {
  const page = list.page ?? 1;
  const perPage = list.perPage ?? 25;
  const pages = Math.max(1, Math.ceil(listed.total / perPage));
  const link = (to: number) =>
    `/?${new URLSearchParams({ ...(list.search ? { q: list.search } : {}), page: String(to) })}`;
  const rows =
    listed.items.length === 0
      ? html`<p class="empty">${list.search ? "No website matches this search." : "No website yet."}</p>`
      : html`<ul class="sites">${listed.items.map((website) => {
          const trend = trends.get(website.id);
          return html`<li><a class="site-name" href="/websites/${website.id}/stats">${unicodeDomain(website.domain)}</a>
<span class="site-meta">${trend ? trendLine(trend) : ""}${PRIVACY_LABELS[website.privacy]?.split(":")[0]} · <a href="/websites/${website.id}" aria-label="Settings of ${unicodeDomain(website.domain)}">Settings</a></span></li>`;
        })}</ul>`;
  return ownerPage(
    "Websites",
    stylesheet,
    user,
    formToken,
    html`${
      apiKey
        ? html`<div class="card created"><h2>Your API key</h2>
<p>It is shown only now: keep it somewhere safe. The API takes it as <code>Authorization: Bearer …</code>.</p>
<p class="key"><code>${apiKey}</code></p></div>`
        : ""
    }<div class="card">
<div class="card-head"><h1>Websites</h1><span class="hint">Visitors of the last ${TREND_DAYS} days</span><a class="button" href="/websites/new">Add a website</a></div>
<form class="search" method="get" action="/" role="search"><label for="q" class="visually-hidden">Search websites</label><input id="q" name="q" type="search" placeholder="Search by domain" value="${list.search ?? ""}"><button type="submit">Search</button></form>
${rows}${pager(page, pages, link)}
</div>`,
  );
}

/** The time zones offered (offeredZones: current names, UTC first), and `current` if it is another name. */
function zoneOptions(current: string | undefined): { value: string; label: string }[] {
  const all = [...offeredZones()];
  if (current && !all.includes(current)) all.push(current);
  return all.map((zone) => ({ value: zone, label: zone.replace(/_/g, " ") }));
}

function settingsFields(state: FormState, editing: boolean): FieldSpec[] {
  return [
    {
      name: "privacy",
      label: "Who may see the statistics page",
      type: "radio",
      options: [0, 1, 2].map((value) => ({ value: String(value), label: PRIVACY_LABELS[value] ?? "" })),
    },
    {
      name: "password",
      label: "Password of the statistics page",
      type: "password",
      autocomplete: "new-password",
      required: false,
      maxLength: PASSWORD_MAX_LENGTH,
      hint: editing
        ? "Needed for Password. Leave empty to keep the one set."
        : `Needed for Password; up to ${PASSWORD_MAX_LENGTH} characters.`,
    },
    {
      name: "timezone",
      label: "Time zone",
      type: "select",
      options: zoneOptions(state.values?.timezone),
      hint: "The statistics' days and hours. A change counts all past days again in the new zone.",
    },
    { name: "email", label: "Include in my email reports", type: "checkbox" },
    { name: "exclude_bots", label: "Leave out hits from bots", type: "checkbox" },
    {
      name: "exclude_datacenters",
      label: "Leave out hits from data centres",
      type: "checkbox",
      hint: "Cloud and server hosting networks (Amazon, Google Cloud, Azure, DigitalOcean, Hetzner and others), where scrapers and monitors run. People on a VPN that exits there are left out too.",
    },
    {
      name: "exclude_params",
      label: "Query parameters to leave out of page addresses",
      type: "textarea",
      rows: 3,
      hint: "One per line; & leaves out the whole query.",
    },
    {
      name: "exclude_ips",
      label: "IP addresses whose hits are left out",
      type: "textarea",
      rows: 3,
      hint: "Addresses or CIDR blocks, IPv4 or IPv6, one per line.",
    },
  ];
}

/** What a new website's form shows before anything is typed: the API's defaults. */
export const NEW_WEBSITE_VALUES: Record<string, string> = {
  privacy: String(WEBSITE_DEFAULTS.privacy),
  email: String(WEBSITE_DEFAULTS.email),
  exclude_bots: String(WEBSITE_DEFAULTS.excludeBots),
  exclude_datacenters: String(WEBSITE_DEFAULTS.excludeDatacenters),
  timezone: WEBSITE_DEFAULTS.timezone,
};

export function newWebsitePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  state: FormState,
): Html {
  return ownerPage(
    "Add a website",
    stylesheet,
    user,
    formToken,
    html`<div class="gate card in-app wide"><h1>Add a website</h1>
${formNotices(state)}
<form method="post" action="/websites" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
${formFields(
  [
    {
      name: "domain",
      label: "Domain",
      type: "text",
      autocomplete: "off",
      hint: "For example example.com (https:// and www. are removed).",
    },
    ...settingsFields(state, false),
  ],
  state,
)}
<button type="submit">Add website</button>
</form></div>`,
  );
}

/** The website's values as its settings form shows them. */
export function settingsValues(website: WebsiteRecord): Record<string, string> {
  return {
    privacy: String(website.privacy),
    email: String(website.email),
    exclude_bots: String(website.excludeBots),
    exclude_datacenters: String(website.excludeDatacenters),
    exclude_params: website.excludeParams ?? "",
    exclude_ips: website.excludeIps ?? "",
    timezone: website.timezone,
  };
}

/** What the installation check saw: the website's pageviews of the last minutes (realtime.ts). */
export interface InstallationCheck {
  /** Pageviews in the last REALTIME_MINUTES minutes. */
  pageviews: number;
  minutes: number;
  /** The start of the last minute with a pageview (ISO), or null. */
  lastMinute: string | null;
}

function installationNotice(check: InstallationCheck): Html {
  if (check.lastMinute === null)
    return html`<p class="install waiting" role="status">No pageview in the last ${check.minutes} minutes. Once the snippet is in a page, open that page, then reload this one.</p>`;
  const at = `${check.lastMinute.slice(11, 16)} UTC`;
  return html`<p class="install receiving" role="status">Receiving hits: ${check.pageviews} pageview${check.pageviews === 1 ? "" : "s"} in the last ${check.minutes} minutes, the latest at ${at}.</p>`;
}

export function websitePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  website: WebsiteRecord,
  origin: string,
  check: InstallationCheck,
  state: FormState,
): Html {
  const snippet = `<script defer src="${origin}/js/script.js" data-host="${origin}"></script>`;
  const domain = unicodeDomain(website.domain);
  return ownerPage(
    domain,
    stylesheet,
    user,
    formToken,
    html`<div class="gate card in-app wide">
<h1><span class="domain">${domain}</span></h1>
<p><a href="/websites/${website.id}/stats">Dashboard</a> · <a href="/${encodeURIComponent(website.domain)}">Its stats page</a> (${PRIVACY_LABELS[website.privacy]?.split(":")[0]})</p>
${formNotices(state)}
<h2>Tracking snippet</h2>
<p>Put this in every page of the website, in its <code>&lt;head&gt;</code>:</p>
<label for="snippet" class="visually-hidden">Tracking snippet</label>
<textarea id="snippet" class="snippet" rows="5" readonly spellcheck="false">${snippet}</textarea>
${installationNotice(check)}
<h2>Settings</h2>
<form method="post" action="/websites/${website.id}" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
${formFields(settingsFields(state, true), state, false)}
<button type="submit">Save settings</button>
</form>
<h2>Delete</h2>
<p><a class="danger" href="/websites/${website.id}/delete">Delete this website and its statistics…</a></p>
</div>`,
  );
}

export function deleteWebsitePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  website: WebsiteRecord,
): Html {
  const domain = unicodeDomain(website.domain);
  return ownerPage(
    `Delete ${domain}`,
    stylesheet,
    user,
    formToken,
    html`<div class="gate card in-app">
<h1>Delete <span class="domain">${domain}</span>?</h1>
<p>The website and every statistic recorded for it are deleted for good.</p>
<form method="post" action="/websites/${website.id}/delete">
<input type="hidden" name="csrf" value="${formToken}">
<button type="submit" class="danger">Delete for good</button>
</form>
<p><a href="/websites/${website.id}">Keep it</a></p>
</div>`,
  );
}
