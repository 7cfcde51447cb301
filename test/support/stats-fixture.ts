// A small traffic fixture whose every statistic was computed by hand (see EXPECTED).
// Three visitors over three UTC days, internal and external referrers, a campaign, custom
// events, an excluded parameter, and a bot and an excluded address that must not count.
//   A: 81.2.69.142 (London), Chrome on Windows, en, 1920x1080
//   B: 8.8.8.8 (Mountain View), Safari on iPhone, fr, 390x844
//   C: 1.1.1.1 (Sydney), Firefox on Linux, de, 1920x1080
// As hits (FIXTURE_HITS, for the pipeline) and as the events the pipeline stores of them
// (fixtureEvents, for the event stores).

import type { StoredEvent } from "../../src/storage/ports.js";

export const FIXTURE_DOMAIN = "stats.example";
/** Visitor B's address is Google's 8.8.8.8 (a place known by heart): data-centre hits are kept. */
export const FIXTURE_SETTINGS = {
  exclude_ips: "203.0.113.0/24",
  exclude_params: "fbclid",
  exclude_datacenters: "0",
};
export const FIXTURE_RANGE = { from: "2026-04-01", to: "2026-04-03" };

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

export interface FixtureHit {
  ts: string;
  ip: string;
  userAgent: string;
  language: string;
  resolution: string;
  page: string;
  referrer: string;
  event?: { name: string; value?: string; unit?: string };
  engagement?: true;
}

const A = { ip: "81.2.69.142", userAgent: CHROME, language: "en-GB,en;q=0.9", resolution: "1920x1080" };
const B = { ip: "8.8.8.8", userAgent: SAFARI, language: "fr-FR", resolution: "390x844" };
const C = { ip: "1.1.1.1", userAgent: FIREFOX, language: "de", resolution: "1920x1080" };
const site = (path: string) => `https://${FIXTURE_DOMAIN}${path}`;

export const FIXTURE_HITS: FixtureHit[] = [
  // Day 1
  {
    ...A,
    ts: "2026-04-01T09:10:00Z",
    page: site("/?utm_campaign=spring&fbclid=zzz"),
    referrer: "https://www.google.com/",
  },
  { ...A, ts: "2026-04-01T09:15:00Z", page: site("/pricing"), referrer: site("/") },
  { ...B, ts: "2026-04-01T09:20:00Z", page: site("/blog/post?id=3"), referrer: "" },
  // Read until 09:50: 35 minutes after A's last pageview, still A's visit (only a pageview starts one).
  { ...A, ts: "2026-04-01T09:50:00Z", page: site("/pricing"), referrer: "", engagement: true },
  { ...B, ts: "2026-04-01T10:05:00Z", page: site("/pricing"), referrer: site("/blog/post?id=3") },
  { ...B, ts: "2026-04-01T10:06:00Z", page: site("/pricing"), referrer: "", event: { name: "Signup" } },
  {
    ...A,
    ip: "66.249.66.1",
    userAgent: GOOGLEBOT,
    ts: "2026-04-01T10:00:00Z",
    page: site("/"),
    referrer: "",
  },
  { ...A, ip: "203.0.113.5", ts: "2026-04-01T10:30:00Z", page: site("/"), referrer: "" },
  // Day 2
  {
    ...A,
    ts: "2026-04-02T09:00:00Z",
    page: site("/pricing"),
    referrer: "https://news.ycombinator.com/item?id=1",
  },
  // Left after 5 seconds: a bounce.
  { ...A, ts: "2026-04-02T09:00:05Z", page: site("/pricing"), referrer: "", engagement: true },
  // Before C's first pageview of the day: in no visit.
  { ...C, ts: "2026-04-02T13:00:00Z", page: site("/checkout"), referrer: "", engagement: true },
  {
    ...C,
    ts: "2026-04-02T14:00:00Z",
    page: `https://www.${FIXTURE_DOMAIN}/?utm_campaign=spring`,
    referrer: "https://google.com/search",
  },
  {
    ...C,
    ts: "2026-04-02T14:30:00Z",
    page: site("/checkout"),
    referrer: "",
    event: { name: "Purchase", value: "49.99", unit: "USD" },
  },
  {
    ...C,
    ts: "2026-04-02T14:31:00Z",
    page: site("/checkout"),
    referrer: "",
    event: { name: "Purchase", value: "49.99", unit: "USD" },
  },
  // Day 3
  { ...B, ts: "2026-04-03T23:59:00Z", page: site("/blog/post?id=3"), referrer: "" },
  { ...B, ts: "2026-04-03T23:59:40Z", page: site("/blog/post?id=3"), referrer: "", engagement: true },
];

