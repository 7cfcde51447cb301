// Seeds the event store of a data directory with generated events of one website, straight
// through the product's own write path (DuckDbEventStore.insert, in batches), each value
// made by the product's own enrichment modules (user agent, geolocation, referrer, page,
// campaign, language, custom event). Meanwhile it counts, independently of the store, what
// every statistic must answer over the seeded window, and writes that to a JSON file so the
// answers of the server can be checked, not just timed.
//
// Run it while no server uses the data directory (the store has a single writer). A large
// visitor pool needs a large heap:
//
//   node --max-old-space-size=16384 bench/stats-seed.mjs --data-dir DIR --website-id 1 \
//     --events 1000000 --expected FILE [--seed 1] [--batch 50000] [--days 30] [--end ISO] [--zone Z]
//
// Progress goes to standard error; one JSON line with the figures to standard output.
// Traffic: createTraffic with a visitor pool of events / 3, 5 % custom events, 25 % the
// tracker's engagements and 30 % of visits of one page, timestamps over `--days` whole UTC
// days ending at `--end` (default: the UTC midnight two days ago, so every day is in the
// past and in the store's long-term aggregates).
// `--zone` (an IANA name, UTC by default) is the website's time zone: days, hours and each
// visitor's salt day are local to it.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ROOT_DIR } from "./processes.mjs";
import { createTraffic, timestamps } from "./traffic.mjs";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DOMAIN = "bench.example";
const RESOLUTION = /^(\d{1,5})x(\d{1,5})$/;
const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, "0"));
/** The columns of the unique-visitor statistics that group by a stored value, in profile order. */
const PROFILE_STATS = ["browser", "os", "device", "resolution", "language", "country", "city", "continent"];
/** A website with the default rules: no excluded query parameters, the query kept. */
const WEBSITE_RULES = { excludedParams: null, stripQuery: false };

const load = (file) => import(pathToFileURL(path.join(ROOT_DIR, "dist", "src", file)).href);

const { values: options } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    "website-id": { type: "string" },
    events: { type: "string" },
    expected: { type: "string" },
    seed: { type: "string", default: "1" },
    batch: { type: "string", default: "50000" },
    days: { type: "string", default: "30" },
    end: { type: "string" },
    zone: { type: "string", default: "UTC" },
  },
});
for (const required of ["data-dir", "website-id", "events", "expected"]) {
  if (!options[required]) {
    console.error(
      "usage: stats-seed.mjs --data-dir DIR --website-id ID --events N --expected FILE [--seed 1] [--batch 50000] [--days 30] [--end ISO]",
    );
    process.exit(2);
  }
}

const count = Number(options.events);
const websiteId = Number(options["website-id"]);
const batchSize = Number(options.batch);
const days = Number(options.days);
const seed = Number.isNaN(Number(options.seed)) ? options.seed : Number(options.seed);
const end = options.end ? Date.parse(options.end) : Math.floor((Date.now() - 2 * DAY_MS) / DAY_MS) * DAY_MS; // a UTC midnight: whole days

const { DuckDbEventStore } = await load("storage/duckdb/duckdb-event-store.js");
const { columnsOf } = await load("storage/event-columns.js");
const { UserAgentClassifier } = await load("enrich/user-agent.js");
const { IndexedGeoLookup, ensureGeoIndex, bundledGeoSources, BUILT_INDEX_DIR } = await load("enrich/geo.js");
const { referrerHost, primaryLanguage } = await load("enrich/referrer.js");
const { parsePageUrl, pageValue, campaignOf, cut } = await load("ingest/page-url.js");
const { eventValue, clientIp } = await load("ingest/pipeline.js");
const { zoneRule } = await load("stats/time-zone.js");
const { VISIT_GAP_SECONDS, BOUNCE_SECONDS } = await load("stats/catalog.js");

const log = (message) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const mib = (bytes) => Math.round(bytes / 1048576);

// ---------------------------------------------------------------------------------------
// Enrichment, cached where the product's own result depends only on the cached key

const visitorCount = Math.max(1, Math.round(count / 3));
log(`generating a pool of ${visitorCount} visitors`);
const poolStarted = Date.now();
const traffic = createTraffic({
  seed,
  domain: DOMAIN,
  visitors: visitorCount,
  eventShare: 0.05,
  engagementShare: 0.25,
  bounceShare: 0.3,
});
log(`pool ready in ${((Date.now() - poolStarted) / 1000).toFixed(1)} s`);
const agents = new UserAgentClassifier();
const geo = new IndexedGeoLookup(() => ensureGeoIndex(bundledGeoSources(), BUILT_INDEX_DIR));

