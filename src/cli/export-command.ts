// `analytics export [--website ID] [--from D] [--to D]`: writes the stored events as NDJSON
// to standard output, streamed batch by batch, with progress on standard error, so another
// event store can be filled with `analytics import` (embedded storage -> ClickHouse).

import { once } from "node:events";
import { parseDay } from "../stats/day-rule.js";
import { openEventStoreBesideServer } from "../storage/open-storage.js";
import type { ExportOptions } from "../storage/ports.js";
import { configFrom, parseCommand, UsageError } from "./command-options.js";
import { encodeEvent, NDJSON_HEADER } from "./event-ndjson.js";
import { requireWebsite } from "./require-website.js";

const PROGRESS_EVERY = 100_000;

export async function exportCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, {
    website: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
  });
  const options = exportOptions(values);
  const config = configFrom(values);
  if (options.websiteId !== undefined)
    await requireWebsite(config, options.websiteId, "nothing was exported");
  const events = await openEventStoreBesideServer(config, { existing: true });
  let count = 0;
  try {
    await write(`${JSON.stringify(NDJSON_HEADER)}\n`);
    let nextReport = PROGRESS_EVERY;
    for await (const batch of events.exportEvents(options)) {
      await write(`${batch.map(encodeEvent).join("\n")}\n`);
      count += batch.length;
      if (count >= nextReport) {
        console.error(`exported ${count} events`);
        nextReport += PROGRESS_EVERY;
      }
    }
  } finally {
    await events.close();
  }
  console.error(`Exported ${count} events.`);
  return 0;
}

function exportOptions(values: Record<string, string | boolean | undefined>): ExportOptions {
  const options: ExportOptions = {};
  const { website, from, to } = values;
  if (website !== undefined) {
    if (!/^\d{1,15}$/.test(String(website)) || Number(website) < 1) {
      throw new UsageError("--website must be a website id.");
    }
    options.websiteId = Number(website);
  }
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (value === undefined) continue;
    const checked = parseDay(String(value), name);
    if (!checked.ok) throw new UsageError(`--${name}: ${checked.errors.join(" ")}`);
    options[name] = String(value);
  }
  if (options.from && options.to && options.from > options.to) {
    throw new UsageError("--from must be on or before --to.");
  }
  return options;
}

/** Writes to standard output, waiting while its buffer is full (a slow pipe or disk). */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, "drain");
}
