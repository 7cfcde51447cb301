// SIGTERM while a client keeps a keep-alive connection busy with hits (pipelined, so the
// connection is never idle): the server answers the next hit with `Connection: close`,
// closes the connection, stops, and every hit it acknowledged is in the event store.
// Before, it answered for as long as the client went on and never exited by itself.

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import { describe, it } from "node:test";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import { createWebsite, runCli, startServer } from "./support/cli.js";
import { tempDir } from "./support/test-app.js";

const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";
/** How long the client goes on at most: far beyond the server's documented 5 s grace. */
const CLIENT_LIMIT_MS = 30_000;
/** Answers before the signal. */
const BEFORE_SIGNAL = 500;

interface ClientResult {
  acknowledged: number;
  afterSignal: number;
  /** Answers that said `Connection: close`. */
  closing: number;
}

/**
 * Hits outstanding on the connection at any time. With two, the server sometimes answered
 * both before the next arrived (a busy machine): the connection was idle at the signal, and
 * closed at once without an answer to say so (as documented for idle connections).
 */
const OUTSTANDING = 8;

/**
 * A tracker on one connection, OUTSTANDING hits always outstanding: each answer sends the
 * next. `onAnswers(n)` is told the count of answers so far.
 */
function pipelinedTracker(port: number, onAnswers: (count: number) => void): Promise<ClientResult> {
  const body = JSON.stringify({ page: "https://busy.example/" });
  const request =
    `POST /api/event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nUser-Agent: ${SAFARI}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const result: ClientResult = { acknowledged: 0, afterSignal: 0, closing: 0 };
  let answers = 0;
  let signalled = false;
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request.repeat(OUTSTANDING)));
    let pending = "";
    const giveUp = setTimeout(() => socket.destroy(), CLIENT_LIMIT_MS);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      pending += chunk;
      // Every answer of the endpoint is headers only (Content-Length: 0).
      for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        answers += 1;
        if (/^HTTP\/1\.1 202 /.test(head) && !/\r\nx-analytics-dropped:/i.test(head))
          result.acknowledged += 1;
        if (/\r\nconnection: close/i.test(head)) result.closing += 1;
        if (signalled) result.afterSignal += 1;
        if (answers === BEFORE_SIGNAL) {
          signalled = true;
          onAnswers(answers);
        }
        if (!socket.destroyed) socket.write(request);
      }
    });
    socket.on("error", () => undefined); // a reset is how some servers end it; "close" follows
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve(result);
    });
  });
}

describe("shutdown under load", () => {
  it("closes a connection kept busy with hits, stops, and loses nothing acknowledged", async () => {
    const dataDir = tempDir("analytics-shutdown-load-");
    try {
      const key = runCli(["users", "create", "--email", "owner@example.org", "--data-dir", dataDir]).lastLine;
      const server = await startServer(["--data-dir", dataDir]);
      await createWebsite(server.baseUrl, key, "busy.example");
      let exitedAt = 0;
      const exited = new Promise<number | null>((resolve) =>
        server.process.once("exit", (code) => {
          exitedAt = Date.now();
          resolve(code);
        }),
      );
      const started = Date.now();
      const client = await pipelinedTracker(Number(new URL(server.baseUrl).port), () =>
        server.process.kill("SIGTERM"),
      );
      const clientEnded = Date.now();
      // Give the server its grace and its last write, then look: it must be gone by itself.
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve("running"), 15_000)),
      ]);
      if (code === "running") server.process.kill("SIGKILL");
      assert.equal(code, 0, `the server stopped by itself, cleanly:\n${server.output().slice(-2000)}`);
      assert.ok(
        clientEnded - started < CLIENT_LIMIT_MS,
        `the server ended the connection (${client.afterSignal} answers after the signal), not the client's limit`,
      );
      assert.ok(client.closing >= 1, "an answer after the signal said Connection: close");
      assert.ok(exitedAt > 0 && exitedAt - clientEnded < 15_000);
      const store = await DuckDbEventStore.open(dataDir);
      try {
        // Every acknowledged hit is stored. Hits already in the pipe behind the answer that
        // said Connection: close may be stored without an answer reaching the client (a
        // client would send those again): at most the ones outstanding.
        const stored = await store.countEvents();
        assert.ok(
          stored >= client.acknowledged,
          `every acknowledged hit was stored (${stored} of ${client.acknowledged})`,
        );
        assert.ok(
          stored <= client.acknowledged + OUTSTANDING,
          `${stored} stored, ${client.acknowledged} acknowledged`,
        );
      } finally {
        await store.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("cuts a connection that never finishes its request, so shutdown is bounded", async () => {
    const dataDir = tempDir("analytics-shutdown-slow-");
    try {
      const server = await startServer(["--data-dir", dataDir]);
      const exited = new Promise<number | null>((resolve) => server.process.once("exit", resolve));
      const socket = net.connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.on("error", () => undefined);
      socket.write('POST /api/event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"page":');
      const cut = new Promise((resolve) => socket.once("close", resolve));
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.process.kill("SIGTERM");
      // The grace is 5 s; the headers' own timeout (73 s) would otherwise hold the shutdown.
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve("running"), 15_000)),
      ]);
      if (code === "running") server.process.kill("SIGKILL");
      assert.equal(code, 0, `the server stopped by itself:\n${server.output().slice(-2000)}`);
      await cut;
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
