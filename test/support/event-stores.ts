// The event stores the contract suites run against: the embedded DuckDB store always; a
// ClickHouse server or cluster when ANALYTICS_TEST_CLICKHOUSE_URL (the comma-separated HTTP
// URLs of its nodes) and ANALYTICS_TEST_CLICKHOUSE_CLUSTER name one (.ci/run: Debian's
// 18.16), otherwise those suites skip and say so; and a current ClickHouse engine (chdb,
// one node) always. Every provisioned ClickHouse store is a database of its own, dropped after.

import { randomBytes } from "node:crypto";
import { createClient } from "@clickhouse/client";
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
  /** Environment variables that point a config at this store. */
  env: Record<string, string>;
  /** The same as a ClickHouseTarget, for tests that open the store directly. */
  urls: string[];
  cluster: string | null;
  /** Removes everything the store holds. */
  dispose(): Promise<void>;
}

export interface EventStoreUnderTest {
  name: string;
  /** Why the store cannot be tested here, or false. */
  skip: string | false;
  /** A fresh, empty store. */
  provision(): Promise<ProvisionedStore>;
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
): Promise<ProvisionedStore> {
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

export const EVENT_STORES: readonly EventStoreUnderTest[] = [
  {
    name: "embedded",
    skip: false,
    provision: async () => ({ env: {}, urls: [], cluster: null, dispose: async () => undefined }),
  },
  ...CLICKHOUSE_ENGINES.map((engine) => ({
    name: engine.name,
    skip: engine.skip,
    provision: () => provisionClickHouse(engine),
  })),
];
