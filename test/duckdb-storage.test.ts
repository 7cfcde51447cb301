// How the embedded store lays out its file: new files in 64 KiB blocks (an existing file
// keeps its own), and events' text as numbers: their city value into `places` (since
// version 3; version 5 numbers the `geo` strings of events stored before), their other
// text into `text_values`, densely per field (version 5). Events stored before and after
// must read the same everywhere: statistics (incremental and rebuilt), listed and exported
// events. A damaged file is reported as such, never as a file a server holds.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { ManualClock } from "../src/clock.js";
import { loadConfig } from "../src/config.js";
import { StoreBusyError } from "../src/errors.js";
import { STATS } from "../src/stats/catalog.js";
import { DuckDbEventStore, duckDbSettings } from "../src/storage/duckdb/duckdb-event-store.js";
import { columnsOf } from "../src/storage/event-columns.js";
import { openEventStore } from "../src/storage/open-storage.js";
import type { StoredEvent } from "../src/storage/ports.js";
import { runCli } from "./support/cli.js";
import { schemaAtVersionSql, storeFileSql } from "./support/duckdb-file.js";
import { random, randomEvents } from "./support/seeded-random.js";
import { EVERY_ROW } from "./support/stat-answers.js";
import { storedEvents } from "./support/stored-events.js";
import { tempDir } from "./support/test-app.js";

const QUERY = EVERY_ROW;