type Rows = [string, number][];

/** Every statistic over FIXTURE_RANGE, sorted by count descending then value ascending. */
export const EXPECTED: Record<string, Rows> = {
  pageviews: [
    ["2026-04-01", 4],
    ["2026-04-02", 2],
    ["2026-04-03", 1],
  ],
  visitors: [
    ["2026-04-01", 2],
    ["2026-04-02", 2],
    ["2026-04-03", 1],
  ],
  pageviews_hours: [
    ["09", 4],
    ["10", 1],
    ["14", 1],
    ["23", 1],
  ],
  // Per day and hour, distinct visitors, summed: D1 09 {A,B} + D2 09 {A}; D1 10 {B}; D2 14 {C}; D3 23 {B}.
  visitors_hours: [
    ["09", 3],
    ["10", 1],
    ["14", 1],
    ["23", 1],
  ],
  page: [
    ["/pricing", 3],
    ["/?utm_campaign=spring", 2],
    ["/blog/post?id=3", 2],
  ],
  landing_page: [
    ["/?utm_campaign=spring", 2],
    ["/blog/post?id=3", 2],
    ["/pricing", 1],
  ],
  referrer: [
    ["", 2],
    ["google.com", 2],
    ["news.ycombinator.com", 1],
  ],
  // Visits without a utm_campaign are not listed (unlike direct visits in referrer).
  campaign: [["spring", 2]],
  // Unique visitors are distinct (day, visitor): A on two days, B on two days, C on one.
  browser: [
    ["Chrome", 2],
    ["Safari", 2],
    ["Firefox", 1],
  ],
  os: [
    ["Windows", 2],
    ["iOS", 2],
    ["Linux", 1],
  ],
  device: [
    ["desktop", 3],
    ["mobile", 2],
  ],
  resolution: [
    ["1920x1080", 3],
    ["390x844", 2],
  ],
  language: [
    ["en", 2],
    ["fr", 2],
    ["de", 1],
  ],
  country: [
    ["GB:United Kingdom", 2],
    ["US:United States", 2],
    ["AU:Australia", 1],
  ],
  city: [
    ["GB:London", 2],
    ["US:Mountain View", 2],
    ["AU:Sydney", 1],
  ],
  continent: [
    ["EU:Europe", 2],
    ["NA:North America", 2],
    ["OC:Oceania", 1],
  ],
  event: [
    ["Purchase:49.99:USD", 2],
    ["Signup::", 1],
  ],
  // Visits (a visitor's day, split where 30 minutes pass without a pageview):
  //   day 1: A 09:10-09:50 (2 pageviews, 2400 s, exit /pricing); B 09:20 (1, 0 s: a bounce,
  //          exit /blog/post?id=3); B 10:05-10:06 (45 minutes later: a new visit; 1, 60 s to
  //          its Signup, exit /pricing)
  //   day 2: A 09:00-09:00:05 (1, 5 s: a bounce, exit /pricing); C 14:00-14:31 (1, 1860 s to
  //          its last Purchase, exit /?utm_campaign=spring; the 13:00 engagement is in none)
  //   day 3: B 23:59-23:59:40 (1, 40 s, exit /blog/post?id=3)
  visits: [
    ["2026-04-01", 3],
    ["2026-04-02", 2],
    ["2026-04-03", 1],
  ],
  visits_hours: [
    ["09", 3],
    ["10", 1],
    ["14", 1],
    ["23", 1],
  ],
  exit_page: [
    ["/pricing", 3],
    ["/blog/post?id=3", 2],
    ["/?utm_campaign=spring", 1],
  ],
  bounces: [
    ["2026-04-01", 1],
    ["2026-04-02", 1],
  ],
  visit_seconds: [
    ["2026-04-01", 2460],
    ["2026-04-02", 1865],
    ["2026-04-03", 40],
  ],
  visit_pageviews: [
    ["2026-04-01", 4],
    ["2026-04-02", 2],
    ["2026-04-03", 1],
  ],
};

/** The ratios of the fixture's days (catalog RATIOS), by hand from the visits above. */
export const EXPECTED_RATIOS: Record<string, Rows> = {
  // 1 of 3, 1 of 2, 0 of 1.
  bounce_rate: [
    ["2026-04-02", 50],
    ["2026-04-01", 33.3],
    ["2026-04-03", 0],
  ],
  // 2460 / 3, 1865 / 2 (932.5, rounded half up), 40.
  visit_duration: [
    ["2026-04-02", 933],
    ["2026-04-01", 820],
    ["2026-04-03", 40],
  ],
  views_per_visit: [
    ["2026-04-01", 1.33],
    ["2026-04-02", 1],
    ["2026-04-03", 1],
  ],
};