/** Per visitor index, its profile (the values of PROFILE_STATS), as an index into `profiles`; -1 before. */
const profileOf = new Int32Array(visitorCount).fill(-1);
const profiles = [];
const profileIds = new Map();
let bots = 0;
let visitorsSeen = 0;

/** A visitor's fixed values (its address, user agent, language and screen never change). */
async function profileFor(hit) {
  const agent = agents.classify(hit.userAgent);
  if (agent.bot) return -2;
  const location = await geo.lookup(clientIp(hit.ip));
  const values = [
    cut(agent.browser),
    cut(agent.os),
    agent.device,
    RESOLUTION.test(hit.screenResolution) ? hit.screenResolution : "",
    primaryLanguage(hit.acceptLanguage),
    location.country,
    cut(location.city),
    location.continent,
  ];
  // Interned value by value, so a profile costs a short key and shared strings.
  const key = values.map((value, i) => valueId(i, value)).join(",");
  let id = profileIds.get(key);
  if (id === undefined) {
    id = profiles.length;
    profiles.push(values.map((value, i) => interned[i].get(value)[0]));
    profileIds.set(key, id);
  }
  return id;
}

/** Per profile column, value -> [the one copy of the value, its number]. */
const interned = PROFILE_STATS.map(() => new Map());
function valueId(column, value) {
  const known = interned[column].get(value);
  if (known) return known[1];
  const id = interned[column].size;
  interned[column].set(value, [value, id]);
  return id;
}

const pages = new Map(); // page URL -> { page, campaign } (or null: not a valid URL)
const referrers = new Map(); // referrer URL -> host
const eventValues = new Map(); // custom event (JSON) -> value

function pageOf(raw) {
  let known = pages.get(raw);
  if (known === undefined) {
    const url = parsePageUrl(raw);
    known = url ? { page: pageValue(url, WEBSITE_RULES), campaign: campaignOf(url) } : null;
    pages.set(raw, known);
  }
  return known;
}

function referrerOf(raw) {
  let host = referrers.get(raw);
  if (host === undefined) {
    host = referrerHost(raw);
    referrers.set(raw, host);
  }
  return host;
}

function eventOf(event) {
  const key = JSON.stringify(event);
  let value = eventValues.get(key);
  if (value === undefined) {
    value = eventValue(event);
    eventValues.set(key, value);
  }
  return value;
}

// ---------------------------------------------------------------------------------------
// The expected answers, counted apart from the store

const expected = Object.fromEntries(
  [
    "pageviews",
    "visitors",
    "pageviews_hours",
    "visitors_hours",
    "page",
    "landing_page",
    "referrer",
    "campaign",
    ...PROFILE_STATS,
    "event",
    "visits",
    "visits_hours",
    "exit_page",
    "bounces",
    "visit_seconds",
    "visit_pageviews",
  ].map((name) => [name, new Map()]),
);
const add = (name, value, amount = 1) => {
  const counts = expected[name];
  counts.set(value, (counts.get(value) ?? 0) + amount);
};

// Per visitor, the visit in progress (the catalog's definition, in the order events come:
// time order): its local day (number + 1; 0 for none), first and last second, the second
// before the last, its last pageview's second and page, pageviews and starting hour.
const visitDay = new Int32Array(visitorCount);
const visitStart = new Float64Array(visitorCount);
const visitEnd = new Float64Array(visitorCount);
const visitEndBefore = new Float64Array(visitorCount);
const visitLastView = new Float64Array(visitorCount);
const visitViews = new Int32Array(visitorCount);
const visitHour = new Int8Array(visitorCount);
const visitExit = new Array(visitorCount);

/**
 * Counts the visitor's visit in progress. `startingAt`: the second a new visit starts; the
 * old one's events of that second belong to the new one (a visit takes the events from
 * its start's second on), so its end is the second before them.
 */
