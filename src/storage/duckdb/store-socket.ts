// The embedded event store's control socket. DuckDB lets one process open the file, so
// while `serve` holds it the CLI's commands that need events (aggregates rebuild, reports
// send, export, import) reach it through this Unix socket in the data directory instead:
// the server runs their calls on its own store, between its own writes. The socket file is
// readable and writable by its owner only, like the data files beside it.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { RealtimeQuery } from "../../stats/stats-query.js";
import { columnsOf } from "../event-columns.js";
import type { Closable } from "../event-engine.js";
import type { EventStore } from "../ports.js";
import {
  daysQueryFromWire,
  eventFromWire,
  eventToWire,
  queryFromWire,
  REMOTE_METHODS,
  type RemoteMethod,
  readBody,
  realtimeFromWire,
  type WireDaysQuery,
  type WireEvent,
  type WireQuery,
} from "./store-socket-wire.js";

/** Where a data directory's control socket is. */
export function storeSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), "events.sock");
}

/** Largest request body: an import batch of 10,000 events fits many times over. */
const MAX_BODY = 256 * 1024 * 1024;

/** Serves `store` on the data directory's socket until close(). */
export async function serveStoreSocket(store: EventStore, dataDir: string): Promise<Closable> {
  const socketPath = storeSocketPath(dataDir);
  // A socket file left by a server that died: this process holds the store, so none is live.
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer((request, response) => {
    readJson(request)
      .then((body) => answer(store, request.url ?? "", body, response))
      .catch((error: unknown) => fail(response, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(store: EventStore, url: string, body: unknown, response: http.ServerResponse) {
  if (url === "/export") {
    response.writeHead(200, { "content-type": "application/x-ndjson" });
    for await (const batch of store.exportEvents((body ?? {}) as Parameters<EventStore["exportEvents"]>[0])) {
      if (!response.write(`${JSON.stringify(batch.map(eventToWire))}\n`)) {
        await new Promise((resolve) => response.once("drain", resolve));
      }
    }
    response.end();
    return;
  }
  const { method, args } = (body ?? {}) as { method?: string; args?: unknown[] };
  if (url !== "/call" || !REMOTE_METHODS.includes(method as RemoteMethod) || !Array.isArray(args)) {
    json(response, 404, { error: "no such call" });
    return;
  }
  const result = await call(store, method as RemoteMethod, args);
  json(response, 200, { result: result ?? null });
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function call(store: EventStore, method: RemoteMethod, args: unknown[]): Promise<unknown> {
  const id = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));
  switch (method) {
    case "insert":
      return store.insert(columnsOf((args[0] as WireEvent[]).map(eventFromWire)));
    case "queryStat":
      return store.queryStat(queryFromWire(args[0] as WireQuery));
    case "queryDays":
      return store.queryDays(daysQueryFromWire(args[0] as WireDaysQuery));
    case "queryRealtime":
      return store.queryRealtime(realtimeFromWire(args[0] as RealtimeQuery));
    case "rebuildAggregates":
      return store.rebuildAggregates(id(args[0]));
    case "setZone":
      return store.setZone(Number(args[0]), String(args[1]));
    case "deleteWebsite":
      return store.deleteWebsite(Number(args[0]));
    case "countEvents":
      return store.countEvents(id(args[0]));
    case "ping":
      return store.ping();
  }
}

function fail(response: http.ServerResponse, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (response.headersSent) {
    response.destroy(error instanceof Error ? error : new Error(message));
    return;
  }
  json(response, 500, { error: message });
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const text = await readBody(request, MAX_BODY);
  return text === "" ? null : JSON.parse(text);
}
