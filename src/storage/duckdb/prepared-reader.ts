// The reader connection's statements, each prepared once and kept (the most recently used
// KEPT_STATEMENTS of them): DuckDB plans a statement when it prepares it, and a dashboard
// asks the same twenty statements at every view. Planning is 1-2.5 ms of a 6-24 ms
// statement at 10M events with today open: a dashboard's median 275 -> 251 ms (bench/RESULTS.md,
// "Today's places, series and open days read for less"). A statement's values are bound at
// each run; DuckDB plans it again by itself when the schema changed since it was prepared.
//
// One run at a time per statement: its values are bound on the statement itself, so a
// second caller binding them before the first one's run started would swap its values in.

import type {
  DuckDBConnection,
  DuckDBPreparedStatement,
  DuckDBResultReader,
  DuckDBType,
  DuckDBValue,
} from "@duckdb/node-api";

/** Statements kept: a dashboard's are about 25 per view and window; each holds a small plan. */
const KEPT_STATEMENTS = 256;

interface Kept {
  statement: Promise<DuckDBPreparedStatement>;
  /** The last run of this statement, settled or not: the next waits for it. */
  last: Promise<unknown>;
}

export class PreparedReader {
  /** By SQL text, the least recently used first. */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly connection: DuckDBConnection) {}

  /** As DuckDBConnection.runAndReadAll, for one statement. */
  runAndReadAll(sql: string, values: DuckDBValue[] = [], types?: DuckDBType[]): Promise<DuckDBResultReader> {
    const entry = this.entry(sql);
    const run = entry.last.then(async () => {
      const statement = await entry.statement;
      statement.bind(values, types);
      return statement.runAndReadAll();
    });
    entry.last = run.catch(() => undefined);
    return run;
  }

  /** Waits for the runs under way, then lets go of every statement (before the connection closes). */
  async close(): Promise<void> {
    const entries = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(entries.map(release));
  }

  private entry(sql: string): Kept {
    const found = this.kept.get(sql);
    if (found) {
      this.kept.delete(sql); // to the end: the most recently used
      this.kept.set(sql, found);
      return found;
    }
    const entry: Kept = { statement: this.connection.prepare(sql), last: Promise.resolve() };
    // A statement that does not prepare is not kept: the next call tries again, and fails alike.
    entry.statement.catch(() => {
      if (this.kept.get(sql) === entry) this.kept.delete(sql);
    });
    this.kept.set(sql, entry);
    if (this.kept.size > KEPT_STATEMENTS) {
      const [oldest, dropped] = this.kept.entries().next().value as [string, Kept];
      this.kept.delete(oldest);
      void release(dropped);
    }
    return entry;
  }
}

/** Destroys a statement once its last run is done. */
function release(entry: Kept): Promise<void> {
  return entry.last
    .then(() => entry.statement)
    .then(
      (statement) => statement.destroySync(),
      () => undefined,
    );
}