function endVisit(visitor, startingAt = null) {
  if (visitDay[visitor] === 0) return;
  const day = dayString(visitDay[visitor] - 1);
  const end = visitEnd[visitor] === startingAt ? visitEndBefore[visitor] : visitEnd[visitor];
  const seconds = end - visitStart[visitor];
  add("visits", day);
  add("visits_hours", HOURS[visitHour[visitor]]);
  add("exit_page", visitExit[visitor]);
  if (visitViews[visitor] === 1 && seconds < BOUNCE_SECONDS) add("bounces", day);
  add("visit_seconds", day, seconds);
  add("visit_pageviews", day, visitViews[visitor]);
  visitDay[visitor] = 0;
}

/** The visitor's event at `second` of local day `dayNumber` (`page` for a pageview, else null). */
function visitEvent(visitor, second, dayNumber, hour, page) {
  const current = visitDay[visitor] === dayNumber + 1;
  if (page !== null && !(current && second - visitLastView[visitor] <= VISIT_GAP_SECONDS)) {
    endVisit(visitor, second);
    visitDay[visitor] = dayNumber + 1;
    visitStart[visitor] = second;
    visitEnd[visitor] = second;
    visitEndBefore[visitor] = second;
    visitLastView[visitor] = second;
    visitViews[visitor] = 1;
    visitHour[visitor] = hour;
    visitExit[visitor] = page;
    return;
  }
  if (!current) return; // before the visitor's first pageview of the day: in no visit
  if (second > visitEnd[visitor]) {
    visitEndBefore[visitor] = visitEnd[visitor];
    visitEnd[visitor] = second;
  }
  if (page === null) return;
  visitViews[visitor] += 1;
  // The exit page: the last pageview's; of one second, the greatest page.
  if (second > visitLastView[visitor] || page > visitExit[visitor]) visitExit[visitor] = page;
  visitLastView[visitor] = second;
}
// Per visitor: the last day (number + 1) and day-hour (day * 24 + hour + 1) it was counted
// in. Events come in time order, so "not the last one" means "not counted yet".
const countedDay = new Int32Array(visitorCount);
const countedHour = new Int32Array(visitorCount);
const dayStrings = new Map();
const dayString = (dayNumber) => {
  let text = dayStrings.get(dayNumber);
  if (text === undefined) {
    text = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    dayStrings.set(dayNumber, text);
  }
  return text;
};

// ---------------------------------------------------------------------------------------
// Seeding

const store = await DuckDbEventStore.open(options["data-dir"], { upkeep: false });
await store.migrate();
await store.setZone(websiteId, options.zone);
// The zone's offsets over the seeded instants (in time order): a pointer walks them.
const offsets = zoneRule(options.zone).segments(end - days * DAY_MS, end);
let segment = 0;

let generated = 0;
let stored = 0;
let skipped = 0;
let pageviews = 0;
let visits = 0;
let customEvents = 0;
let engagements = 0;
let generateMs = 0;
let insertMs = 0;
let firstDay = null;
let lastDay = null;
const started = performance.now();
let lastReport = started;
let reportedAt = 0;

const progress = (final = false) => {
  const now = performance.now();
  if (!final && now - lastReport < 5000) return;
  const rate = Math.round(((stored - reportedAt) * 1000) / Math.max(1, now - lastReport));
  const overall = Math.round((stored * 1000) / Math.max(1, now - started));
  const memory = process.memoryUsage();
  log(
    `${stored} / ${count} events stored (${((stored / count) * 100).toFixed(1)} %): ${rate} events/s now, ${overall} events/s overall; generating ${(generateMs / 1000).toFixed(1)} s, inserting ${(insertMs / 1000).toFixed(1)} s; heap ${mib(memory.heapUsed)} MiB, RSS ${mib(memory.rss)} MiB`,
  );
  lastReport = now;
  reportedAt = stored;
};

let batch = [];
let closeMs = 0;
let foldMs = 0;
const flush = async () => {
  if (batch.length === 0) return;
  const began = performance.now();
  await store.insert(columnsOf(batch));
  insertMs += performance.now() - began;
  stored += batch.length;
  batch = [];
  progress();
};

