// The EventStore contract's cases (src/storage/ports.ts), run through the port alone against
// every engine of event-stores.ts: insert (all or nothing, counts, listing), every statistic of
// the hand-computed fixture, search, sort and paging, hostile strings, delete, export
// (filtered, and inserted into a fresh store of every engine), rebuild, and the same random
// events giving every engine the answers the catalog defines. Three test files run them
// (event-store-contract, event-store-writes, event-store-parity), so the test runner's two
// slots share the work: one file of every engine's cases took 11 of CI's 17.5 minutes.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../../src/clock.js";
import { STATS, statByName } from "../../src/stats/catalog.js";
import {
  FILTER_DIMENSIONS,
  type FilterOperator,
  parseFilters,
  type StatsFilter,
} from "../../src/stats/stats-filter.js";
import {
  batchQueries,
  type DayCounts,
  type DaysQuery,
  daysOneByOne,
  type StatsPage,
  type StatsQuery,
} from "../../src/stats/stats-query.js";
import { columnsOf } from "../../src/storage/event-columns.js";
import {
  EVENT_TEXT_FIELDS,
  type EventColumns,
  type EventStore,
  type ExportOptions,
  type StoredEvent,
} from "../../src/storage/ports.js";
import {
  AVAILABLE_EVENT_STORES,
  type EventStoreUnderTest,
  type OpenedStore,
  openTestStore,
} from "./event-stores.js";
import { HOSTILE } from "./hostile-strings.js";
import { referenceStat } from "./reference-stats.js";
import { pick, random, randomEvents } from "./seeded-random.js";
import { BATCH_VARIANTS, EVERY_ROW as EVERY_ROW_QUERY, VARIANTS, visitorPool } from "./stat-answers.js";
import { EXPECTED, FILTERED, FIXTURE_RANGE, fixtureEvents } from "./stats-fixture.js";
import { eventKey, storedEvents, visitorPattern, withoutVisitor } from "./stored-events.js";

/** Random traffic runs over four days from START; "now" is in the last, so two are recent. */
const START = Date.UTC(2026, 5, 10);
const DAYS = 4;
const day = (n: number) => new Date(START + n * 86_400_000).toISOString().slice(0, 10);
const clock = () => new ManualClock(new Date(START + 3.5 * 86_400_000));

/** The websites of the shared store: the fixture, random traffic, paging, hostile strings, instants, realtime. */
const FIXTURE_SITE = 1;
const RANDOM_SITES = [11, 12] as const;
const PAGING_SITE = 7;
const HOSTILE_SITE = 9;
const INSTANT_SITE = 5;
/** Traffic whose visitors keep their attributes (browser, place...), some days mixed. */
const ATTRIBUTE_SITE = 10;
const REALTIME_SITE = 6;

type Variant = (typeof VARIANTS)[number];
/** Every row by count, and three rows from the third by count ascending (stat-answers.ts). */
const [EVERY_ROW, , A_PAGE] = VARIANTS as [Variant, Variant, Variant];
/** The whole month, one old day, an old and a recent day, the recent days, a month without events. */
const WINDOWS: [string, string][] = [
  ["2026-06-01", "2026-06-30"],
  [day(1), day(1)],
  [day(1), day(2)],
  [day(2), day(3)],
  ["2026-07-01", "2026-07-31"],
];
/**
 * Fewer questions where a case asks them several times (a ClickHouse query takes about
 * 13 ms on the test cluster): the month, an old and a recent day, and the fixture's days;
 * every row, and a page from an offset.
 */
const SOME_WINDOWS: [string, string][] = [
  ["2026-06-01", "2026-06-30"],
  [day(1), day(2)],
  [FIXTURE_RANGE.from, FIXTURE_RANGE.to],
];
const SOME_VARIANTS: Variant[] = [EVERY_ROW, A_PAGE];

function query(websiteId: number, name: string, options: Partial<StatsQuery> = {}): StatsQuery {
  return {
    websiteId,
    stat: statByName(name) ?? assert.fail(`no statistic ${name}`),
    ...FIXTURE_RANGE,
    ...EVERY_ROW_QUERY,
    ...options,
  };
}

const pairs = (page: StatsPage) => page.rows.map((row) => [row.value, row.count]);

/** Questions asked at once: a ClickHouse query mostly waits on the network (about 13 ms each). */
const IN_FLIGHT = 6;

/** What answers() asks: a store, the reference (reference()), or queryStat alone. */
type Asker =
  | ((query: StatsQuery) => Promise<StatsPage> | StatsPage)
  | {
      queryStat(query: StatsQuery): Promise<StatsPage> | StatsPage;
      queryDays(query: DaysQuery): Promise<DayCounts>;
    };

/** The reference's answers (reference-stats.ts) over `events`, the statistics of days one by one. */
function reference(events: readonly StoredEvent[]) {
  const queryStat = (query: StatsQuery) => referenceStat(events, query);
  return { queryStat, queryDays: (query: DaysQuery) => daysOneByOne(query, async (q) => queryStat(q)) };
}

/** The statistics of days (the catalog's dimension "day"), which queryDays answers together. */
const DAY_STATS = STATS.filter((stat) => stat.dimension === "day");

/**
 * Every statistic of a website over `windows` in every variant, keyed by what was asked;
 * unless `ask` is queryStat alone, every statistic of days read together too, per window
 * and set of filters.
 */
