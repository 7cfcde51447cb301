// `analytics import [--file F]`: reads an `analytics export` file (or standard input) into
// the configured event store through its normal insert, batch by batch, so the aggregates
// are built as the events arrive and every statistic matches the source store.

import fs from "node:fs";
import readline from "node:readline";
import { AppError } from "../errors.js";
import { columnsOf } from "../storage/event-columns.js";
import { openEventStoreBesideServer } from "../storage/open-storage.js";
import type { EventStore, StoredEvent } from "../storage/ports.js";
import { configFrom, parseCommand, UsageError } from "./command-options.js";
import { checkHeader, decodeEvent } from "./event-ndjson.js";

const BATCH_EVENTS = 10_000;
const PROGRESS_EVERY = 100_000;

export async function importCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { file: { type: "string" } });
  const config = configFrom(values);
  const file = typeof values.file === "string" && values.file !== "-" ? values.file : null;
  const stat = file ? fs.statSync(file, { throwIfNoEntry: false }) : undefined;
  if (file && !stat?.isFile()) {
    throw new UsageError(
      `--file ${file}: ${stat?.isDirectory() ? "a directory, not a file" : "no such file"}.`,
    );
  }
  const input = file ? fs.createReadStream(file) : process.stdin;
  const events = await openEventStoreBesideServer(config);
  let imported = 0;
  try {
    await events.migrate();
    imported = await importLines(
      readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }),
      events,
    );
  } finally {
    await events.close();
  }
  console.error(`Imported ${imported} events.`);
  return 0;
}

async function importLines(lines: AsyncIterable<string>, events: EventStore): Promise<number> {
  const seen = new Set<number>();
  let batch: StoredEvent[] = [];
  let lineNumber = 0;
  let imported = 0;
  let nextReport = PROGRESS_EVERY;
  const flush = async () => {
    for (const websiteId of new Set(batch.map((event) => event.websiteId))) {
      if (seen.has(websiteId)) continue;
      // Importing twice would count everything twice: a website must arrive in a store
      // that has no events of it yet.
      if ((await events.countEvents(websiteId)) > 0) {
        throw new AppError(
          "bad_request",
          `The event store already has events of website ${websiteId}; import into a store without them.`,
        );
      }
      seen.add(websiteId);
    }
    await events.insert(columnsOf(batch));
    imported += batch.length;
    batch = [];
    if (imported >= nextReport) {
      console.error(`imported ${imported} events`);
      nextReport += PROGRESS_EVERY;
    }
  };
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim() === "") continue;
    try {
      if (lineNumber === 1) checkHeader(line);
      else batch.push(decodeEvent(line, lineNumber));
    } catch (error) {
      throw new AppError("bad_request", `${(error as Error).message} Imported ${imported} events before it.`);
    }
    if (batch.length >= BATCH_EVENTS) await flush();
  }
  if (lineNumber === 0)
    throw new AppError("bad_request", "The input is empty: expected an `analytics export` file.");
  if (batch.length > 0) await flush();
  return imported;
}
