// `analytics migrate`: creates or upgrades every configured store, then exits. The embedded
// event store cannot be opened while a server holds it; that server migrated it on start,
// so that case is reported and is not a failure.

import { StoreBusyError } from "../errors.js";
import { describeMetadataStore, openEventStore, openMetadataStore } from "../storage/open-storage.js";
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
    const where = config.clickhouseUrl
      ? `ClickHouse (${config.clickhouseUrl.length} node(s))`
      : config.dataDir;
    console.log(`Event store in ${where} is up to date.`);
  } catch (error) {
    if (!(error instanceof StoreBusyError)) throw error;
    console.log(error.message);
  }
  return 0;
}