async function answers(
  ask: Asker,
  websiteId: number,
  windows = WINDOWS,
  variants = VARIANTS,
  filterSets: readonly (readonly StatsFilter[])[] = [[]],
  zone = "UTC",
): Promise<Record<string, StatsPage | DayCounts>> {
  const queryStat = typeof ask === "function" ? ask : (query: StatsQuery) => ask.queryStat(query);
  const queryDays = typeof ask === "function" ? null : (query: DaysQuery) => ask.queryDays(query);
  const queries: [string, () => Promise<StatsPage | DayCounts> | StatsPage][] = [];
  for (const [from, to] of windows) {
    for (const [f, filters] of filterSets.entries()) {
      for (const stat of STATS) {
        for (const [i, variant] of variants.entries()) {
          const query = { websiteId, stat, zone, from, to, filters, ...variant };
          queries.push([`${stat.name} ${from}..${to} #${i} filters #${f}`, () => queryStat(query)]);
        }
      }
      if (queryDays !== null) {
        const query = { websiteId, stats: DAY_STATS, zone, from, to, filters };
        queries.push([`days ${from}..${to} filters #${f}`, () => queryDays(query)]);
      }
    }
  }
  const result: Record<string, StatsPage | DayCounts> = {};
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const [key, asked] = queries[next++] as (typeof queries)[number];
      result[key] = await asked();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return result;
}

/** Values of randomEvents (seeded-random.ts) per filter dimension, with "" and one never stored. */
const FILTER_VALUES: Record<string, string[]> = {
  page: ["/", "/a", "/B", "/c?x=1", "/100%_off"],
  landing_page: ["/", "/B", "/100%_off"],
  referrer: ["", "google.com", "t.co"],
  campaign: ["", "spring"],
  browser: ["Chrome", "Safari"],
  os: ["Windows", "iOS"],
  device: ["desktop", "mobile"],
  resolution: ["1920x1080", "390x844"],
  language: ["en", "de", "fr"],
  country: ["", "US:United States", "DE:Germany"],
  city: ["", "US:Boston", "DE:Berlin"],
  continent: ["", "NA:North America", "EU:Europe"],
  event: ["Buy", "Signup", "Buy:9.5:EUR"],
};
/** Needles of the contains operators: letters of either case, SQL wildcards, a colon. */
const NEEDLES = ["o", "b", "%_", "us", ":", "er", "/c?"];

/** One to three random filters over every dimension and operator (values as the parser gives them). */
function randomFilters(next: () => number): StatsFilter[] {
  return Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
    const dimension = pick(next, FILTER_DIMENSIONS);
    const operator = pick(next, ["is", "is_not", "contains", "does_not_contain"] as FilterOperator[]);
    const contains = operator === "contains" || operator === "does_not_contain";
    const value = contains
      ? pick(next, NEEDLES)
      : pick(next, [...(FILTER_VALUES[dimension.name] ?? []), "nope"]);
    return { dimension, operator, value };
  });
}

/** Batches of random events of RANDOM_SITES over the four days, some of one event. */
function randomBatches(seed: number, batches: number, most: number): StoredEvent[][] {
  const next = random(seed);
  const visitors = visitorPool(next);
  return Array.from({ length: batches }, (_, i) =>
    randomEvents(next, i % 3 === 2 ? 1 : 1 + Math.floor(next() * most), {
      start: START,
      days: DAYS,
      visitor: () => pick(next, visitors),
    }).map((event) => ({ ...event, websiteId: event.websiteId === 1 ? 11 : 12 })),
  );
}

/** The website counted in a time zone, and the windows around Berlin's change of 29 March 2026. */
const ZONE_SITE = 8;
/** No filter, and two random sets: filtered statistics of folded days read other tables. */
const ZONE_FILTERS: StatsFilter[][] = [
  [],
  ...(() => {
    const next = random(61);
    return [randomFilters(next), randomFilters(next)];
  })(),
];
// The change's day alone (23 hours in Berlin), and inside a window. A third window, the three
// days around the change (days the first window holds), took a third of this case's time on
// every engine, about 35 s of CI.
const ZONE_WINDOWS: [string, string][] = [
  ["2026-03-25", "2026-04-02"],
  ["2026-03-29", "2026-03-29"],
];

/**
 * Pageviews around Berlin's change to summer time (01:00 UTC on 29 March 2026), each
 * visitor's hash salted per Berlin day as the pipeline would: UTC 22:30 on the 28th is 23:30
 * there, 23:30 is 00:30 on the 29th, 00:59:59 is 01:59:59, 01:00 is 03:00, 21:59:59 is 23:59:59,
 * 22:00 is midnight of the 30th.
 */
function berlinEvents(): StoredEvent[] {
  const base = fixtureEvents(ZONE_SITE)[0] as StoredEvent;
  const at = (ts: string, visitor: bigint, page: string): StoredEvent => ({
    ...base,
    ts: new Date(ts),
    visitor,
    kind: "pageview",
    isVisit: true,
    page,
    event: "",
  });
  return [
    at("2026-03-28T22:30:00Z", 101n, "/a"),
    at("2026-03-28T23:30:00Z", 201n, "/b"),
    at("2026-03-29T00:59:59Z", 201n, "/b"),
    at("2026-03-29T01:00:00Z", 201n, "/b"),
    at("2026-03-29T21:59:59Z", 202n, "/c"),
    at("2026-03-29T22:00:00Z", 301n, "/a"),
  ];
}

/**
 * Random events of ZONE_SITE over 25 March to 2 April 2026, a visitor's hash salted per
 * local day of `zone` as the pipeline's are (a person is one hash a day, another the next).
 */
function zoneEvents(seed: number, zone: string): StoredEvent[] {
  const next = random(seed);
  const people = Array.from({ length: 40 }, (_, i) => BigInt(i + 1));
  const dayIn = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  return randomEvents(next, 600, {
    start: Date.UTC(2026, 2, 25),
    days: 9,
    visitor: () => pick(next, people),
  }).map((event) => ({
    ...event,
    websiteId: ZONE_SITE,
    visitor: event.visitor * 100_000n + BigInt(Date.parse(dayIn.format(event.ts)) / 86_400_000),
  }));
}

