// The column appender writes DuckDB's vectors directly: numbers copied a column at a time,
// short ASCII text inline in string_t slots, other text through DuckDB. Every kind must read
// back exactly as given, across chunk and flush boundaries, and columns that do not fit
// their types are refused before anything is written.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  BIGINT,
  BOOLEAN,
  DATE,
  type DuckDBConnection,
  DuckDBInstance,
  INTEGER,
  TIMESTAMP_S,
  UBIGINT,
  UINTEGER,
  UTINYINT,
  VARCHAR,
} from "@duckdb/node-api";
import {
  appendColumns,
  CHUNK_ROWS,
  type Column,
  int64Column,
} from "../src/storage/duckdb/column-appender.js";

const TYPES = [INTEGER, UINTEGER, UTINYINT, BOOLEAN, DATE, TIMESTAMP_S, BIGINT, UBIGINT, VARCHAR];
const TEXTS = [
  "",
  "a",
  "Chrome",
  "exactly12chr", // the longest inline string
  "thirteen char", // the shortest that is not
  "/a/page/path?with=a&query=string",
  "café", // 5 bytes, inline in DuckDB but not ASCII
  "日本語のページ",
  "emoji 😀",
  "tab\tand\nnewline",
];

describe("column appender", () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(":memory:");
    connection = await instance.connect();
    await connection.run(`CREATE TABLE t (
      i INTEGER, u UINTEGER, b UTINYINT, f BOOLEAN, d DATE, ts TIMESTAMP_S, n BIGINT, h UBIGINT, s VARCHAR)`);
  });
  after(() => {
    connection.closeSync();
    instance.closeSync();
  });

  it("reads back every row as given, across chunks and flushes", async () => {
    const rows = 2048 + CHUNK_ROWS + 17; // past one appender flush, and a partial chunk
    const seconds = (row: number) => (row % 3 === 0 ? -86_400 * 400 - row : 1_790_000_000 + row); // before 1970 too
    const counts = (row: number) => (row % 2 === 0 ? 2 ** 40 + row : -row);
    await connection.run("DELETE FROM t");
    await appendColumns(await connection.createAppender("t"), TYPES, [
      Int32Array.from({ length: rows }, (_, row) => row - 1000),
      Uint32Array.from({ length: rows }, (_, row) => 4_000_000_000 + row),
      Uint8Array.from({ length: rows }, (_, row) => row % 256),
      Uint8Array.from({ length: rows }, (_, row) => row % 2),
      Int32Array.from({ length: rows }, (_, row) => 20_000 + row),
      int64Column(rows, seconds),
      int64Column(rows, counts),
      BigUint64Array.from({ length: rows }, (_, row) => 2n ** 63n + BigInt(row)),
      Array.from({ length: rows }, (_, row) => TEXTS[row % TEXTS.length] as string),
    ]);
    const read = await connection.runAndReadAll(
      "SELECT i, u, b, f, CAST(d - DATE '1970-01-01' AS INTEGER) AS d, epoch(ts) AS ts, n, h, s FROM t ORDER BY i",
    );
    const got = read.getRowObjects();
    assert.equal(got.length, rows);
    got.forEach((row, index) => {
      assert.deepEqual(
        row,
        {
          i: index - 1000,
          u: 4_000_000_000 + index,
          b: index % 256,
          f: index % 2 === 1,
          d: 20_000 + index,
          ts: seconds(index),
          n: BigInt(counts(index)),
          h: 2n ** 63n + BigInt(index),
          s: TEXTS[index % TEXTS.length],
        },
        `row ${index}`,
      );
    });
    // Inline strings compare and group as DuckDB's own do (zero padding included).
    const grouped = await connection.runAndReadAll("SELECT s, count(*) AS n FROM t GROUP BY s ORDER BY s");
    assert.deepEqual(
      grouped.getRowObjects().map((row) => row.s),
      [...TEXTS].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)),
    );
    const equal = await connection.runAndReadAll("SELECT count(*) AS n FROM t WHERE s = 'Chrome'");
    assert.equal(equal.getRowObjects()[0]?.n, BigInt(Math.ceil((rows - 2) / TEXTS.length)));
  });

  it("refuses columns that do not fit their types, writing nothing", async () => {
    await connection.run("DELETE FROM t");
    const valid = (): Column[] => [
      new Int32Array(1),
      new Uint32Array(1),
      new Uint8Array(1),
      new Uint8Array(1),
      new Int32Array(1),
      int64Column(1, () => 1),
      int64Column(1, () => 1),
      new BigUint64Array(1),
      ["x"],
    ];
    const one = (wrong: number, column: Column) =>
      valid().map((fits, index) => (index === wrong ? column : fits));
    await assert.rejects(
      appendColumns(await connection.createAppender("t"), TYPES, one(0, new Uint8Array(1))),
      /column 0 does not hold INTEGER values/,
    );
    await assert.rejects(
      appendColumns(await connection.createAppender("t"), TYPES, one(8, new Int32Array(1))),
      /column 8 does not hold VARCHAR values/,
    );
    await assert.rejects(
      appendColumns(await connection.createAppender("t"), TYPES, one(3, new Uint8Array(2))),
      /column 3 has 2 rows, not 1/,
    );
    await assert.rejects(
      appendColumns(await connection.createAppender("t"), TYPES.slice(1), one(0, new Int32Array(1))),
      /9 columns for 8 types/,
    );
    const count = await connection.runAndReadAll("SELECT count(*) AS n FROM t");
    assert.equal(count.getRowObjects()[0]?.n, 0n);
  });
});
