// Tells a PostgreSQL server that cannot be used for now (unreachable, shutting down or
// starting up, out of connections or room, a connection cut) from other errors, and says so
// in one line naming the server without its password: at start (`migrate` fails with it)
// and on every statement of a running server, whose callers then answer 503, not 500.

import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { StoreUnavailableError } from "../../errors.js";

/** Codes of the connection's failures: the socket's (Node's), then PostgreSQL's SQLSTATEs. */
const UNAVAILABLE_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "unknown host",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  // A Unix socket's path, while the server is stopped.
  ENOENT: "no socket",
  "28P01": "password authentication failed",
  "28000": "access refused",
  "3D000": "no such database",
  "57P01": "the server is shutting down",
  "57P02": "the server crashed",
  "57P03": "the server cannot accept connections now",
};

/** SQLSTATE classes of the same: 08 a connection exception, 53 insufficient resources (a full disk, too many connections). */
const UNAVAILABLE_CLASSES: Record<string, string> = {
  "08": "connection failure",
  "53": "insufficient resources",
};

/** node-postgres's own errors (they have no code) for a connection that ended or never began. */
const ENDED = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/**
 * `Cannot use the PostgreSQL metadata store at host:5432/db: connection refused.` when the
 * error says the server cannot be used for now; null for other errors.
 */
export function postgresUnavailable(error: unknown, url: string): string | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  let why: string | undefined;
  if (typeof code === "string") {
    why =
      UNAVAILABLE_CODES[code] ??
      (/^[0-9A-Z]{5}$/.test(code) ? UNAVAILABLE_CLASSES[code.slice(0, 2)] : undefined);
  }
  if (why === undefined && typeof message === "string") {
    if (/timeout/i.test(message) && /connect/i.test(message)) why = "connection timed out";
    else if (/^Query read timeout/.test(message)) why = "no answer in time";
    else if (ENDED.test(message)) why = "connection lost";
  }
  if (why === undefined) return null;
  return `Cannot use the PostgreSQL metadata store at ${describePostgresServer(url)}: ${why}.`;
}

/** `host:port/database` of a connection URL, without user or password. */
export function describePostgresServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "ANALYTICS_DATABASE_URL";
  }
}

/**
 * `pool` as Kysely's dialect drives it, with a connection that cannot be had, and a
 * statement whose connection fails, turned into StoreUnavailableError (node-postgres's
 * error is its cause). Other errors (a unique violation, a bad statement) are left as they
 * are.
 */
export function translatedPool(pool: pg.Pool, url: string): PostgresPool {
  const translated = (error: unknown): unknown => {
    const failure = postgresUnavailable(error, url);
    return failure ? new StoreUnavailableError("metadata", failure, { cause: error }) : error;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translated(error);
      }
      // A connection the server ended goes back to the pool before its socket closes, and
      // the next statement would be given it: released with its failure, it is closed instead.
      let lost: StoreUnavailableError | undefined;
      const query = (text: string, parameters: readonly unknown[]) =>
        client.query(text, [...parameters]).catch((error: unknown) => {
          const failure = translated(error);
          if (failure instanceof StoreUnavailableError) lost = failure;
          throw failure;
        });
      // Only the statement form: Kysely streams through a cursor only when given one, and this store is not.
      return { query: query as unknown as PostgresPoolClient["query"], release: () => client.release(lost) };
    },
    end: () => pool.end(),
  };
}
