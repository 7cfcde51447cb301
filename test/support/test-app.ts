// Builds a real app over fresh stores (a temporary directory, and a fresh PostgreSQL schema
// when the metadata engine under test is PostgreSQL), with helpers to create users and call
// the API. Every test gets its own, so no test depends on another.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.js";
import type { Clock } from "../../src/clock.js";
import { loadConfig } from "../../src/config.js";
import { type Container, createContainer } from "../../src/container.js";
import type { Notice } from "../../src/ingest/outage-log.js";
import type { HashCost } from "../../src/websites/password-hash.js";
import type { EventStoreUnderTest } from "./event-stores.js";
import { freshMetadata, type TestMetadata } from "./test-metadata.js";

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  dataDir: string;
  /** Creates a user and returns its API key. */
  createUser(email?: string): Promise<string>;
  /** Calls the API with this key; `form` is sent url-encoded, `json` as JSON. */
  call(key: string | null, options: ApiCall): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface ApiCall {
  method?: InjectOptions["method"];
  url: string;
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
}

let userCounter = 0;

export function tempDir(prefix = "analytics-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestStores {
  /** An existing data directory, left in place by close(). */
  dataDir: string;
  /** The metadata store's environment (TestMetadata.env), left in place by close(). */
  metadataEnv: Record<string, string>;
}

export interface TestAppOptions {
  /** Reopen these stores (as a restart would) instead of fresh ones. */
  stores?: TestStores;
  /** The event store under test (a fresh one, removed on close); the embedded one by default. */
  store?: EventStoreUnderTest;
  /** Where the server's background notices go (ContainerOptions.onNotice). */
  onNotice?: Notice;
  /** The cost of new password hashes: TEST_PASSWORD_COST unless a test asks for the servers' own. */
  passwordCost?: HashCost;
}

/**
 * What the tests' apps hash new passwords at: 1 MiB and about 3 ms, against the servers' 128
 * MiB and 0.45 s (password-hash.ts), which no test needs but the hashing tests themselves.
 */
export const TEST_PASSWORD_COST: HashCost = { N: 1024, r: 8, p: 1 };

/** A test app over fresh stores, or over the stores `options` names. */
export async function createTestApp(
  env: Record<string, string> = {},
  clock?: Clock,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const { stores, store, onNotice, passwordCost = TEST_PASSWORD_COST } = options;
  const dataDir = stores?.dataDir ?? tempDir();
  const metadata: TestMetadata = stores
    ? { env: stores.metadataEnv, drop: async () => undefined }
    : await freshMetadata();
  let events: Awaited<ReturnType<EventStoreUnderTest["provision"]>> | null = null;
  let container: Container;
  try {
    events = store ? await store.provision() : null;
    const config = loadConfig({ ANALYTICS_DATA_DIR: dataDir, ...metadata.env, ...events?.env, ...env });
    container = await createContainer(config, {
      passwordCost,
      ...(clock ? { clock } : {}),
      ...(onNotice ? { onNotice } : {}),
    });
  } catch (error) {
    await events?.dispose();
    await metadata.drop();
    throw error;
  }
  const app = await buildApp(container);
  await app.ready();
  return {
    app,
    container,
    dataDir,
    async createUser(email = `user${++userCounter}@example.org`) {
      return (await container.users.create({ email })).apiKey;
    },
    call(key, { method = "GET", url, form, json, headers = {} }) {
      const allHeaders: Record<string, string> = { accept: "application/json", ...headers };
      if (key !== null) allHeaders.authorization = `Bearer ${key}`;
      let payload: string | undefined;
      if (form !== undefined) {
        allHeaders["content-type"] = "application/x-www-form-urlencoded";
        payload = new URLSearchParams(form).toString();
      } else if (json !== undefined) {
        allHeaders["content-type"] = "application/json";
        payload = JSON.stringify(json);
      }
      return app.inject({ method, url, headers: allHeaders, ...(payload === undefined ? {} : { payload }) });
    },
    async close() {
      await app.close();
      await container.close();
      await events?.dispose();
      await metadata.drop();
      if (!stores) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