async function exported(store: EventStore, options?: ExportOptions): Promise<StoredEvent[][]> {
  const batches: StoredEvent[][] = [];
  for await (const batch of store.exportEvents(options)) batches.push(batch);
  return batches;
}

const keys = (events: readonly StoredEvent[]) => events.map(eventKey).sort();
const dayOf = (event: StoredEvent) => event.ts.toISOString().slice(0, 10);

/** A pageview of `websiteId` with every text field `value`. */
function everywhere(websiteId: number, value: string, i: number): StoredEvent {
  return {
    websiteId,
    ts: new Date(Date.UTC(2026, 3, 1, 12, 0, i)),
    visitor: BigInt(i + 1),
    kind: "pageview",
    isVisit: true,
    page: value,
    referrer: value,
    campaign: value,
    browser: value,
    os: value,
    device: value,
    resolution: value,
    language: value,
    country: value,
    city: value,
    continent: value,
    event: "",
  };
}

/** 25 pages viewed 1 to 5 times each, so counts tie in groups of five. */
function pagingEvents(): StoredEvent[] {
  const base = fixtureEvents(PAGING_SITE)[1] as StoredEvent;
  return Array.from({ length: 25 }, (_, page) =>
    Array.from({ length: (page % 5) + 1 }, (_, view) => ({
      ...base,
      ts: new Date(Date.UTC(2026, 3, 1, 12, page, view)),
      page: `/p/${page}`,
    })),
  ).flat();
}

/** Events whose instants have milliseconds, two of them in the last second of a day. */
function instantEvents(): StoredEvent[] {
  const base = fixtureEvents(INSTANT_SITE)[0] as StoredEvent;
  return [
    { ...base, ts: new Date("2026-06-11T23:59:59.999Z"), visitor: 1n },
    { ...base, ts: new Date("2026-06-11T23:59:59.001Z"), visitor: 2n },
    { ...base, ts: new Date("2026-06-12T00:00:00.500Z"), visitor: 1n },
  ];
}

/** "Now" for realtime, two and a half minutes into a day. */
const REALTIME_NOW = Date.parse("2026-06-12T00:02:30Z");

/** Pageviews and an event around REALTIME_NOW: some in its windows, some just outside. */
function realtimeEvents(): StoredEvent[] {
  const base = fixtureEvents(REALTIME_SITE)[1] as StoredEvent;
  const at = (ts: string, visitor: bigint, kind: StoredEvent["kind"] = "pageview") => ({
    ...base,
    ts: new Date(ts),
    visitor,
    kind,
  });
  return [
    at("2026-06-11T23:32:59Z", 6n), // before the first minute
    at("2026-06-11T23:33:05Z", 6n), // the first minute; before the last 5 minutes
    at("2026-06-11T23:57:00Z", 3n),
    at("2026-06-11T23:58:10Z", 1n), // the last 5 minutes: (day 11, 1)
    at("2026-06-12T00:01:00Z", 1n), // a new day, a new visitor: (day 12, 1)
    at("2026-06-12T00:02:00Z", 2n),
    at("2026-06-12T00:02:10Z", 2n), // (day 12, 2) once
    at("2026-06-12T00:02:20Z", 4n, "event"), // not a pageview
    at("2026-06-12T00:02:31Z", 5n), // after now
  ];
}

