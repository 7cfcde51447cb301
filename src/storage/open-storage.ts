// The one place that chooses storage engines from the configuration.

import type { Config } from "../config.js";
import type { MetadataStore } from "./ports.js";
import { openSqliteMetadataStore } from "./sqlite/open-sqlite.js";

export interface Storage {
  metadata: MetadataStore;
}

export function openStorage(config: Config): Storage {
  return { metadata: openSqliteMetadataStore(config.dataDir) };
}