describe("embedded store file", () => {
  it("makes new files with 64 KiB blocks and opens files of 256 KiB blocks", async () => {
    const blockSize = async (dir: string) => {
      const store = await DuckDbEventStore.open(dir);
      await store.migrate();
      await store.close();
      return (await storeFileSql(dir, "SELECT block_size FROM pragma_database_size()"))[0]?.block_size;
    };
    const fresh = tempDir("analytics-blocks-");
    const older = tempDir("analytics-blocks-");
    try {
      assert.equal(await blockSize(fresh), 65_536n);
      await storeFileSql(older, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)"); // DuckDB's default size
      assert.equal(await blockSize(older), 262_144n);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
      fs.rmSync(older, { recursive: true, force: true });
    }
  });

  it("reads events stored with text (version 2) and with numbers alike", async () => {
    const dir = tempDir("analytics-places-");
    // A version-2 store with three events of 2026-06-09, as version 2 stored them.
    await storeFileSql(
      dir,
      `${schemaAtVersionSql(2)}
      INSERT INTO geo_names VALUES ('US', 'US:United States', 'NA:North America'), ('DE', 'DE:Germany', 'EU:Europe');
      INSERT INTO events VALUES
        (1, TIMESTAMP '2026-06-09 10:00:00', 1, 0, true, '/', '', '', 'Chrome', 'Windows', 'desktop', '1920x1080', 'en', 'US:Boston', ''),
        (1, TIMESTAMP '2026-06-09 11:00:00', 2, 0, true, '/', '', '', 'Chrome', 'Windows', 'desktop', '1920x1080', 'en', 'US:', ''),
        (1, TIMESTAMP '2026-06-09 12:00:00', 3, 0, true, '/b', 'search.example', '', 'Firefox', 'Linux', 'desktop', '', 'de', 'DE:Berlin', '')`,
    );
    const clock = new ManualClock("2026-06-10T18:00:00Z");
    let store = await DuckDbEventStore.open(dir, { clock });
    try {
      await store.migrate();
      await store.rebuildAggregates(); // the old events' statistics, from events_view
      const base = randomEvents(random(7), 1, { start: 0, days: 1, visitor: () => 1n })[0] as StoredEvent;
      const hit = (hour: number, visitor: bigint, where: Partial<StoredEvent>): StoredEvent => ({
        ...base,
        websiteId: 1,
        ts: new Date(`2026-06-10T${String(hour).padStart(2, "0")}:00:00Z`),
        visitor,
        kind: "pageview",
        ...where,
      });
      const boston = { country: "US:United States", city: "US:Boston", continent: "NA:North America" };
      const paris = { country: "FR:France", city: "FR:Paris", continent: "EU:Europe" };
      const nowhere = { country: "", city: "", continent: "" };
      await store.insert(columnsOf([hit(9, 11n, boston), hit(10, 12n, paris), hit(11, 13n, nowhere)]));
      await store.close(); // a reopened store must go on with the same place numbers
      store = await DuckDbEventStore.open(dir, { clock });
      await store.migrate();
      await store.insert(columnsOf([hit(12, 14n, paris)]));

      const answer = async (name: string) => {
        const stat = STATS.find((candidate) => candidate.name === name);
        assert.ok(stat);
        const page = await store.queryStat({
          ...QUERY,
          websiteId: 1,
          stat,
          from: "2026-06-01",
          to: "2026-06-30",
        });
        return Object.fromEntries(page.rows.map((row) => [row.value, row.count]));
      };
      const expected = {
        city: { "US:Boston": 2, "FR:Paris": 2, "": 2, "DE:Berlin": 1 },
        country: { "US:United States": 3, "FR:France": 2, "": 1, "DE:Germany": 1 },
        continent: { "EU:Europe": 3, "NA:North America": 3, "": 1 },
      };
      const answers = async () => ({
        city: await answer("city"),
        country: await answer("country"),
        continent: await answer("continent"),
      });
      assert.deepEqual(await answers(), expected);
      await store.rebuildAggregates();
      assert.deepEqual(await answers(), expected, "rebuilt from both kinds of rows");

      const events = await storedEvents(store, 1);
      assert.deepEqual(
        events
          .slice(0, 3)
          .map((event) => [event.page, event.referrer, event.browser, event.resolution, event.language]),
        [
          ["/", "", "Chrome", "1920x1080", "en"],
          ["/", "", "Chrome", "1920x1080", "en"],
          ["/b", "search.example", "Firefox", "", "de"],
        ],
        "version 2's text, read through the numbers version 5 gave it",
      );
      const listed = events.map((event) => [event.city, event.country, event.continent]);
      assert.deepEqual(listed, [
        ["US:Boston", "US:United States", "NA:North America"],
        ["", "US:United States", "NA:North America"],
        ["DE:Berlin", "DE:Germany", "EU:Europe"],
        ["US:Boston", "US:United States", "NA:North America"],
        ["FR:Paris", "FR:France", "EU:Europe"],
        ["", "", ""],
        ["FR:Paris", "FR:France", "EU:Europe"],
      ]);
      const exported: StoredEvent[] = [];
      for await (const chunk of store.exportEvents({ websiteId: 1 })) exported.push(...chunk);
      assert.deepEqual(
        exported.map((event) => event.city),
        listed.map(([city]) => city),
      );
    } finally {
      await store.close();
    }
    // Every city once in places, the old ones numbered first; no text left in events.
    assert.deepEqual(
      await storeFileSql(
        dir,
        `SELECT (SELECT list(geo ORDER BY id) FROM places) AS places,
           (SELECT list(place ORDER BY ts) FROM events) AS numbers,
           (SELECT count(*) FROM duckdb_columns() WHERE table_name = 'events' AND data_type = 'VARCHAR') AS text,
           (SELECT list(value ORDER BY id)[1:2] FROM text_values WHERE field = 3) AS browsers,
           (SELECT bool_and(n = top) FROM (SELECT count(*) AS n, max(id) AS top FROM text_values GROUP BY field)) AS dense`,
      ),
      [
        {
          places: ["DE:Berlin", "US:", "US:Boston", "FR:Paris"],
          numbers: [3, 2, 1, 3, 4, 0, 4],
          text: 0n,
          browsers: ["Chrome", "Firefox"],
          dense: true,
        },
      ],
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("goes on numbering the visitors a version-5 store kept (version 6 dates them)", async () => {
    const dir = tempDir("analytics-visitor-ids-");
    // One pageview of hash 77 today, as version 5 stored it (all its text the empty value).
    await storeFileSql(
      dir,
      `${schemaAtVersionSql(5)}
      INSERT INTO text_values SELECT CAST(f AS UTINYINT), 1, '' FROM range(9) AS t(f);
      INSERT INTO events VALUES (1, TIMESTAMP '2026-06-10 09:00:00', 0, 0, true, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0);
      INSERT INTO visitor_ids VALUES (1, DATE '2026-06-10', 77, 0);`,
    );
    const clock = new ManualClock("2026-06-10T18:00:00Z");
    const store = await DuckDbEventStore.open(dir, { clock });
    try {
      await store.migrate();
      await store.rebuildAggregates();
      const base = randomEvents(random(3), 1, { start: 0, days: 1, visitor: () => 1n })[0] as StoredEvent;
      await store.insert(
        columnsOf([
          { ...base, websiteId: 1, ts: new Date("2026-06-10T10:00:00Z"), visitor: 77n, kind: "pageview" },
        ]),
      );
      const stat = STATS.find((candidate) => candidate.name === "visitors");
      assert.ok(stat);
      const page = await store.queryStat({
        ...QUERY,
        websiteId: 1,
        stat,
        from: "2026-06-10",
        to: "2026-06-10",
      });
      assert.deepEqual(page.rows, [{ value: "2026-06-10", count: 1 }], "the kept hash is the same visitor");
    } finally {
      await store.close();
    }
    const written = await storeFileSql(
      dir,
      "SELECT DISTINCT CAST(written AS VARCHAR) AS written FROM visitor_ids",
      {
        readOnly: true,
      },
    );
    assert.deepEqual(written, [{ written: "2026-06-10" }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lets DuckDB evict what batches appended between checkpoints left in its memory", async () => {
    // DuckDB 1.5.5 kept about 2.5 bytes of every row appended between two checkpoints in
    // its cache, where nothing could evict them: a store of 100M events ran out of memory
    // while inserting. Here 8M rows in batches of 50,000, a checkpoint every 4 batches as
    // the store's log threshold makes them: 1.5.5 keeps ~20 MB; 1.5.6 ~4 MB.
    const dir = tempDir("analytics-evict-");
    const instance = await DuckDBInstance.create(path.join(dir, "events.duckdb"), duckDbSettings());
    try {
      const connection = await instance.connect();
      await connection.run("CREATE TABLE t (website_id INTEGER, ts INTEGER, visitor UINTEGER, hash UBIGINT)");
      for (let batch = 0; batch < 160; batch++) {
        await connection.run(
          `INSERT INTO t SELECT 1, ${batch * 50_000} + range, range % 17_389, hash(${batch * 50_000} + range)
           FROM range(50000)`,
        );
        if (batch % 4 === 3) await connection.run("CHECKPOINT");
      }
      const memory = await connection.runAndReadAll(
        "SELECT sum(memory_usage_bytes) AS bytes FROM duckdb_memory()",
      );
      const before = memory.getRowObjects()[0]?.bytes;
      await assert.doesNotReject(
        connection.run("SET memory_limit = '12MB'"),
        `DuckDB could not evict its cache (${before} bytes) down to 12 MB`,
      );
    } finally {
      instance.closeSync();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says a damaged file is damaged, not in use by a running server", async () => {
    const dir = tempDir("analytics-damaged-");
    try {
      const store = await DuckDbEventStore.open(dir);
      await store.migrate();
      await store.checkpoint();
      await store.close();
      // The first block after the file's headers no longer matches its checksum: DuckDB then
      // says "... in block at location 12288", which holds "lock" but is no lock.
      const fd = fs.openSync(path.join(dir, "events.duckdb"), "r+");
      fs.writeSync(fd, Buffer.alloc(64, 0xab), 0, 64, 12_288 + 100);
      fs.closeSync(fd);
      await assert.rejects(
        openEventStore(loadConfig({ ANALYTICS_DATA_DIR: dir })),
        (error: Error) => !(error instanceof StoreBusyError) && /Corrupt database file/.test(error.message),
      );
      const migrated = runCli(["migrate", "--data-dir", dir]);
      assert.equal(migrated.status, 1, "migrate fails");
      assert.match(migrated.stderr, /Corrupt database file/);
      assert.doesNotMatch(migrated.stdout, /in use by a running server/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