/** The contract's reading cases for one engine. */
export function describeReadContract(engine: EventStoreUnderTest): void {
  describe(`EventStore contract: ${engine.name}`, { skip: engine.skip }, () => {
    let opened: OpenedStore;
    let store: EventStore;
    /** Everything the shared store holds. */
    const stored: StoredEvent[] = [];

    before(async () => {
      opened = await openTestStore(engine, clock());
      store = opened.store;
      const batches = [
        fixtureEvents(FIXTURE_SITE),
        pagingEvents(),
        HOSTILE.map((value, i) => everywhere(HOSTILE_SITE, value, i)),
        instantEvents(),
        realtimeEvents(),
        ...randomBatches(7, 5, 300),
      ];
      for (const batch of batches) {
        await store.insert(columnsOf(batch));
        stored.push(...batch);
      }
    });
    after(() => opened?.close());

    it("counts the events stored, in all and per website", async () => {
      assert.equal(await store.countEvents(), stored.length);
      for (const websiteId of [FIXTURE_SITE, ...RANDOM_SITES, PAGING_SITE, 404]) {
        const expected = stored.filter((event) => event.websiteId === websiteId).length;
        assert.equal(await store.countEvents(websiteId), expected, `website ${websiteId}`);
      }
    });

    it("lists a website's events in time order, each as inserted, its visitors kept apart per day", async () => {
      const listed = await storedEvents(store, FIXTURE_SITE);
      const inserted = fixtureEvents(FIXTURE_SITE);
      assert.deepEqual(listed.map(withoutVisitor), inserted.map(withoutVisitor));
      assert.deepEqual(visitorPattern(listed), visitorPattern(inserted));

      const random = await storedEvents(store, RANDOM_SITES[0]);
      assert.deepEqual(keys(random), keys(stored.filter((event) => event.websiteId === RANDOM_SITES[0])));
      for (let i = 1; i < random.length; i++) {
        assert.ok((random[i - 1] as StoredEvent).ts <= (random[i] as StoredEvent).ts, "time order");
      }
      assert.deepEqual(await storedEvents(store, 404), []);
    });

    it("keeps an instant to the second it falls in, for its listing, day and hour", async () => {
      const listed = await storedEvents(store, INSTANT_SITE);
      assert.deepEqual(
        listed.map((event) => event.ts.toISOString()),
        ["2026-06-11T23:59:59.000Z", "2026-06-11T23:59:59.000Z", "2026-06-12T00:00:00.000Z"],
      );
      const window = { from: "2026-06-11", to: "2026-06-12" };
      assert.deepEqual(pairs(await store.queryStat(query(INSTANT_SITE, "pageviews", window))), [
        ["2026-06-11", 2],
        ["2026-06-12", 1],
      ]);
      assert.deepEqual(pairs(await store.queryStat(query(INSTANT_SITE, "visitors_hours", window))), [
        ["23", 2],
        ["00", 1],
      ]);
    });

    it("counts the last minutes' pageviews per minute and their visitors per day, for realtime", async () => {
      const counts = await store.queryRealtime({
        websiteId: REALTIME_SITE,
        visitorsFrom: REALTIME_NOW - 5 * 60_000,
        minutesFrom: Date.parse("2026-06-11T23:33:00Z"),
        until: REALTIME_NOW,
      });
      assert.equal(counts.visitors, 3);
      assert.deepEqual(
        counts.minutes
          .map((entry) => [new Date(entry.minute).toISOString().slice(11, 16), entry.pageviews])
          .sort(),
        [
          ["00:01", 1],
          ["00:02", 2],
          ["23:33", 1],
          ["23:57", 1],
          ["23:58", 1],
        ],
      );
      const none = await store.queryRealtime({
        websiteId: 404,
        visitorsFrom: REALTIME_NOW - 5 * 60_000,
        minutesFrom: REALTIME_NOW - 30 * 60_000,
        until: REALTIME_NOW,
      });
      assert.deepEqual(none, { visitors: 0, minutes: [] });
    });

    it("answers every statistic of the fixture exactly as computed by hand", async () => {
      const result: Record<string, unknown> = {};
      for (const stat of STATS)
        result[stat.name] = pairs(await store.queryStat(query(FIXTURE_SITE, stat.name)));
      assert.deepEqual(result, EXPECTED);
    });

    it("counts only the days of the range, both ends included", async () => {
      const day2 = { from: "2026-04-02", to: "2026-04-02" };
      assert.deepEqual(pairs(await store.queryStat(query(FIXTURE_SITE, "pageviews", day2))), [
        ["2026-04-02", 2],
      ]);
      assert.deepEqual(pairs(await store.queryStat(query(FIXTURE_SITE, "browser", day2))), [
        ["Chrome", 1],
        ["Firefox", 1],
      ]);
      assert.deepEqual(
        pairs(
          await store.queryStat(query(FIXTURE_SITE, "pageviews", { from: "2026-04-02", to: "2026-04-03" })),
        ),
        [
          ["2026-04-02", 2],
          ["2026-04-03", 1],
        ],
      );
      const may = { from: "2026-05-01", to: "2026-05-31" };
      assert.deepEqual(await store.queryStat(query(FIXTURE_SITE, "page", may)), { rows: [], total: 0 });
    });

    it("sorts by count or by value either way, equal counts by value ascending", async () => {
      const browsers = async (options: Partial<StatsQuery>) =>
        pairs(await store.queryStat(query(FIXTURE_SITE, "browser", options)));
      assert.deepEqual(await browsers({ sort: "asc" }), [
        ["Firefox", 1],
        ["Chrome", 2],
        ["Safari", 2],
      ]);
      assert.deepEqual(await browsers({ sort: "desc" }), [
        ["Chrome", 2],
        ["Safari", 2],
        ["Firefox", 1],
      ]);
      assert.deepEqual(await browsers({ sortBy: "value", sort: "asc" }), [
        ["Chrome", 2],
        ["Firefox", 1],
        ["Safari", 2],
      ]);
      assert.deepEqual(await browsers({ sortBy: "value", sort: "desc" }), [
        ["Safari", 2],
        ["Firefox", 1],
        ["Chrome", 2],
      ]);
      assert.deepEqual(
        pairs(await store.queryStat(query(FIXTURE_SITE, "pageviews", { sortBy: "value", sort: "asc" }))),
        [
          ["2026-04-01", 4],
          ["2026-04-02", 2],
          ["2026-04-03", 1],
        ],
      );
    });

    it("finds values containing the lowercase needle, case-insensitively and literally", async () => {
      const search = async (name: string, needle: string) =>
        await store.queryStat(query(FIXTURE_SITE, name, { search: needle }));
      assert.deepEqual(await search("referrer", "google"), {
        rows: [{ value: "google.com", count: 2 }],
        total: 1,
      });
      assert.deepEqual(pairs(await search("browser", "chr")), [["Chrome", 2]], "values of any case");
      assert.deepEqual(pairs(await search("page", "_")), [["/?utm_campaign=spring", 2]], "_ is literal");
      assert.deepEqual(await search("page", "%"), { rows: [], total: 0 }, "% is literal");
      assert.deepEqual(pairs(await search("pageviews", "04-02")), [["2026-04-02", 2]], "days are values");
      assert.deepEqual(pairs(await search("event", "purchase:49.99")), [["Purchase:49.99:USD", 2]]);
    });

    it("counts only the events every filter holds for, as computed by hand", async () => {
      for (const { stat, filters, rows } of FILTERED) {
        const parsed = parseFilters(filters);
        if ("problem" in parsed) assert.fail(`${filters}: ${parsed.problem}`);
        const page = await store.queryStat(query(FIXTURE_SITE, stat, { filters: parsed.filters }));
        assert.deepEqual(pairs(page), rows, `${stat} filtered by ${filters}`);
        assert.equal(page.total, rows.length, `${stat} filtered by ${filters}: total`);
      }
    });

    it("counts under random filters what the catalog and the filters' definitions count", async () => {
      const next = random(41);
      const filterSets = Array.from({ length: 16 }, () => randomFilters(next));
      for (const websiteId of RANDOM_SITES) {
        const ask = (ask: Asker) =>
          answers(
            ask,
            websiteId,
            [
              ["2026-06-01", "2026-06-30"],
              [day(1), day(2)],
            ],
            [EVERY_ROW],
            filterSets,
          );
        assert.deepEqual(await ask(store), await ask(reference(stored)), `website ${websiteId}`);
      }
    });

    it("reads a batch of statistics as it reads each, with and without filters", async () => {
      const next = random(43);
      const onEvents = parseFilters("page==/a");
      const onVisitors = parseFilters("browser!=Chrome");
      if ("problem" in onEvents || "problem" in onVisitors) assert.fail("filters");
      // An event's, a visitor's, and a random set (an engine may count a batch's lists of
      // visitors together under an event's filters).
      const filterSets = [[], onEvents.filters, onVisitors.filters, randomFilters(next)];
      // Every statistic's every row; the lists of visitors (by the visitor's attributes and
      // by hour) also a page from an offset; the counts of rows by a value (an engine may
      // count them together under filters) each paged, sorted and searched another way.
      const pages = [
        ...STATS.map((stat) => ({ stat, ...EVERY_ROW })),
        ...STATS.filter((stat) => stat.measure === "visitors" && stat.dimension !== "day").map((stat) => ({
          stat,
          ...A_PAGE,
        })),
        ...STATS.filter(
          (stat) => stat.measure === "rows" && stat.rows !== "visits" && stat.dimension !== "day",
        ).map((stat, i) => ({ stat, ...(BATCH_VARIANTS[i % BATCH_VARIANTS.length] as Variant) })),
      ];
      // (A zone with an offset: duckdb-aggregates.test.ts.)
      const windows = [
        ["2026-06-01", "2026-06-30"],
        [day(1), day(2)],
      ] as const;
      for (const websiteId of RANDOM_SITES) {
        for (const [from, to] of windows) {
          for (const filters of filterSets) {
            const batch = { websiteId, zone: "UTC", from, to, filters, pages };
            const each = await Promise.all(batchQueries(batch).map((query) => referenceStat(stored, query)));
            const got = await store.queryStats(batch);
            pages.forEach((page, i) => {
              assert.deepEqual(
                got[i],
                each[i],
                `${page.stat.name} ${websiteId} ${from}..${to} ${JSON.stringify(filters)}`,
              );
            });
          }
        }
      }
    });

    it("gives `limit` rows from `offset`, and the number of matching values over all pages", async () => {
      const seen: [string, number][] = [];
      for (let offset = 0; offset < 30; offset += 10) {
        const page = await store.queryStat(query(PAGING_SITE, "page", { limit: 10, offset }));
        assert.equal(page.total, 25, `total at offset ${offset}`);
        seen.push(...page.rows.map((row) => [row.value, row.count] as [string, number]));
      }
      const expected = [...Array(25).keys()]
        .map((page) => [`/p/${page}`, (page % 5) + 1] as [string, number])
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      assert.deepEqual(seen, expected, "every value once, in a stable order");
      assert.deepEqual(await store.queryStat(query(PAGING_SITE, "page", { limit: 10, offset: 30 })), {
        rows: [],
        total: 25,
      });
      const searched = await store.queryStat(
        query(PAGING_SITE, "page", { search: "/p/1", limit: 2, offset: 1 }),
      );
      assert.deepEqual(searched, {
        rows: [
          { value: "/p/19", count: 5 },
          { value: "/p/13", count: 4 },
        ],
        total: 11,
      });
    });

    it("answers nothing for a website without events", async () => {
      for (const stat of STATS) {
        assert.deepEqual(await store.queryStat(query(404, stat.name)), { rows: [], total: 0 }, stat.name);
      }
    });

    it("stores hostile strings unchanged and finds each as a literal substring", async () => {
      const values = await storedEvents(store, HOSTILE_SITE);
      assert.deepEqual(
        values.map(withoutVisitor),
        HOSTILE.map((value, i) => withoutVisitor(everywhere(HOSTILE_SITE, value, i))),
      );
      const hostileQuery = (name: string, search: string | null) =>
        query(HOSTILE_SITE, name, {
          from: "2026-04-01",
          to: "2026-04-01",
          search,
          sortBy: "value",
          sort: "asc",
        });
      for (const name of ["page", "referrer", "campaign", "browser", "city", "continent"]) {
        const page = await store.queryStat(hostileQuery(name, null));
        assert.deepEqual(page.rows.map((row) => row.value).sort(), [...HOSTILE].sort(), name);
        assert.equal(page.total, HOSTILE.length, name);
      }
      for (const value of HOSTILE) {
        const needle = value.toLowerCase();
        const page = await store.queryStat(hostileQuery("page", needle));
        const expected = HOSTILE.filter((candidate) => candidate.toLowerCase().includes(needle)).sort();
        assert.deepEqual(
          page.rows.map((row) => row.value).sort(),
          expected,
          `search ${JSON.stringify(value)}`,
        );
        // The same strings as filter values: equal to exactly one, contained in those above.
        const filtered = async (filter: StatsFilter) =>
          (await store.queryStat({ ...hostileQuery("page", null), filters: [filter] })).rows.map(
            (row) => row.value,
          );
        const onReferrer = FILTER_DIMENSIONS.find((dimension) => dimension.name === "referrer");
        assert.ok(onReferrer);
        assert.deepEqual(
          await filtered({ dimension: onReferrer, operator: "is", value }),
          [value],
          `== ${JSON.stringify(value)}`,
        );
        if (needle !== "") {
          assert.deepEqual(
            (await filtered({ dimension: onReferrer, operator: "contains", value: needle })).sort(),
            expected,
            `~ ${JSON.stringify(value)}`,
          );
        }
      }
    });

    it("exports every event by website then time, in non-empty batches, filtered by website and days", async () => {
      const batches = await exported(store);
      assert.ok(
        batches.every((batch) => batch.length > 0),
        "no empty batch",
      );
      const all = batches.flat();
      assert.deepEqual(keys(all), keys(stored));
      for (let i = 1; i < all.length; i++) {
        const [a, b] = [all[i - 1] as StoredEvent, all[i] as StoredEvent];
        assert.ok(a.websiteId < b.websiteId || (a.websiteId === b.websiteId && a.ts <= b.ts), "order");
      }
      // The visitors of each website's day stay as many as were stored.
      const visitorsPerDay = (events: readonly StoredEvent[]) => {
        const days = new Map<string, Set<bigint>>();
        for (const event of events) {
          const key = `${event.websiteId} ${dayOf(event)}`;
          days.set(key, (days.get(key) ?? new Set()).add(event.visitor));
        }
        return Object.fromEntries([...days].map(([key, visitors]) => [key, visitors.size]));
      };
      assert.deepEqual(visitorsPerDay(all), visitorsPerDay(stored));

      const [site] = RANDOM_SITES;
      for (const options of [
        { websiteId: site },
        { from: day(2) },
        { to: day(1) },
        { websiteId: site, from: day(1), to: day(2) },
        { from: day(2), to: day(2) },
        { websiteId: 404 },
      ] satisfies ExportOptions[]) {
        const expected = stored.filter(
          (event) =>
            (options.websiteId === undefined || event.websiteId === options.websiteId) &&
            (options.from === undefined || dayOf(event) >= options.from) &&
            (options.to === undefined || dayOf(event) <= options.to),
        );
        assert.deepEqual(
          keys((await exported(store, options)).flat()),
          keys(expected),
          JSON.stringify(options),
        );
      }
    });

    // Each engine's export goes into the next available engine (the last's into the first;
    // alone, into itself): every engine is exported from and inserted into once, and as every
    // engine's store holds the same events, answers equal along the ring are equal across all
    // (describeSameRandomEvents compares the engines' answers directly). All 9 pairs of three
    // engines took 110-160 s of each engine's suite, most of the contract's time.
    const engines = AVAILABLE_EVENT_STORES.map((available) => available.name);
    const target = AVAILABLE_EVENT_STORES[(engines.indexOf(engine.name) + 1) % engines.length];
    if (target !== undefined) {
      it(`gives the same answers when its export is inserted into an empty ${target.name} store`, async () => {
        const copy = await openTestStore(target, clock());
        try {
          for await (const batch of store.exportEvents()) await copy.store.insert(columnsOf(batch));
          assert.equal(await copy.store.countEvents(), stored.length);
          for (const websiteId of [FIXTURE_SITE, ...RANDOM_SITES, INSTANT_SITE]) {
            assert.deepEqual(
              await answers((q) => copy.store.queryStat(q), websiteId, SOME_WINDOWS, SOME_VARIANTS),
              await answers((q) => store.queryStat(q), websiteId, SOME_WINDOWS, SOME_VARIANTS),
              `website ${websiteId}`,
            );
          }
        } finally {
          await copy.close();
        }
      });
    }
  });
}

