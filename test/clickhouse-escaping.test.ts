// The one escaping function of the ClickHouse store (ClickHouse 18.16 has no query
// parameters), against the real server: hostile strings written as literals, stored as
// event data and used as search needles must come back unchanged, as data, and match
// exactly themselves. On the configured ClickHouse (.ci/run: 18.16) and on a current engine
// (chdb).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient } from "@clickhouse/client";
import { statByName } from "../src/stats/catalog.js";
import { ClickHouseEventStore } from "../src/storage/clickhouse/clickhouse-event-store.js";
import { sqlIdentifier, sqlValue } from "../src/storage/clickhouse/sql-escape.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { CLICKHOUSE_ENGINES, provisionClickHouse } from "./support/event-stores.js";

const HOSTILE = [
  "it's",
  "''",
  "\\",
  "ends with a backslash \\",
  "\\'; DROP TABLE events_local; --",
  "'; DROP DATABASE system; --",
  "' OR 1=1 --",
  "\\x41\\0\\n (escapes as text)",
  "nul \u0000 inside",
  "\u0000",
  "control \u0001\u0007\b\t\n\v\f\r\u001b\u001f\u007f",
  'double "quotes" and `backticks`',
  "{name:String} $1 ? :name",
  "100%_off",
  "%",
  "_",
  "unicode: äöü ß 日本語 עברית 🎉 e\u0301",
  "order \uFFFD (after every other character in UTF-16, before 😀 in UTF-8)",
  "order 😀",
  "order \uE000",
  "line\r\nbreak",
  "/*comment*/ SELECT 1",
  "a".repeat(2048),
];

for (const engine of CLICKHOUSE_ENGINES) {
  describe(`ClickHouse SQL escaping (${engine.name})`, { skip: engine.skip }, () => {
    let client: ReturnType<typeof createClient>;
    before(async () => {
      client = createClient({ url: engine.skip ? "http://127.0.0.1:8123" : (await engine.urls())[0] });
    });
    after(() => client?.close());

    it("writes literals the server reads back as exactly the same string", async () => {
      for (const value of HOSTILE) {
        const result = await client.query({
          query: `SELECT ${sqlValue(value)} AS v, length(${sqlValue(value)}) AS bytes`,
          format: "JSONEachRow",
        });
        const [row] = await result.json<{ v: string; bytes: string }>();
        assert.equal(row?.v, value, JSON.stringify(value));
        assert.equal(Number(row?.bytes), Buffer.byteLength(value), JSON.stringify(value));
      }
    });

    it("writes numbers and bigints as plain literals and refuses what is not a finite number", async () => {
      const result = await client.query({
        query: `SELECT ${sqlValue(-12.5)} AS a, ${sqlValue(18446744073709551615n)} AS b, ${sqlValue(true)} AS c`,
        format: "JSONEachRow",
      });
      assert.deepEqual(await result.json(), [{ a: -12.5, b: "18446744073709551615", c: 1 }]);
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => sqlValue(bad));
    });

    it("accepts only plain identifiers as names", () => {
      assert.equal(sqlIdentifier("analytics_test_1").text, "analytics_test_1");
      for (const bad of ["", "a-b", "a b", "a`b", "a;DROP", "1abc", "a.b"])
        assert.throws(() => sqlIdentifier(bad));
    });
  });

  describe(`hostile strings as event data (${engine.name})`, { skip: engine.skip }, () => {
    let store: ClickHouseEventStore;
    let dispose: () => Promise<void>;
    const events: StoredEvent[] = HOSTILE.map((value, i) => ({
      websiteId: 7,
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
    }));

    before(async () => {
      const provisioned = await provisionClickHouse(engine);
      dispose = provisioned.dispose;
      store = new ClickHouseEventStore({ urls: provisioned.urls, cluster: provisioned.cluster });
      await store.migrate();
      await store.insert(events);
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    const query = (name: string, search: string | null) => ({
      websiteId: 7,
      stat: statByName(name) ?? assert.fail(name),
      from: "2026-04-01",
      to: "2026-04-01",
      search,
      sortBy: "value" as const,
      sort: "asc" as const,
      limit: 100,
      offset: 0,
    });

    it("stores and lists them unchanged", async () => {
      assert.deepEqual(await store.listEvents(7), events);
    });

    it("counts them as statistic values unchanged", async () => {
      for (const name of ["page", "referrer", "browser", "city"]) {
        const page = await store.queryStat(query(name, null));
        assert.deepEqual(
          page.rows.map((row) => row.value).sort(),
          [...HOSTILE].sort(),
          `${name} values come back unchanged`,
        );
        assert.equal(page.total, HOSTILE.length);
      }
    });

    it("orders them as ClickHouse orders strings, counted from raw events or folded", async () => {
      for (const fold of [false, true]) {
        if (fold) assert.ok((await store.foldClosedDays()) > 0);
        for (const sort of ["asc", "desc"] as const) {
          // page is sorted by ClickHouse, city (unique visitors) by the store: the same values.
          const byEngine = (await store.queryStat({ ...query("page", null), sort })).rows;
          const byStore = (await store.queryStat({ ...query("city", null), sort })).rows;
          assert.deepEqual(
            byStore.map((row) => row.value),
            byEngine.map((row) => row.value),
            `${sort}, folded: ${fold}`,
          );
        }
      }
    });

    it("finds each one, used as the search needle, as a literal substring", async () => {
      for (const value of HOSTILE) {
        const needle = value.toLowerCase();
        const page = await store.queryStat(query("page", needle));
        const expected = HOSTILE.filter((candidate) => candidate.toLowerCase().includes(needle)).sort();
        assert.deepEqual(
          page.rows.map((row) => row.value).sort(),
          expected,
          `search ${JSON.stringify(value)}`,
        );
      }
    });
  });
}
