// Tells a SQLite file SQLite cannot use (a full disk, an I/O error, no access) from other
// errors, and says so in one line naming the file: at start (`No space left on device
// while opening /data/metadata.sqlite`) and on every statement of a running server, whose
// callers then answer 503 instead of 500.

import fs from "node:fs";
import path from "node:path";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { StoreUnavailableError } from "../../errors.js";

/** Below this much free space, an I/O error is taken for a full disk (SQLite's -shm file alone needs 32 KiB). */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * `No space left on device while opening /data/metadata.sqlite` when SQLite cannot use its
 * file; null for other errors. SQLite reports a full disk met while mapping its shared
 * memory as an I/O error (SQLITE_IOERR_SHMSIZE), so the free space decides.
 */
export function sqliteFileFailure(error: unknown, file: string, doing: string): string | null {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || !/^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/.test(code)) return null;
  const full = code === "SQLITE_FULL" || freeBytes(path.dirname(file)) < NEARLY_FULL_BYTES;
  const cause = full ? "No space left on device" : `${String(message)} (${code})`;
  return `${cause} while ${doing} ${file}`;
}

/**
 * The database as Kysely uses it, with every statement's file failures turned into
 * StoreUnavailableError (its message reaches API clients: the file stays in the cause).
 */
export function failureTranslating(database: SqliteDatabase, file: string): SqliteDatabase {
  const translated = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (!sqliteFileFailure(error, file, "using")) throw error;
      throw new StoreUnavailableError("The metadata store cannot write for now.", { cause: error });
    }
  };
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      const statement = translated(() => database.prepare(sql));
      return {
        reader: statement.reader,
        all: (parameters) => translated(() => statement.all(parameters)),
        run: (parameters) => translated(() => statement.run(parameters)),
        iterate: (parameters) => translated(() => statement.iterate(parameters)),
      };
    },
  };
}

function freeBytes(directory: string): number {
  try {
    const stats = fs.statfsSync(directory);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
