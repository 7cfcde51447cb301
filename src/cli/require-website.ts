// A command given `--website ID` first checks that a website has that id: the event store
// alone cannot tell a mistyped id from a website without events, and "rebuilt from 0
// events" or an empty export would hide the mistake.

import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { openMetadataStore } from "../storage/open-storage.js";

/** Fails (exit 1) naming the website and `consequence` ("nothing was exported") when no website has `id`. */
export async function requireWebsite(config: Config, id: number, consequence: string): Promise<void> {
  const metadata = openMetadataStore(config);
  try {
    await metadata.migrate();
    if (!(await metadata.websites.findById(id))) {
      throw new AppError("not_found", `There is no website with id ${id}: ${consequence}.`);
    }
  } finally {
    await metadata.close();
  }
}