/**
 * Statistics of the fixture with filters (the `filters` parameter's syntax) over
 * FIXTURE_RANGE, computed by hand: a filter keeps the events whose own value matches, and a
 * statistic counts what it always counts among them (visits are pageviews beginning one).
 */
export const FILTERED: { stat: string; filters: string; rows: Rows }[] = [
  // The visits landing on /pricing: only A's on day 2.
  { stat: "referrer", filters: "page==/pricing", rows: [["news.ycombinator.com", 1]] },
  // Pageviews of /pricing: A on days 1 and 2, B on day 1 (B's Signup is not a pageview).
  {
    stat: "browser",
    filters: "page==/pricing",
    rows: [
      ["Chrome", 2],
      ["Safari", 1],
    ],
  },
  {
    stat: "pageviews",
    filters: "page==/pricing",
    rows: [
      ["2026-04-01", 2],
      ["2026-04-02", 1],
    ],
  },
  // Everyone but B (United States).
  {
    stat: "page",
    filters: "country!=US:United States",
    rows: [
      ["/?utm_campaign=spring", 2],
      ["/pricing", 2],
    ],
  },
  // Contains ignores case; two visits came from Google.
  { stat: "page", filters: "referrer~GOOGLE", rows: [["/?utm_campaign=spring", 2]] },
  // Pageviews whose page does not contain "pricing": A and B on day 1, C on day 2, B on day 3.
  {
    stat: "visitors",
    filters: "page!~pricing",
    rows: [
      ["2026-04-01", 2],
      ["2026-04-02", 1],
      ["2026-04-03", 1],
    ],
  },
  // Both must hold.
  { stat: "pageviews", filters: "browser==Safari;page==/pricing", rows: [["2026-04-01", 1]] },
  // Two on one dimension: pages containing "p" other than /pricing.
  {
    stat: "page",
    filters: "page~p;page!=/pricing",
    rows: [
      ["/?utm_campaign=spring", 2],
      ["/blog/post?id=3", 2],
    ],
  },
  // Only visits have a landing page; every other event holds for !=.
  { stat: "page", filters: "landing_page==/pricing", rows: [["/pricing", 1]] },
  {
    stat: "landing_page",
    filters: "landing_page!=/pricing",
    rows: [
      ["/?utm_campaign=spring", 2],
      ["/blog/post?id=3", 2],
    ],
  },
  {
    stat: "page",
    filters: "landing_page!=/pricing",
    rows: [
      ["/?utm_campaign=spring", 2],
      ["/blog/post?id=3", 2],
      ["/pricing", 2],
    ],
  },
  // Only custom events have a name (the part before the first colon).
  { stat: "event", filters: "event==Purchase", rows: [["Purchase:49.99:USD", 2]] },
  { stat: "event", filters: "event!=Purchase", rows: [["Signup::", 1]] },
  { stat: "event", filters: "event~sign", rows: [["Signup::", 1]] },
  { stat: "page", filters: "event==Purchase", rows: [] },
  // Direct: an empty referrer (internal ones are stored empty too).
  {
    stat: "page",
    filters: "referrer==",
    rows: [
      ["/blog/post?id=3", 2],
      ["/pricing", 2],
    ],
  },
  {
    stat: "browser",
    filters: "campaign==spring",
    rows: [
      ["Chrome", 1],
      ["Firefox", 1],
    ],
  },
  {
    stat: "visitors",
    filters: "city==GB:London",
    rows: [
      ["2026-04-01", 1],
      ["2026-04-02", 1],
    ],
  },
  { stat: "country", filters: "continent~america", rows: [["US:United States", 2]] },
  { stat: "os", filters: "device==mobile;language==fr;resolution==390x844", rows: [["iOS", 2]] },
  // Visits with a pageview or custom event that holds: A's and B's second on day 1, A's on day 2.
  {
    stat: "visits",
    filters: "page==/pricing",
    rows: [
      ["2026-04-01", 2],
      ["2026-04-02", 1],
    ],
  },
  // C's Purchases were on /checkout (its engagement there, in no visit, counts for none).
  { stat: "visits", filters: "page==/checkout", rows: [["2026-04-02", 1]] },
  { stat: "exit_page", filters: "event==Purchase", rows: [["/?utm_campaign=spring", 1]] },
  { stat: "bounces", filters: "browser==Safari", rows: [["2026-04-01", 1]] },
  {
    stat: "visit_seconds",
    filters: "country==GB:United Kingdom",
    rows: [
      ["2026-04-01", 2400],
      ["2026-04-02", 5],
    ],
  },
  { stat: "visits", filters: "landing_page==/pricing", rows: [["2026-04-02", 1]] },
  // Nothing matches.
  { stat: "page", filters: "page==/nowhere", rows: [] },
  { stat: "visitors", filters: "browser==Chrome;browser==Safari", rows: [] },
];

