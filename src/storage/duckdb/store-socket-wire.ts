// How the embedded event store's calls travel over its control socket (see store-socket.ts):
// JSON, with a StoredEvent's instant as epoch milliseconds and its visitor as a decimal
// string, and a StatsQuery's statistic by name. One place, used by both ends.

import type http from "node:http";
import { type StatDefinition, statByName } from "../../stats/catalog.js";
import type { DaysQuery, RealtimeQuery, StatsQuery } from "../../stats/stats-query.js";
import { EVENT_KINDS, EVENT_TEXT_FIELDS, type StoredEvent } from "../ports.js";

/** The methods of the EventStore port a command may call through a running server. */
export const REMOTE_METHODS = [
  "insert",
  "queryStat",
  "queryDays",
  "queryRealtime",
  "rebuildAggregates",
  "setZone",
  "deleteWebsite",
  "countEvents",
  "ping",
] as const;
export type RemoteMethod = (typeof REMOTE_METHODS)[number];

export type WireEvent = Omit<StoredEvent, "ts" | "visitor"> & { ts: number; visitor: string };
export type WireQuery = Omit<StatsQuery, "stat"> & { stat: string };
export type WireDaysQuery = Omit<DaysQuery, "stats"> & { stats: string[] };

export function eventToWire(event: StoredEvent): WireEvent {
  return { ...event, ts: event.ts.getTime(), visitor: event.visitor.toString() };
}

export function eventFromWire(wire: WireEvent): StoredEvent {
  if (
    typeof wire !== "object" ||
    wire === null ||
    !Number.isInteger(wire.websiteId) ||
    !Number.isFinite(wire.ts) ||
    !/^\d{1,20}$/.test(String(wire.visitor)) ||
    !EVENT_KINDS.includes(wire.kind) ||
    typeof wire.isVisit !== "boolean" ||
    EVENT_TEXT_FIELDS.some((field) => typeof wire[field] !== "string")
  ) {
    throw new Error("not a stored event");
  }
  return { ...wire, ts: new Date(wire.ts), visitor: BigInt(wire.visitor) };
}

export function queryToWire(query: StatsQuery): WireQuery {
  return { ...query, stat: query.stat.name };
}

export function queryFromWire(wire: WireQuery): StatsQuery {
  const stat: StatDefinition | null = statByName(String(wire?.stat));
  if (!stat) throw new Error(`no statistic ${JSON.stringify(wire?.stat)}`);
  return { ...wire, stat };
}

export function daysQueryToWire(query: DaysQuery): WireDaysQuery {
  return { ...query, stats: query.stats.map((stat) => stat.name) };
}

export function daysQueryFromWire(wire: WireDaysQuery): DaysQuery {
  if (!Array.isArray(wire?.stats)) throw new Error("not a days query");
  const stats = wire.stats.map((name) => {
    const stat: StatDefinition | null = statByName(String(name));
    if (!stat) throw new Error(`no statistic ${JSON.stringify(name)}`);
    return stat;
  });
  return { ...wire, stats };
}

/** A message's whole body as text; past `limit` bytes it destroys the message and throws. */
export async function readBody(
  message: http.IncomingMessage,
  limit = Number.POSITIVE_INFINITY,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      message.destroy();
      throw new Error("request too large");
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A RealtimeQuery as sent: four integers (a website id and instants in ms). */
export function realtimeFromWire(wire: RealtimeQuery): RealtimeQuery {
  const fields = [wire?.websiteId, wire?.visitorsFrom, wire?.minutesFrom, wire?.until];
  if (!fields.every((field) => Number.isSafeInteger(field))) throw new Error("not a realtime query");
  return {
    websiteId: wire.websiteId,
    visitorsFrom: wire.visitorsFrom,
    minutesFrom: wire.minutesFrom,
    until: wire.until,
  };
}