/** The contract's writing cases for one engine: failed batches, delete, zones, rebuild. */
export function describeWriteContract(engine: EventStoreUnderTest): void {
  describe(`EventStore contract: ${engine.name}, writes`, { skip: engine.skip }, () => {
    /**
     * A store holding `first`, after a batch of `second` and thousands more events failed
     * on its last event, which cannot be read: it fails after the others were read.
     */
    const afterFailedBatch = async () => {
      const opened = await openTestStore(engine, clock());
      const [first, second] = randomBatches(3, 2, 200) as [StoredEvent[], StoredEvent[]];
      const many = randomBatches(5, 1, 5_000)[0] as StoredEvent[];
      const failed = [
        ...second,
        ...Array.from({ length: 5_000 }, (_, i) => ({ ...(many[i % many.length] as StoredEvent) })),
      ];
      // The last event's page, a value of its own, throws when read.
      const unreadable = columnsOf([
        ...failed,
        { ...(second[0] as StoredEvent), page: "https://unreadable.example/" },
      ]);
      const pages = unreadable.texts[EVENT_TEXT_FIELDS.indexOf("page")] as EventColumns["texts"][number];
      Object.defineProperty(pages.values, pages.values.indexOf("https://unreadable.example/"), {
        get: () => {
          throw new Error("this event cannot be read");
        },
      });
      try {
        await opened.store.insert(columnsOf(first));
        await opened.store.insert(columnsOf([]));
        await assert.rejects(async () => opened.store.insert(unreadable), /cannot be read/);
      } catch (error) {
        await opened.close();
        throw error;
      }
      return { ...opened, first, failed };
    };
    const expectAnswers = async (store: EventStore, events: readonly StoredEvent[], when: string) => {
      for (const websiteId of RANDOM_SITES) {
        assert.deepEqual(
          await answers((q) => store.queryStat(q), websiteId, SOME_WINDOWS, SOME_VARIANTS),
          await answers((q) => referenceStat(events, q), websiteId, SOME_WINDOWS, SOME_VARIANTS),
          `website ${websiteId} ${when}`,
        );
      }
    };

    it("stores nothing of an empty batch, nor of a batch that fails part way", async () => {
      const { store, close, first } = await afterFailedBatch();
      try {
        assert.equal(await store.countEvents(), first.length);
        await expectAnswers(store, first, "counts the first batch alone");
        assert.deepEqual(keys((await exported(store)).flat()), keys(first));
      } finally {
        await close();
      }
    });

    it("stores a failed batch's events later as if it had never been tried", async () => {
      const { store, close, first, failed } = await afterFailedBatch();
      try {
        await store.insert(columnsOf(failed));
        assert.equal(await store.countEvents(), first.length + failed.length);
        await expectAnswers(store, [...first, ...failed], "after the batch is stored again");
      } finally {
        await close();
      }
    });

    it("deletes a website's events and numbers before returning, and nothing of the others", async () => {
      const { store, close } = await openTestStore(engine, clock());
      try {
        const events = [...fixtureEvents(FIXTURE_SITE), ...randomBatches(11, 3, 300).flat()];
        await store.insert(columnsOf(events));
        const [gone, kept] = RANDOM_SITES;
        const ask = (websiteId: number) =>
          answers((q) => store.queryStat(q), websiteId, SOME_WINDOWS, SOME_VARIANTS);
        const earlier = { kept: await ask(kept), fixture: await ask(FIXTURE_SITE) };
        await store.deleteWebsite(gone);
        const check = async (when: string) => {
          assert.equal(await store.countEvents(gone), 0, when);
          const left = events.filter((event) => event.websiteId !== gone).length;
          assert.equal(await store.countEvents(), left, when);
          assert.deepEqual(await storedEvents(store, gone), [], when);
          assert.deepEqual(await exported(store, { websiteId: gone }), [], when);
          assert.ok(
            (await exported(store)).flat().every((event) => event.websiteId !== gone),
            when,
          );
          for (const stat of STATS) {
            assert.deepEqual(
              await store.queryStat(query(gone, stat.name, { from: "2026-06-01", to: "2026-06-30" })),
              { rows: [], total: 0 },
              `${stat.name} ${when}`,
            );
          }
          assert.deepEqual(await ask(kept), earlier.kept, when);
          assert.deepEqual(await ask(FIXTURE_SITE), earlier.fixture, when);
        };
        await check("once deleted");
        await store.rebuildAggregates();
        await check("after a rebuild");
      } finally {
        await close();
      }
    });

    it("counts the local days and hours of a website's zone, a 23-hour day included, as computed by hand", async () => {
      const { store, close } = await openTestStore(engine, clock());
      try {
        await store.setZone(ZONE_SITE, "Europe/Berlin");
        await store.insert(columnsOf(berlinEvents()));
        const berlin = { zone: "Europe/Berlin", from: "2026-03-28", to: "2026-03-30" };
        const utc = { zone: "UTC", from: "2026-03-28", to: "2026-03-30" };
        const byHand = async () => ({
          pageviews: pairs(
            await store.queryStat(query(ZONE_SITE, "pageviews", { ...berlin, sortBy: "value", sort: "asc" })),
          ),
          visitors: pairs(
            await store.queryStat(query(ZONE_SITE, "visitors", { ...berlin, sortBy: "value", sort: "asc" })),
          ),
          hours: pairs(
            await store.queryStat(
              query(ZONE_SITE, "pageviews_hours", { ...berlin, sortBy: "value", sort: "asc" }),
            ),
          ),
          visitorHours: pairs(
            await store.queryStat(
              query(ZONE_SITE, "visitors_hours", { ...berlin, sortBy: "value", sort: "asc" }),
            ),
          ),
          oneDay: pairs(
            await store.queryStat(
              query(ZONE_SITE, "page", { ...berlin, from: "2026-03-29", to: "2026-03-29" }),
            ),
          ),
          inUtc: pairs(
            await store.queryStat(query(ZONE_SITE, "visitors", { ...utc, sortBy: "value", sort: "asc" })),
          ),
        });
        // 03-29 in Berlin runs from 23:00 UTC on the 28th for 23 hours: 02:00 never comes.
        const expected = {
          pageviews: [
            ["2026-03-28", 1],
            ["2026-03-29", 4],
            ["2026-03-30", 1],
          ],
          visitors: [
            ["2026-03-28", 1],
            ["2026-03-29", 2],
            ["2026-03-30", 1],
          ],
          hours: [
            ["00", 2],
            ["01", 1],
            ["03", 1],
            ["23", 2],
          ],
          visitorHours: [
            ["00", 2],
            ["01", 1],
            ["03", 1],
            ["23", 2],
          ],
          oneDay: [
            ["/b", 3],
            ["/c", 1],
          ],
          inUtc: [
            ["2026-03-28", 2],
            ["2026-03-29", 3],
          ],
        };
        assert.deepEqual(await byHand(), expected, "counted from the events");
        await store.rebuildAggregates(ZONE_SITE);
        assert.deepEqual(await byHand(), expected, "after folding the days");
      } finally {
        await close();
      }
    });

    it("counts every statistic in any zone, before and after the website's zone changes", async () => {
      const { store, close } = await openTestStore(engine, clock());
      try {
        const events: StoredEvent[] = [];
        const insert = async (batch: StoredEvent[]) => {
          await store.insert(columnsOf(batch));
          events.push(...batch);
        };
        // Every row only: paging does not depend on the zone, and the other cases page. In
        // `zones`: the website's zone (read from its folds once folded) and others, counted
        // from raw events: in the first step, and after the change UTC (whose folds are then
        // out of date) and one zone over the days written again. (Each step asked another
        // zone too, until each check was found to cost 3-5 s of CI on every engine.)
        const check = async (when: string, zones: readonly string[]) => {
          for (const zone of zones) {
            assert.deepEqual(
              await answers(store, ZONE_SITE, ZONE_WINDOWS, [EVERY_ROW], ZONE_FILTERS, zone),
              await answers(reference(events), ZONE_SITE, ZONE_WINDOWS, [EVERY_ROW], ZONE_FILTERS, zone),
              `${zone} ${when}`,
            );
          }
        };
        await insert(zoneEvents(31, "UTC"));
        await store.rebuildAggregates(ZONE_SITE);
        await check("in UTC, folded", ["UTC", "Europe/Berlin", "Asia/Kathmandu", "America/Santiago"]);
        await store.setZone(ZONE_SITE, "Europe/Berlin");
        await check("just after the change", ["Europe/Berlin", "UTC"]);
        await store.rebuildAggregates(ZONE_SITE);
        await check("folded in Berlin", ["Europe/Berlin"]);
        await insert(zoneEvents(32, "Europe/Berlin"));
        await check("with days written again", ["Europe/Berlin", "America/Santiago"]);
        await store.rebuildAggregates();
        await check("folded again", ["Europe/Berlin"]);
      } finally {
        await close();
      }
    });

    it("counts what the visitor's attributes filter alike from raw events and from folded visits, steady days or mixed", async () => {
      const { store, close } = await openTestStore(engine, clock());
      try {
        const next = random(71);
        const visitors = visitorPool(next);
        const events: StoredEvent[] = [];
        const insert = async (mixed: number, count: number) => {
          const batch = randomEvents(next, count, {
            start: START,
            days: DAYS,
            visitor: () => pick(next, visitors),
            mixed,
          }).map((event) => ({ ...event, websiteId: ATTRIBUTE_SITE }));
          await store.insert(columnsOf(batch));
          events.push(...batch);
        };
        // Every dimension the visits hold, each operator, two at once, and no match.
        const filterSets = [
          "browser==Chrome",
          "os!=iOS",
          "device~mob;resolution!~1920",
          "language==de",
          "country==US:United States",
          "city==",
          "continent!=EU:Europe;browser==Safari",
          "browser==Opera",
        ].map((raw) => {
          const parsed = parseFilters(raw);
          return "filters" in parsed ? parsed.filters : assert.fail(parsed.problem);
        });
        const month: [string, string][] = [["2026-06-01", "2026-06-30"]];
        const check = async (when: string) =>
          assert.deepEqual(
            await answers(store, ATTRIBUTE_SITE, month, [EVERY_ROW], filterSets),
            await answers(reference(events), ATTRIBUTE_SITE, month, [EVERY_ROW], filterSets),
            when,
          );
        await insert(0, 600);
        await check("from raw events");
        await store.rebuildAggregates(ATTRIBUTE_SITE);
        await check("folded, every visitor's day steady");
        await insert(0.2, 200);
        await check("days written again, some mixed");
        await store.rebuildAggregates(ATTRIBUTE_SITE);
        await check("folded, some days mixed");
      } finally {
        await close();
      }
    });

    it("gives the same answers after rebuilding one website and all", async () => {
      const { store, close } = await openTestStore(engine, clock());
      try {
        const events: StoredEvent[] = [];
        for (const batch of [fixtureEvents(FIXTURE_SITE), ...randomBatches(13, 6, 250)]) {
          await store.insert(columnsOf(batch));
          events.push(...batch);
        }
        const sites = [FIXTURE_SITE, ...RANDOM_SITES];
        const all = async (ask: Asker) => {
          const result: Record<string, StatsPage | DayCounts> = {};
          for (const websiteId of sites) {
            for (const [key, page] of Object.entries(
              await answers(ask, websiteId, SOME_WINDOWS, SOME_VARIANTS),
            ))
              result[`${websiteId} ${key}`] = page;
          }
          return result;
        };
        const expected = await all(reference(events));
        assert.deepEqual(await all(store), expected, "before");
        await store.rebuildAggregates(RANDOM_SITES[0]);
        assert.deepEqual(await all(store), expected, "after rebuilding one website");
        await store.rebuildAggregates();
        assert.deepEqual(await all(store), expected, "after rebuilding all");
      } finally {
        await close();
      }
    });
  });
}

