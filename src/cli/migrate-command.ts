// `analytics migrate`: creates or upgrades every configured store, then exits.

import { createContainer } from "../container.js";
import { configFrom, parseCommand } from "./command-options.js";

export async function migrateCommand(args: string[]): Promise<number> {
  const config = configFrom(parseCommand(args, {}));
  const container = await createContainer(config); // migrates on open
  await container.close();
  console.log(`Storage in ${config.dataDir} is up to date.`);
  return 0;
}
