// Where a metadata store is: a PostgreSQL URL or an SQLite file. Names the configured store
// and the target of `metadata copy --to` alike, so both open and describe the same way.

import fs from "node:fs";
import path from "node:path";
import { type Config, ConfigError } from "../config.js";
import { describePostgresServer } from "./postgres/postgres-failures.js";
import { SQLITE_METADATA_FILE } from "./sqlite/open-sqlite.js";

export type MetadataLocation = { engine: "postgres"; url: string } | { engine: "sqlite"; file: string };

/** PostgreSQL when ANALYTICS_DATABASE_URL is set, else the data directory's SQLite file. */
export function configuredMetadataLocation(config: Config): MetadataLocation {
  if (config.databaseUrl) return { engine: "postgres", url: config.databaseUrl };
  return { engine: "sqlite", file: path.join(config.dataDir, SQLITE_METADATA_FILE) };
}

/**
 * A location a user typed: a `postgres://` (or `postgresql://`) URL; else a path, which
 * names an SQLite file when it is an existing file or ends in .sqlite, .sqlite3 or .db, and
 * otherwise a data directory (its metadata.sqlite, the file `serve --data-dir` uses).
 */
export function metadataLocationFrom(target: string): MetadataLocation {
  const text = target.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if ((scheme === "postgres" || scheme === "postgresql") && URL.canParse(text)) {
      return { engine: "postgres", url: text };
    }
    throw new ConfigError(
      `${scheme}://...: a metadata store is a postgres://user:password@host:port/database URL, ` +
        "a data directory or an SQLite file.",
    );
  }
  const resolved = path.resolve(text);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(resolved, { throwIfNoEntry: false });
  } catch {
    stat = undefined; // under a file, or not searchable: not there (the command says why)
  }
  if (stat?.isFile() || (!stat && /\.(sqlite3?|db)$/i.test(resolved)))
    return { engine: "sqlite", file: resolved };
  return { engine: "sqlite", file: path.join(resolved, SQLITE_METADATA_FILE) };
}

/** For messages: the engine and where, never a password. */
export function describeMetadataLocation(location: MetadataLocation): string {
  if (location.engine === "postgres") return `PostgreSQL at ${describePostgresServer(location.url)}`;
  return `SQLite ${location.file}`;
}

export function sameMetadataLocation(a: MetadataLocation, b: MetadataLocation): boolean {
  if (a.engine === "postgres" && b.engine === "postgres") return a.url === b.url;
  if (a.engine === "sqlite" && b.engine === "sqlite") return path.resolve(a.file) === path.resolve(b.file);
  return false;
}
