// The SQLite driver (node:sqlite's API, from @photostructure/sqlite) in the shape Kysely's
// SQLite dialect drives, with every statement's file failures (a full disk, an I/O error)
// turned into StoreUnavailableError: a 503 for API clients, the file and cause for the log.

import type { DatabaseSyncInstance } from "@photostructure/sqlite";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { StoreUnavailableError } from "../../errors.js";
import { sqliteFileFailure } from "./sqlite-failures.js";

/** A ROLLBACK of a transaction SQLite has ended already: nothing to do. */
const ENDED_ALREADY: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

/** `database` as Kysely's SqliteDialect uses it; closing this closes `database`. */
export function kyselySqliteDatabase(database: DatabaseSyncInstance, file: string): SqliteDatabase {
  const translated = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      const failure = sqliteFileFailure(error, file, "using");
      if (!failure) throw error;
      throw new StoreUnavailableError("metadata", failure, { cause: error });
    }
  };
  return {
    close() {
      // The driver's 1.x line (the one for Node.js 20) leaves Kysely's statements unfinalized
      // at close, so SQLite keeps the connection until they are collected and skips the
      // checkpoint it does on closing: done here, without waiting for other processes'
      // readers, so that metadata.sqlite alone holds every write once the store is closed
      // (a copy of that file is a whole copy). A failed one leaves the log, which SQLite
      // replays on the next open.
      try {
        database.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {}
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      // SQLite ends a transaction itself on some failures (SQLITE_FULL, SQLITE_IOERR); Kysely
      // still sends ROLLBACK, whose "cannot rollback - no transaction is active" would then
      // be thrown instead of the failure (a full disk logged as that, every retry).
      if (sql === "rollback" && !database.isTransaction) return ENDED_ALREADY;
      const statement = translated(() => database.prepare(sql));
      return {
        // A statement that gives columns gives rows (a SELECT, an INSERT ... RETURNING).
        reader: statement.columns().length > 0,
        all: (parameters) => translated(() => statement.all(...parameters)),
        run: (parameters) => translated(() => statement.run(...parameters)),
        iterate: (parameters) => translated(() => statement.iterate(...parameters)),
      };
    },
  };
}
