// Which metadata engine the tests run on. `ANALYTICS_TEST_METADATA=postgres` (set by
// scripts/test-postgres.mjs) moves every test app and CLI run to PostgreSQL, each in a fresh
// schema of the ANALYTICS_TEST_DATABASE_URL database, so suites run side by side there too.

import { randomBytes } from "node:crypto";
import pg from "pg";

/** The test database (PostgreSQL tests skip, saying so, when it is not set). */
export const TEST_DATABASE_URL = process.env.ANALYTICS_TEST_DATABASE_URL?.trim() || null;

export const METADATA_ENGINE: "sqlite" | "postgres" =
  process.env.ANALYTICS_TEST_METADATA === "postgres" ? "postgres" : "sqlite";

export interface TestMetadata {
  /** Environment that points the server or CLI at this metadata store ({} for SQLite in the data dir). */
  env: Record<string, string>;
  /** Removes the store (the schema); SQLite's file goes with the data directory. */
  drop(): Promise<void>;
}

/** A fresh, empty metadata store on the engine under test. */
export async function freshMetadata(): Promise<TestMetadata> {
  if (METADATA_ENGINE === "sqlite") return { env: {}, drop: async () => undefined };
  if (!TEST_DATABASE_URL)
    throw new Error("ANALYTICS_TEST_METADATA=postgres needs ANALYTICS_TEST_DATABASE_URL");
  const schema = await createTestSchema(TEST_DATABASE_URL);
  return { env: { ANALYTICS_DATABASE_URL: schema.url }, drop: schema.drop };
}

export interface TestSchema {
  /** The database URL with this schema first on the search path. */
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty schema `t_<random>` in the database; the URL it returns uses it. */
export async function createTestSchema(databaseUrl: string): Promise<TestSchema> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  await runSql(databaseUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    url: url.toString(),
    drop: () => runSql(databaseUrl, `DROP SCHEMA IF EXISTS ${name} CASCADE`),
  };
}

async function runSql(databaseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Says, on the test output, that a PostgreSQL test did not run. Returns true when it must skip. */
export function skipWithoutPostgres(t: { skip(message?: string): void }): boolean {
  if (TEST_DATABASE_URL) return false;
  t.skip("ANALYTICS_TEST_DATABASE_URL is not set: PostgreSQL test skipped");
  return true;
}
