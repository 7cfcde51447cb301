// `analytics aggregates rebuild [--website ID]`: recomputes the pre-aggregated statistics
// from the raw events (the source of truth), for one website or all. Beside a running
// server that holds the embedded store, the rebuild runs in the server, between its writes.

import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { openEventStoreBesideServer, openMetadataStore } from "../storage/open-storage.js";
import { configFrom, parseCommand, UsageError } from "./command-options.js";

export async function aggregatesRebuildCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { website: { type: "string" } });
  const website = values.website;
  if (website !== undefined && (!/^\d{1,15}$/.test(String(website)) || Number(website) < 1)) {
    throw new UsageError("--website must be a website id.");
  }
  const config = configFrom(values);
  if (website !== undefined) await requireWebsite(config, Number(website));
  const events = await openEventStoreBesideServer(config);
  try {
    await events.migrate();
    const started = Date.now();
    await events.rebuildAggregates(website === undefined ? undefined : Number(website));
    const scope = website === undefined ? "every website" : `website ${website}`;
    const count = await events.countEvents(website === undefined ? undefined : Number(website));
    console.log(`Rebuilt the aggregates of ${scope} from ${count} events in ${Date.now() - started} ms.`);
    return 0;
  } finally {
    await events.close();
  }
}

/**
 * Fails (exit 1) naming the website when no website has this id: the event store alone
 * cannot tell a mistyped id from a website without events, and "rebuilt from 0 events"
 * would hide the mistake.
 */
async function requireWebsite(config: Config, id: number): Promise<void> {
  const metadata = openMetadataStore(config);
  try {
    await metadata.migrate();
    if (!(await metadata.websites.findById(id))) {
      throw new AppError("not_found", `There is no website with id ${id}: nothing was rebuilt.`);
    }
  } finally {
    await metadata.close();
  }
}
