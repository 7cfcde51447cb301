// Opens the embedded SQLite metadata store (metadata.sqlite in the data directory, or any
// file a copy names). WAL mode and a busy timeout let the CLI write while a server holds
// the same database open. A file SQLite cannot use (a full disk, an I/O error) is
// reported in one line naming it and the cause.
//
// The driver is @photostructure/sqlite: the API of Node's own node:sqlite, with SQLite
// built for every common platform inside the package, so `npm ci` needs no compiler and
// no download from elsewhere (better-sqlite3, used before, fetched its binaries from
// GitHub and otherwise compiled SQLite: 2.5 minutes of `npm ci` where GitHub is out of
// reach, and python3, make and a C++ compiler on every machine).

import fs from "node:fs";
import path from "node:path";
import { DatabaseSync, type DatabaseSyncInstance } from "@photostructure/sqlite";
import { Kysely, SqliteDialect } from "kysely";
import { AppError, StoreUnavailableError } from "../../errors.js";
import { RelationalMetadataStore } from "../relational/metadata-store.js";
import { sqliteMigrations } from "../relational/migrations/metadata-migrations.js";
import type { Database } from "../relational/schema.js";
import { kyselySqliteDatabase } from "./sqlite-driver.js";
import { SQLITE_CONSTRAINT_UNIQUE, sqliteFileFailure, sqliteResultCode } from "./sqlite-failures.js";

/** The metadata file's name in a data directory. */
export const SQLITE_METADATA_FILE = "metadata.sqlite";

/** The metadata store in this SQLite file (created, with its directory, if missing). */
export function openSqliteMetadataFile(file: string): RelationalMetadataStore {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 }); // it holds secrets: its owner's only
  let database: DatabaseSyncInstance | null = null;
  try {
    database = new DatabaseSync(file);
    // WAL mode maps a shared-memory file beside the database: on a full disk, this fails.
    database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA busy_timeout = 5000");
    database.exec("PRAGMA synchronous = NORMAL");
    database.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    database?.close();
    const failure = sqliteFileFailure(error, file, "opening");
    throw failure ? new AppError("unavailable", failure) : error;
  }
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: kyselySqliteDatabase(database, file) }),
  });
  return new RelationalMetadataStore(db, {
    migrations: sqliteMigrations,
    uniqueViolation: sqliteUniqueColumn,
    // A statement's failure comes translated (kyselySqliteDatabase): the cause is SQLite's error.
    unreachable: (error) =>
      sqliteFileFailure(error instanceof StoreUnavailableError ? error.cause : error, file, "migrating"),
  });
}

/** SQLite reports `UNIQUE constraint failed: websites.domain`; the column is after the dot. */
function sqliteUniqueColumn(error: unknown): string | null {
  const { message } = error as { message?: unknown };
  if (sqliteResultCode(error) !== SQLITE_CONSTRAINT_UNIQUE || typeof message !== "string") return null;
  const match = /UNIQUE constraint failed: \w+\.(\w+)/.exec(message);
  return match?.[1] ?? null;
}
