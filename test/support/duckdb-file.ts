// Runs SQL straight on a data directory's events.duckdb while no store has it open: to
// build a store as an older version left it, or to read what a closed store wrote.

import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";

/** The rows of the last statement of `sql`, as plain JS values (lists as arrays, BIGINT as bigint). */
export async function storeFileSql(
  dir: string,
  sql: string,
  options: { readOnly?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(
    path.join(dir, "events.duckdb"),
    options.readOnly ? { access_mode: "READ_ONLY" } : {},
  );
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
