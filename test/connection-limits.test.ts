// What one client can hold of a running server (a real `analytics serve` process): beyond
// ANALYTICS_MAX_CONNECTIONS_PER_CLIENT open connections from one address, a new one from it
// is closed at once while other clients are served; a connection that stalls in its headers
// is closed after ANALYTICS_HEADERS_TIMEOUT_MS, while an idle keep-alive one stays open.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type RunningServer, startServer } from "./support/cli.js";
import { tempDir } from "./support/test-app.js";

const LIMIT = 8;
const HEADERS_TIMEOUT_MS = 1_000;
/** Bounds on a hung server, far above what each step takes, never measurements. */
const GENEROUS_MS = 10_000;

/** A connection that has answered one request, left open (keep-alive). */
interface Held {
  socket: net.Socket;
  /** Sends another request on it and resolves with the status line. */
  again(): Promise<string>;
}

/** Every socket a test opened, closed after the tests whatever they did (an open one keeps this process alive). */
const opened: net.Socket[] = [];

function connect(port: number, localAddress = "127.0.0.1"): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress }, () => resolve(socket));
    opened.push(socket);
    socket.once("error", reject);
  });
}

/** Writes a keep-alive GET /healthz and resolves with the status line of its answer. */
function ask(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("no answer")), GENEROUS_MS);
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes("\r\n\r\n") && text.includes('{"status":"ok"}')) {
        clearTimeout(timer);
        socket.off("data", onData);
        resolve(text.split("\r\n")[0] ?? "");
      }
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
    socket.write("GET /healthz HTTP/1.1\r\nHost: limits.test\r\n\r\n");
  });
}

/** Resolves with what the server sent before it closed the socket, or rejects after GENEROUS_MS. */
function closedBy(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    if (socket.destroyed) return resolve("");
    const timer = setTimeout(() => reject(new Error(`still open after ${GENEROUS_MS} ms`)), GENEROUS_MS);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", () => undefined); // a reset is a close too
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

function get(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: "127.0.0.1", port, path: "/healthz", localAddress, agent: false, timeout: GENEROUS_MS },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}

describe("connection limits of a running server", () => {
  const dataDir = tempDir("analytics-limits-");
  let server: RunningServer;
  let port = 0;

  before(async () => {
    server = await startServer(["--data-dir", dataDir], {
      ANALYTICS_DATABASE_URL: "",
      ANALYTICS_MAX_CONNECTIONS_PER_CLIENT: String(LIMIT),
      ANALYTICS_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    });
    port = Number(new URL(server.baseUrl).port);
  });

  after(async () => {
    for (const socket of opened) socket.destroy();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`closes connections from one address beyond ${LIMIT} at once, and serves everyone else`, async () => {
    const held: Held[] = [];
    try {
      for (let i = 0; i < LIMIT; i++) {
        const socket = await connect(port);
        assert.match(await ask(socket), /^HTTP\/1\.1 200/);
        held.push({ socket, again: () => ask(socket) });
      }
      for (let i = 0; i < 3; i++) {
        const extra = await connect(port);
        extra.write("GET /healthz HTTP/1.1\r\nHost: limits.test\r\n\r\n");
        assert.equal(await closedBy(extra), "", "closed without an answer");
      }
      // Another client address is served, and so are the connections already open.
      assert.equal(await get(port, "127.0.0.2"), 200);
      const [first] = held;
      assert.ok(first);
      assert.match(await first.again(), /^HTTP\/1\.1 200/);
      // Once one of the address's connections closes, it may open another.
      held.pop()?.socket.destroy();
      let status = 0;
      for (let tries = 0; tries < 50 && status !== 200; tries++) {
        status = await get(port, "127.0.0.1").catch(() => 0);
        if (status !== 200) await sleep(100);
      }
      assert.equal(status, 200);
    } finally {
      for (const { socket } of held) socket.destroy();
    }
    assert.match(
      server.output(),
      /closed new connections of clients over ANALYTICS_MAX_CONNECTIONS_PER_CLIENT/,
    );
  });

  it("closes a connection stalled in its headers after the timeout; an idle keep-alive one stays", async () => {
    const idle = await connect(port, "127.0.0.3");
    assert.match(await ask(idle), /^HTTP\/1\.1 200/);
    const stalled = await connect(port, "127.0.0.3");
    stalled.write("GET /healthz HTTP/1.1\r\nHost: limits.test\r\nX-Half: ");
    const sent = await closedBy(stalled);
    assert.ok(
      sent === "" || /^HTTP\/1\.1 408/.test(sent),
      `closed, at most with a 408: ${JSON.stringify(sent)}`,
    );
    // The idle connection has waited longer than the headers timeout between requests.
    await sleep(HEADERS_TIMEOUT_MS * 2);
    assert.match(await ask(idle), /^HTTP\/1\.1 200/);
    idle.destroy();
  });
});
