// The event stores the contract suites run against, one line each in EVENT_STORES: the
// embedded store always; a ClickHouse server or cluster when ANALYTICS_TEST_CLICKHOUSE_URL
// (the comma-separated HTTP URLs of its nodes) and ANALYTICS_TEST_CLICKHOUSE_CLUSTER name one
// (.ci/run: Debian's 18.16), otherwise those suites skip and say so; and a current ClickHouse
// engine (chdb, one node) always. A store is opened from a configuration, as the server opens
// it. Every provisioned ClickHouse store is a database of its own, dropped after.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@clickhouse/client";
import type { Clock } from "../../src/clock.js";
import { loadConfig } from "../../src/config.js";
import { openEventStore } from "../../src/storage/open-storage.js";
import type { EventStore } from "../../src/storage/ports.js";
import { chdbMissing, chdbUrl } from "./chdb-server.js";

export const CLICKHOUSE_URLS = (process.env.ANALYTICS_TEST_CLICKHOUSE_URL ?? "")
  .split(",")
  .map((url) => url.trim().replace(/\/+$/, ""))
  .filter((url) => url !== "");
export const CLICKHOUSE_CLUSTER = process.env.ANALYTICS_TEST_CLICKHOUSE_CLUSTER ?? "";

export function clickhouseMissing(): string | null {
  if (CLICKHOUSE_URLS.length === 0) {
    return "no ClickHouse: set ANALYTICS_TEST_CLICKHOUSE_URL (and ANALYTICS_TEST_CLICKHOUSE_CLUSTER), as .ci/run does";
  }
  if (CLICKHOUSE_URLS.length > 1 && CLICKHOUSE_CLUSTER === "") {
    return "ANALYTICS_TEST_CLICKHOUSE_URL lists several nodes but ANALYTICS_TEST_CLICKHOUSE_CLUSTER is not set";
  }
  return null;
}

export interface ProvisionedStore {
  /** Environment variables that point a config (with a fresh data directory) at this store. */
  env: Record<string, string>;
  /** Removes everything the store holds outside the data directory. */
  dispose(): Promise<void>;
}

export interface EventStoreUnderTest {
  name: string;
  /** Why the store cannot be tested here, or false. */
  skip: string | false;
  /** A fresh, empty store. */
  provision(): Promise<ProvisionedStore>;
}

export interface ProvisionedClickHouse extends ProvisionedStore {
  /** The same as a ClickHouseTarget, for tests that open the store directly. */
  urls: string[];
  cluster: string | null;
}

/** A ClickHouse engine the suites run on: its nodes' URLs and cluster. */
export interface ClickHouseUnderTest {
  name: string;
  skip: string | false;
  urls(): Promise<string[]>;
  cluster: string | null;
}

/** The configured server or cluster, then the current engine (chdb, one node, no cluster). */
export const CLICKHOUSE_ENGINES: readonly ClickHouseUnderTest[] = [
  {
    name: "ClickHouse",
    skip: clickhouseMissing() ?? false,
    urls: async () => CLICKHOUSE_URLS,
    cluster: CLICKHOUSE_CLUSTER === "" ? null : CLICKHOUSE_CLUSTER,
  },
  {
    name: "current ClickHouse (chdb)",
    skip: chdbMissing() ?? false,
    urls: async () => [await chdbUrl()],
    cluster: null,
  },
];

/** A fresh database on every node of the engine (the configured one by default); dispose() drops it on each. */
export async function provisionClickHouse(
  engine = CLICKHOUSE_ENGINES[0] as ClickHouseUnderTest,
): Promise<ProvisionedClickHouse> {
  const database = `analytics_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const nodes = await engine.urls();
  const urls = nodes.map((url) => `${url}/${database}`);
  const cluster = engine.cluster;
  return {
    env: { ANALYTICS_CLICKHOUSE_URL: urls.join(","), ANALYTICS_CLICKHOUSE_CLUSTER: cluster ?? "" },
    urls,
    cluster,
    async dispose() {
      for (const url of nodes) {
        const client = createClient({ url });
        try {
          await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
        } finally {
          await client.close();
        }
      }
    },
  };
}

/** Every engine the contract holds for; a new engine adds its line here. */
export const EVENT_STORES: readonly EventStoreUnderTest[] = [
  { name: "embedded", skip: false, provision: async () => ({ env: {}, dispose: async () => undefined }) },
  ...CLICKHOUSE_ENGINES.map((engine) => ({
    name: engine.name,
    skip: engine.skip,
    provision: () => provisionClickHouse(engine),
  })),
];

/** The engines this run can test. */
export const AVAILABLE_EVENT_STORES = EVENT_STORES.filter((engine) => engine.skip === false);

export interface OpenedStore {
  store: EventStore;
  /** Closes the store and removes everything it held. */
  close(): Promise<void>;
}

/** A fresh store of `engine`, migrated, opened from a configuration as the server opens it. */
export async function openTestStore(engine: EventStoreUnderTest, clock: Clock): Promise<OpenedStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-contract-"));
  const provisioned = await engine.provision();
  const remove = async () => {
    await provisioned.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let store: EventStore | null = null;
  try {
    store = await openEventStore(loadConfig({ ANALYTICS_DATA_DIR: dataDir, ...provisioned.env }), clock);
    await store.migrate();
  } catch (error) {
    await store?.close();
    await remove();
    throw error;
  }
  const opened = store;
  return {
    store: opened,
    async close() {
      try {
        await opened.close();
      } finally {
        await remove();
      }
    },
  };
}