try {
  let began = performance.now();
  for (const ms of timestamps({ count, days, end, seed })) {
    const hit = traffic.next();
    generated += 1;
    const visitor = hit.visitorIndex;
    let profile = profileOf[visitor];
    if (profile === -1) {
      profile = await profileFor(hit);
      profileOf[visitor] = profile;
      visitorsSeen += 1;
    }
    const page = pageOf(hit.page);
    const event = hit.event ? eventOf(hit.event) : "";
    if (profile === -2 || page === null || event === null) {
      if (profile === -2) bots += 1;
      skipped += 1;
      continue;
    }
    while (segment + 1 < offsets.length && ms >= offsets[segment + 1].start) segment += 1;
    const local = ms + offsets[segment].offset * 1000;
    const dayNumber = Math.floor(local / DAY_MS);
    const hour = Math.floor((local - dayNumber * DAY_MS) / HOUR_MS);
    const day = dayString(dayNumber);
    if (firstDay === null) firstDay = day;
    lastDay = day;
    const referrer = referrerOf(hit.referrer);
    const kind = hit.event ? "event" : hit.engagement ? "engagement" : "pageview";
    const isVisit = kind === "pageview" && referrer !== DOMAIN;
    const values = profiles[profile];
    batch.push({
      websiteId,
      ts: new Date(ms),
      visitor: BigInt(visitor) * 100_000n + BigInt(dayNumber),
      kind,
      isVisit,
      page: page.page,
      referrer: isVisit ? cut(referrer) : "",
      campaign: isVisit ? page.campaign : "",
      browser: values[0],
      os: values[1],
      device: values[2],
      resolution: values[3],
      language: values[4],
      country: values[5],
      city: values[6],
      continent: values[7],
      event,
    });

    visitEvent(visitor, Math.floor(ms / 1000), dayNumber, hour, kind === "pageview" ? page.page : null);
    if (kind === "engagement") engagements += 1;
    else if (kind === "event") {
      customEvents += 1;
      add("event", event);
    } else {
      pageviews += 1;
      add("pageviews", day);
      add("pageviews_hours", HOURS[hour]);
      add("page", page.page);
      if (isVisit) {
        visits += 1;
        add("landing_page", page.page);
        add("referrer", cut(referrer));
        if (page.campaign !== "") add("campaign", page.campaign); // visits without one are not listed
      }
      if (countedDay[visitor] !== dayNumber + 1) {
        countedDay[visitor] = dayNumber + 1;
        add("visitors", day);
        PROFILE_STATS.forEach((name, i) => {
          add(name, values[i]);
        });
      }
      const dayHour = dayNumber * 24 + hour + 1;
      if (countedHour[visitor] !== dayHour) {
        countedHour[visitor] = dayHour;
        add("visitors_hours", HOURS[hour]);
      }
    }

    if (batch.length >= batchSize) {
      generateMs += performance.now() - began;
      await flush();
      began = performance.now();
    }
  }
  generateMs += performance.now() - began;
  await flush();
  for (let visitor = 0; visitor < visitorCount; visitor++) endVisit(visitor);
  // Every seeded day is past: fold them all now, as a server would once they settled.
  const folding = performance.now();
  await store.rebuildAggregates();
  foldMs = performance.now() - folding;
} finally {
  const closing = performance.now();
  await store.close();
  closeMs = performance.now() - closing;
}
progress(true);

const sorted = (counts) =>
  [...counts.entries()]
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
fs.writeFileSync(
  options.expected,
  JSON.stringify({
    from: firstDay,
    to: lastDay,
    events: stored,
    pageviews,
    visits,
    customEvents,
    engagements,
    stats: Object.fromEntries(Object.entries(expected).map(([name, counts]) => [name, sorted(counts)])),
  }),
);

const seconds = (performance.now() - started) / 1000;
console.log(
  JSON.stringify({
    events: stored,
    generated,
    skipped,
    bots,
    pageviews,
    visits,
    customEvents,
    engagements,
    visitorPool: visitorCount,
    visitorsSeen,
    profiles: profiles.length,
    from: firstDay,
    to: lastDay,
    seconds: Math.round(seconds * 10) / 10,
    eventsPerSecond: Math.round(stored / seconds),
    generateSeconds: Math.round(generateMs / 100) / 10,
    insertSeconds: Math.round(insertMs / 100) / 10,
    insertEventsPerSecond: Math.round((stored * 1000) / Math.max(1, insertMs)),
    foldSeconds: Math.round(foldMs / 100) / 10,
    closeSeconds: Math.round(closeMs / 100) / 10,
    peakRssMiB: mib(process.resourceUsage().maxRSS * 1024),
  }),
);
