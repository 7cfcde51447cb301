// The EventStore port over a running server's control socket (store-socket.ts): what the
// CLI uses for the embedded event store while `serve` holds it. Every call runs in the
// server, on its store; this process opens no database file.

import http from "node:http";
import readline from "node:readline";
import {
  type DayCounts,
  type DaysQuery,
  type RealtimeCounts,
  type RealtimeQuery,
  type StatsBatch,
  type StatsPage,
  type StatsQuery,
  statsOneByOne,
} from "../../stats/stats-query.js";
import { fromColumns } from "../event-columns.js";
import type { EventColumns, EventStore, ExportOptions, StoredEvent } from "../ports.js";
import {
  daysQueryToWire,
  eventFromWire,
  eventToWire,
  queryToWire,
  type RemoteMethod,
  readBody,
  type WireEvent,
} from "./store-socket-wire.js";

export class RemoteEventStore implements EventStore {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly socketPath: string) {}

  /** Whether a server answers on `socketPath`. */
  static async answers(socketPath: string): Promise<boolean> {
    const probe = new RemoteEventStore(socketPath);
    try {
      await probe.ping();
      return true;
    } catch {
      return false;
    } finally {
      await probe.close();
    }
  }

  /** The server migrated its store when it started. */
  async migrate(): Promise<void> {}

  async insert(batch: EventColumns): Promise<void> {
    await this.call("insert", [fromColumns(batch).map(eventToWire)]);
  }

  async queryStat(query: StatsQuery): Promise<StatsPage> {
    return (await this.call("queryStat", [queryToWire(query)])) as StatsPage;
  }

  async queryDays(query: DaysQuery): Promise<DayCounts> {
    return (await this.call("queryDays", [daysQueryToWire(query)])) as DayCounts;
  }

  /** A statistic a call: no command reads a batch (the dashboard's lists do, in the server). */
  queryStats(batch: StatsBatch): Promise<StatsPage[]> {
    return statsOneByOne(batch, (query) => this.queryStat(query));
  }

  async queryRealtime(query: RealtimeQuery): Promise<RealtimeCounts> {
    return (await this.call("queryRealtime", [query])) as RealtimeCounts;
  }

  async rebuildAggregates(websiteId?: number): Promise<void> {
    await this.call("rebuildAggregates", [websiteId ?? null]);
  }

  async setZone(websiteId: number, zone: string): Promise<void> {
    await this.call("setZone", [websiteId, zone]);
  }

  async deleteWebsite(websiteId: number): Promise<void> {
    await this.call("deleteWebsite", [websiteId]);
  }

  async countEvents(websiteId?: number): Promise<number> {
    return Number(await this.call("countEvents", [websiteId ?? null]));
  }

  async *exportEvents(options: ExportOptions = {}): AsyncIterable<StoredEvent[]> {
    const response = await this.request("/export", options);
    if (response.statusCode !== 200) throw new Error(await errorOf(response));
    for await (const line of readline.createInterface({ input: response, crlfDelay: Infinity })) {
      if (line !== "") yield (JSON.parse(line) as WireEvent[]).map(eventFromWire);
    }
    if (!response.complete) throw new Error("the server ended the export early");
  }

  async ping(): Promise<void> {
    await this.call("ping", []);
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private async call(method: RemoteMethod, args: unknown[]): Promise<unknown> {
    const response = await this.request("/call", { method, args });
    if (response.statusCode !== 200) throw new Error(await errorOf(response));
    return (JSON.parse(await readBody(response)) as { result: unknown }).result;
  }

  private request(path: string, body: unknown): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const request = http.request(
        {
          socketPath: this.socketPath,
          path,
          method: "POST",
          agent: this.agent,
          headers: { "content-type": "application/json", "content-length": payload.length },
        },
        resolve,
      );
      request.on("error", reject);
      request.end(payload);
    });
  }
}

async function errorOf(response: http.IncomingMessage): Promise<string> {
  const text = await readBody(response);
  try {
    return `the running server: ${(JSON.parse(text) as { error: string }).error}`;
  } catch {
    return `the running server answered ${response.statusCode}`;
  }
}
