// The event stores the contract suites run against: the embedded DuckDB store always, and a
// ClickHouse cluster when ANALYTICS_TEST_CLICKHOUSE_URL (the comma-separated HTTP URLs of
// its nodes) and ANALYTICS_TEST_CLICKHOUSE_CLUSTER name one; otherwise those suites skip
// and say so. Every provisioned ClickHouse store is a database of its own, dropped after.

import { randomBytes } from "node:crypto";
import { createClient } from "@clickhouse/client";

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

/** A fresh database on every node of the test cluster; dispose() drops it on each. */
export async function provisionClickHouse(): Promise<ProvisionedStore> {
  const database = `analytics_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const urls = CLICKHOUSE_URLS.map((url) => `${url}/${database}`);
  const cluster = CLICKHOUSE_CLUSTER === "" ? null : CLICKHOUSE_CLUSTER;
  return {
    env: { ANALYTICS_CLICKHOUSE_URL: urls.join(","), ANALYTICS_CLICKHOUSE_CLUSTER: cluster ?? "" },
    urls,
    cluster,
    async dispose() {
      for (const url of CLICKHOUSE_URLS) {
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
  { name: "ClickHouse", skip: clickhouseMissing() ?? false, provision: provisionClickHouse },
];
