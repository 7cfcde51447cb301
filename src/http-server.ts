// The HTTP server every request arrives on, with what one client may hold bounded: at most
// a set number of open connections per client address (beyond it a new connection is closed
// at once), its headers within one timeout and its whole request within another. Without
// the first, one client holding about 21,000 idle sockets used up the process's file
// descriptors, and every other client's connections were reset.

import http from "node:http";

export interface ConnectionLimits {
  /** Open connections allowed per client (socket) address; 0 for no limit. */
  maxConnectionsPerClient: number;
  /** From a request's first byte (or the connection's start) to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body. */
  requestTimeoutMs: number;
}

/** How long an idle keep-alive connection stays open (Fastify's own default). */
const KEEP_ALIVE_MS = 72_000;
/** At most one line a minute about refused connections: a flood would otherwise log one each. */
const REFUSAL_LOG_MS = 60_000;

export interface RefusedConnections {
  /** Connections closed since the last report, and the addresses they came from (at most 10). */
  refused: number;
  addresses: string[];
}

export function createHttpServer(
  listener: http.RequestListener,
  limits: ConnectionLimits,
  onRefused: (report: RefusedConnections) => void,
): http.Server {
  const server = http.createServer(
    {
      // Trackers keep connections open for long; Node's 5 s idle close races requests
      // written just as it happens. An idle connection between requests is not bound by
      // the two timeouts below, which run only while a request is being received.
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often expired requests are looked for (Node's default is every 30 s): a quarter
      // of the headers timeout, so a stalled client is closed at most that long after it.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
    },
    listener,
  );
  if (limits.maxConnectionsPerClient > 0) limitPerClient(server, limits.maxConnectionsPerClient, onRefused);
  return server;
}

function limitPerClient(
  server: http.Server,
  max: number,
  onRefused: (report: RefusedConnections) => void,
): void {
  const open = new Map<string, number>();
  let report: RefusedConnections = { refused: 0, addresses: [] };
  let lastReport = Number.NEGATIVE_INFINITY;
  server.on("connection", (socket) => {
    const address = socket.remoteAddress ?? "";
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      report.refused++;
      if (report.addresses.length < 10 && !report.addresses.includes(address)) report.addresses.push(address);
      if (Date.now() - lastReport >= REFUSAL_LOG_MS) {
        lastReport = Date.now();
        onRefused(report);
        report = { refused: 0, addresses: [] };
      }
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
