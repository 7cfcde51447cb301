// `analytics migrate`: creates or upgrades every configured store, then exits. An event
// store only one process may open (the embedded one) cannot be opened while a server holds
// it; that server migrated it on start, so that case is reported and is not a failure.

import { StoreBusyError } from "../errors.js";
import {
  describeEventStore,
  describeMetadataStore,
  openEventStore,
  openMetadataStore,
} from "../storage/open-storage.js";
import { configFrom, parseCommand } from "./command-options.js";

export async function migrateCommand(args: string[]): Promise<number> {
  const config = configFrom(parseCommand(args, {}));
  const metadata = openMetadataStore(config);
  try {
    await metadata.migrate();
  } finally {
    await metadata.close();
  }
  console.log(`Metadata store ${describeMetadataStore(config)} is up to date.`);
  try {
    const events = await openEventStore(config);
    try {
      await events.migrate();
    } finally {
      await events.close();
    }
    console.log(`Event store in ${describeEventStore(config)} is up to date.`);
  } catch (error) {
    if (!(error instanceof StoreBusyError)) throw error;
    console.log(error.message);
  }
  return 0;
}
