// The SQLite driver Kysely runs on: a transaction that SQLite ended by itself (as it does
// on a full disk, SQLITE_FULL) fails with the error that ended it, not with the
// "cannot rollback - no transaction is active" of Kysely's ROLLBACK after it.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { DatabaseSync } from "@photostructure/sqlite";
import { Kysely, SqliteDialect, sql } from "kysely";
import { kyselySqliteDatabase } from "../src/storage/sqlite/sqlite-driver.js";
import { tempDir } from "./support/test-app.js";

describe("the SQLite driver", () => {
  it("gives a transaction's own failure when SQLite has already ended the transaction", async () => {
    const dir = tempDir("analytics-sqlite-driver-");
    const file = `${dir}/m.sqlite`;
    const db = new Kysely<{ t: { n: number } }>({
      dialect: new SqliteDialect({ database: kyselySqliteDatabase(new DatabaseSync(file), file) }),
    });
    try {
      await sql`CREATE TABLE t (n INTEGER)`.execute(db);
      const failure = new Error("the disk is full");
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto("t").values({ n: 1 }).execute();
          await sql`ROLLBACK`.execute(trx); // SQLite ends the transaction, as on SQLITE_FULL
          throw failure;
        }),
        (error) => error === failure,
      );
      assert.deepEqual(await db.selectFrom("t").selectAll().execute(), [], "nothing of it kept");
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto("t").values({ n: 2 }).execute();
          throw failure;
        }),
        (error) => error === failure,
      );
      assert.deepEqual(await db.selectFrom("t").selectAll().execute(), [], "a transaction still rolled back");
      await db.transaction().execute((trx) => trx.insertInto("t").values({ n: 3 }).execute());
      assert.deepEqual(
        (await db.selectFrom("t").selectAll().execute()).map((row) => row.n),
        [3],
      );
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