/**
 * The questions asked of the random events: every variant over the month, every row and a
 * page from an offset over the other windows. Nothing is folded in these stores (no
 * upkeep runs), so a variant adds the same clauses whatever the window; all six over all
 * five windows took about 115 s of CI across three engines.
 */
async function randomAnswers(ask: Asker, websiteId: number): Promise<Record<string, StatsPage | DayCounts>> {
  return {
    ...(await answers(ask, websiteId, WINDOWS.slice(0, 1))),
    ...(await answers(ask, websiteId, WINDOWS.slice(1), SOME_VARIANTS)),
  };
}

/** The same random events in every available engine, against the catalog's definitions and each other. */
export function describeSameRandomEvents(): void {
  describe("the same random events in every engine", () => {
    const stores = new Map<EventStoreUnderTest, OpenedStore>();
    const sent: StoredEvent[] = [];
    const got = new Map<EventStoreUnderTest, Record<string, StatsPage | DayCounts>>();

    before(async () => {
      for (const engine of AVAILABLE_EVENT_STORES) stores.set(engine, await openTestStore(engine, clock()));
      for (const batch of randomBatches(21, 9, 500)) {
        await Promise.all([...stores.values()].map(({ store }) => store.insert(columnsOf(batch))));
        sent.push(...batch);
      }
      for (const [engine, { store }] of stores) {
        const result: Record<string, StatsPage | DayCounts> = {};
        for (const websiteId of RANDOM_SITES) {
          for (const [key, page] of Object.entries(await randomAnswers(store, websiteId))) {
            result[`${websiteId} ${key}`] = page;
          }
        }
        got.set(engine, result);
      }
    });
    after(async () => {
      for (const opened of stores.values()) await opened.close();
    });

    it("give in each engine every statistic as the catalog defines it, over every window", async () => {
      const expected: Record<string, StatsPage | DayCounts> = {};
      for (const websiteId of RANDOM_SITES) {
        for (const [key, page] of Object.entries(await randomAnswers(reference(sent), websiteId))) {
          expected[`${websiteId} ${key}`] = page;
        }
      }
      for (const [engine, result] of got) assert.deepEqual(result, expected, engine.name);
    });

    it("give identical answers in every engine", {
      skip:
        AVAILABLE_EVENT_STORES.length < 2 ? "only one engine here (see test/support/event-stores.ts)" : false,
    }, () => {
      const [first, ...others] = [...got];
      for (const [engine, result] of others) {
        assert.deepEqual(result, first?.[1], `${engine.name} and ${first?.[0].name}`);
      }
    });
  });
}
