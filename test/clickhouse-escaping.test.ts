// The one escaping function of the ClickHouse store (ClickHouse 18.16 has no query
// parameters), against the real server: hostile strings written as literals must come back
// unchanged, as data. (Stored as event data and used as search needles, they are a case of
// the contract every engine keeps: event-store-contract.test.ts.) On the configured ClickHouse
// (.ci/run: 18.16) and on a current engine (chdb).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient } from "@clickhouse/client";
import { sqlIdentifier, sqlValue } from "../src/storage/clickhouse/sql-escape.js";
import { CLICKHOUSE_ENGINES } from "./support/event-stores.js";
import { HOSTILE } from "./support/hostile-strings.js";

for (const engine of CLICKHOUSE_ENGINES) {
  describe(`ClickHouse SQL escaping (${engine.name})`, { skip: engine.skip }, () => {
    let client: ReturnType<typeof createClient>;
    before(async () => {
      client = createClient({ url: (await engine.urls())[0] as string });
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
}
