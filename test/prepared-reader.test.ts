// The reader's kept statements (prepared-reader.ts): each caller gets the answer to its own
// values when many run the same statement at once, a statement that fails to prepare or
// to run leaves the others and later calls alone, statements past the bound are let go and
// prepared again, a change of schema is seen, and closing waits for the runs under way.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DuckDBInstance } from "@duckdb/node-api";
import { PreparedReader } from "../src/storage/duckdb/prepared-reader.js";

async function withReader(
  work: (reader: PreparedReader, run: (sql: string) => Promise<void>) => Promise<void>,
) {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const reader = new PreparedReader(connection);
  try {
    await work(reader, async (sql) => {
      await connection.run(sql);
    });
  } finally {
    await reader.close();
    connection.closeSync();
    instance.closeSync();
  }
}

const number = async (reader: PreparedReader, sql: string, values: (string | number)[] = []) =>
  Number((await reader.runAndReadAll(sql, values)).getRows()[0]?.[0]);

describe("the reader's prepared statements", () => {
  it("answers each caller with its own values when many run one statement at once", async () => {
    await withReader(async (reader, run) => {
      await run("CREATE TABLE t AS SELECT range AS n FROM range(1000)");
      const sql = "SELECT sum(n) FROM t WHERE n < CAST($1 AS INTEGER)";
      const limits = Array.from({ length: 40 }, (_, i) => 1 + i * 25);
      const sums = await Promise.all(limits.map((limit) => number(reader, sql, [limit])));
      assert.deepEqual(
        sums,
        limits.map((limit) => (limit * (limit - 1)) / 2),
      );
    });
  });

  it("keeps failures to their own call: a statement that does not prepare, a run that fails", async () => {
    await withReader(async (reader, run) => {
      await run("CREATE TABLE t (n INTEGER)");
      await assert.rejects(reader.runAndReadAll("SELECT nothing FROM t"), /nothing/);
      await assert.rejects(
        reader.runAndReadAll("SELECT nothing FROM t"),
        /nothing/,
        "prepared again, fails again",
      );
      const cast = "SELECT CAST($1 AS INTEGER)";
      await assert.rejects(reader.runAndReadAll(cast, ["not a number"]), /not a number|Conversion/i);
      assert.equal(await number(reader, cast, ["7"]), 7, "the same statement runs again");
      await run("ALTER TABLE t ADD COLUMN nothing INTEGER");
      await run("INSERT INTO t VALUES (1, 41)");
      assert.equal(await number(reader, "SELECT nothing + 1 FROM t"), 42, "the column it lacked");
    });
  });

  it("prepares a statement again after the schema changed, and after it was let go", async () => {
    await withReader(async (reader, run) => {
      await run("CREATE TABLE t AS SELECT 1 AS a");
      const sql = "SELECT * FROM t";
      assert.deepEqual((await reader.runAndReadAll(sql)).getRows(), [[1]]);
      await run("DROP TABLE t");
      await run("CREATE TABLE t AS SELECT 'x' AS a, 2 AS b");
      assert.deepEqual((await reader.runAndReadAll(sql)).getRows(), [["x", 2]]);
      // More statements than are kept: the first is let go, then prepared again.
      for (let i = 0; i < 300; i++) assert.equal(await number(reader, `SELECT ${i}`), i);
      assert.deepEqual((await reader.runAndReadAll(sql)).getRows(), [["x", 2]]);
    });
  });

  it("closes once the runs under way are done", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    const reader = new PreparedReader(connection);
    const running = number(
      reader,
      "SELECT count(*) FROM range(3000000) a WHERE a.range % 7 = CAST($1 AS BIGINT)",
      [3],
    );
    await reader.close();
    assert.equal(await running, 428571);
    connection.closeSync();
    instance.closeSync();
  });
});
