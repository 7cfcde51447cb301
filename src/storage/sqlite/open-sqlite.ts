// Opens the embedded SQLite metadata store (metadata.sqlite in the data directory, or any
// file a copy names). WAL mode and a busy timeout let the CLI write while a server holds
// the same database open. A file SQLite cannot use (a full disk, an I/O error) is
// reported in one line naming it and the cause.

import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { AppError, StoreUnavailableError } from "../../errors.js";
import { RelationalMetadataStore } from "../relational/metadata-store.js";
import { sqliteMigrations } from "../relational/migrations/metadata-migrations.js";
import type { Database } from "../relational/schema.js";
import { failureTranslating, sqliteFileFailure } from "./sqlite-failures.js";

/** The metadata file's name in a data directory. */
export const SQLITE_METADATA_FILE = "metadata.sqlite";

/** The metadata store in this SQLite file (created, with its directory, if missing). */
export function openSqliteMetadataFile(file: string): RelationalMetadataStore {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 }); // it holds secrets: its owner's only
  let database: SqliteDatabase.Database | null = null;
  try {
    database = new SqliteDatabase(file);
    // WAL mode maps a shared-memory file beside the database: on a full disk, this fails.
    database.pragma("journal_mode = WAL");
    database.pragma("busy_timeout = 5000");
    database.pragma("synchronous = NORMAL");
    database.pragma("foreign_keys = ON");
  } catch (error) {
    database?.close();
    const failure = sqliteFileFailure(error, file, "opening");
    throw failure ? new AppError("unavailable", failure) : error;
  }
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: failureTranslating(database, file) }),
  });
  return new RelationalMetadataStore(db, {
    migrations: sqliteMigrations,
    uniqueViolation: sqliteUniqueColumn,
    // A statement's failure comes translated (failureTranslating): the cause is SQLite's error.
    unreachable: (error) =>
      sqliteFileFailure(error instanceof StoreUnavailableError ? error.cause : error, file, "migrating"),
  });
}

/** better-sqlite3 reports `UNIQUE constraint failed: websites.domain`; the column is after the dot. */
function sqliteUniqueColumn(error: unknown): string | null {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "SQLITE_CONSTRAINT_UNIQUE" || typeof message !== "string") return null;
  const match = /UNIQUE constraint failed: \w+\.(\w+)/.exec(message);
  return match?.[1] ?? null;
}
