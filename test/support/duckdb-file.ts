// Runs SQL straight on a data directory's events.duckdb while no store has it open: to
// build a store as an older version left it, or to read what a closed store wrote.

import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { DUCKDB_MIGRATIONS } from "../../src/storage/duckdb/migrations.js";

/** The schema as the store left it at `version`, its migrations recorded; rows to add follow it. */
export function schemaAtVersionSql(version: number): string {
  const migrations = DUCKDB_MIGRATIONS.filter((migration) => migration.version <= version);
  return `${migrations.map((migration) => migration.sql).join(";\n")};
    CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL);
    INSERT INTO schema_migrations VALUES ${migrations.map((m) => `(${m.version}, 'v${m.version}')`).join(", ")};`;
}

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