/** The same hits as the events API takes them. */
export function asImport(websiteId: number) {
  return FIXTURE_HITS.map((hit) => ({
    website_id: websiteId,
    ts: hit.ts,
    page: hit.page,
    referrer: hit.referrer,
    screen_resolution: hit.resolution,
    ip: hit.ip,
    user_agent: hit.userAgent,
    accept_language: hit.language,
    ...(hit.event ? { event: hit.event } : {}),
    ...(hit.engagement ? { engagement: true } : {}),
  }));
}

const STORED_A = {
  browser: "Chrome",
  os: "Windows",
  device: "desktop",
  resolution: "1920x1080",
  language: "en",
  country: "GB:United Kingdom",
  city: "GB:London",
  continent: "EU:Europe",
};
const STORED_B = {
  browser: "Safari",
  os: "iOS",
  device: "mobile",
  resolution: "390x844",
  language: "fr",
  country: "US:United States",
  city: "US:Mountain View",
  continent: "NA:North America",
};
const STORED_C = {
  browser: "Firefox",
  os: "Linux",
  device: "desktop",
  resolution: "1920x1080",
  language: "de",
  country: "AU:Australia",
  city: "AU:Sydney",
  continent: "OC:Oceania",
};
const view = { kind: "pageview", isVisit: false, referrer: "", campaign: "", event: "" } as const;
const visit = { ...view, isVisit: true } as const;
const custom = (event: string) => ({ ...view, kind: "event", event }) as const;
const engaged = { ...view, kind: "engagement" } as const;

/**
 * FIXTURE_HITS as the pipeline stores them (the bot and the excluded address dropped, the
 * excluded parameter stripped, internal referrers empty), in time order. Visitors are 1, 2
 * and 3 on every day: the statistics must still count each day's visitors apart.
 */
export function fixtureEvents(websiteId: number): StoredEvent[] {
  const at = (ts: string) => ({ websiteId, ts: new Date(ts) });
  const [a, b, c] = [
    { visitor: 1n, ...STORED_A },
    { visitor: 2n, ...STORED_B },
    { visitor: 3n, ...STORED_C },
  ];
  const spring = { campaign: "spring", page: "/?utm_campaign=spring", referrer: "google.com" };
  return [
    { ...at("2026-04-01T09:10:00Z"), ...a, ...visit, ...spring },
    { ...at("2026-04-01T09:15:00Z"), ...a, ...view, page: "/pricing" },
    { ...at("2026-04-01T09:20:00Z"), ...b, ...visit, page: "/blog/post?id=3" },
    { ...at("2026-04-01T09:50:00Z"), ...a, ...engaged, page: "/pricing" },
    { ...at("2026-04-01T10:05:00Z"), ...b, ...view, page: "/pricing" },
    { ...at("2026-04-01T10:06:00Z"), ...b, ...custom("Signup::"), page: "/pricing" },
    { ...at("2026-04-02T09:00:00Z"), ...a, ...visit, page: "/pricing", referrer: "news.ycombinator.com" },
    { ...at("2026-04-02T09:00:05Z"), ...a, ...engaged, page: "/pricing" },
    { ...at("2026-04-02T13:00:00Z"), ...c, ...engaged, page: "/checkout" },
    { ...at("2026-04-02T14:00:00Z"), ...c, ...visit, ...spring },
    { ...at("2026-04-02T14:30:00Z"), ...c, ...custom("Purchase:49.99:USD"), page: "/checkout" },
    { ...at("2026-04-02T14:31:00Z"), ...c, ...custom("Purchase:49.99:USD"), page: "/checkout" },
    { ...at("2026-04-03T23:59:00Z"), ...b, ...visit, page: "/blog/post?id=3" },
    { ...at("2026-04-03T23:59:40Z"), ...b, ...engaged, page: "/blog/post?id=3" },
  ];
}
