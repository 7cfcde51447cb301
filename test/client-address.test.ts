// The client address behind proxies: the right-most X-Forwarded-For entry not added by a
// trusted proxy, never what the client wrote in front of it; junk entries are ignored. The
// rule alone, the framework's request.ip under it, and the real server, where the collection
// fast path, the framework's route, exclude_ips, the collection allowance and the stats
// page's attempt limiter must all see the same address.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import Fastify from "fastify";
import { ClientAddressRule } from "../src/client-address.js";
import { ManualClock } from "../src/clock.js";
import { loadConfig } from "../src/config.js";
import { createTestApp } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const LONG_JUNK = "9".repeat(8_000);

/** [ANALYTICS_TRUST_PROXY, socket address, X-Forwarded-For, the client address]. */
const CASES: [string, string, string | undefined, string][] = [
  ["0", "10.0.0.1", "203.0.113.5, 81.2.69.142", "10.0.0.1"],
  ["1", "10.0.0.1", undefined, "10.0.0.1"],
  ["1", "10.0.0.1", "81.2.69.142", "81.2.69.142"],
  ["1", "10.0.0.1", "203.0.113.5, 81.2.69.142", "81.2.69.142"],
  ["1", "10.0.0.1", "203.0.113.5,81.2.69.142 ,", "81.2.69.142"],
  ["1", "10.0.0.1", "not-an-ip, 81.2.69.142", "81.2.69.142"],
  ["1", "10.0.0.1", "2001:db8::7", "2001:db8::7"],
  ["1", "10.0.0.1", "not-an-ip", "10.0.0.1"],
  ["1", "10.0.0.1", "1.2.3.4:5678", "10.0.0.1"],
  ["1", "10.0.0.1", "[2001:db8::7]:443", "10.0.0.1"],
  ["1", "10.0.0.1", LONG_JUNK, "10.0.0.1"],
  ["1", "10.0.0.1", `203.0.113.5, ${LONG_JUNK}`, "10.0.0.1"],
  ["1", "10.0.0.1", " ", "10.0.0.1"],
  ["2", "10.0.0.1", "203.0.113.5, 81.2.69.142, 10.0.0.2", "81.2.69.142"],
  ["2", "10.0.0.1", "81.2.69.142, 10.0.0.2", "81.2.69.142"],
  ["2", "10.0.0.1", "81.2.69.142", "81.2.69.142"],
  ["2", "10.0.0.1", "81.2.69.142, junk", "10.0.0.1"],
  ["10.0.0.0/8", "10.0.0.1", "203.0.113.5, 81.2.69.142, 10.0.0.2", "81.2.69.142"],
  ["10.0.0.0/8", "198.51.100.1", "203.0.113.5, 81.2.69.142", "198.51.100.1"],
  ["10.0.0.0/8", "10.0.0.1", "203.0.113.5, junk, 10.0.0.2", "10.0.0.1"],
  ["loopback", "::ffff:127.0.0.1", "203.0.113.5, 81.2.69.142", "81.2.69.142"],
  ["loopback,2001:db8::/32", "::1", "81.2.69.142, 2001:db8::9", "81.2.69.142"],
];

function ruleOf(setting: string): ClientAddressRule {
  return new ClientAddressRule(loadConfig({ ANALYTICS_TRUST_PROXY: setting }).trustProxy);
}

describe("the client address rule", () => {
  it("takes the right-most entry not added by a trusted proxy, and ignores junk", () => {
    for (const [setting, socket, forwarded, expected] of CASES) {
      const shown = `${setting} ${socket} ${forwarded?.slice(0, 40)}`;
      assert.equal(ruleOf(setting).resolve(socket, forwarded), expected, shown);
    }
  });

  it("is what the framework gives as request.ip, configured as the server configures it", async () => {
    for (const setting of new Set(CASES.map(([setting]) => setting))) {
      const rule = ruleOf(setting);
      const app = Fastify({ trustProxy: rule.trusts ?? false });
      app.addHook("onRequest", (request, _reply, done) => {
        rule.prepare(request.raw);
        done();
      });
      app.get("/", async (request) => ({ ip: request.ip }));
      for (const [caseSetting, socket, forwarded, expected] of CASES) {
        if (caseSetting !== setting) continue;
        const response = await app.inject({
          url: "/",
          remoteAddress: socket,
          headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
        });
        assert.equal(response.json().ip, expected, `${setting} ${socket} ${forwarded?.slice(0, 40)}`);
      }
      await app.close();
    }
  });

  it("refuses settings that name no proxy", () => {
    for (const bad of ["maybe", "17", "10.0.0.0/33", "10.0.0.1:80", "proxy.example"]) {
      assert.throws(() => loadConfig({ ANALYTICS_TRUST_PROXY: bad }), /ANALYTICS_TRUST_PROXY/, bad);
    }
    assert.deepEqual(loadConfig({ ANALYTICS_TRUST_PROXY: "true" }).trustProxy, { kind: "hops", hops: 1 });
    assert.deepEqual(loadConfig({ ANALYTICS_TRUST_PROXY: "uniquelocal" }).trustProxy, {
      kind: "addresses",
      addresses: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
    });
  });
});

/** A server listening on 127.0.0.1 (the "proxy" of these tests), with websites to observe the address by. */
async function proxiedServer(trust: string, env: Record<string, string> = {}) {
  const clock = new ManualClock("2026-05-04T10:00:00Z");
  const t = await createTestApp({ ANALYTICS_TRUST_PROXY: trust, ...env }, clock);
  const key = await t.createUser();
  const sites: Record<string, string>[] = [
    { domain: "watched.example", exclude_ips: "203.0.113.7" },
    { domain: "socket.example", exclude_ips: "127.0.0.1\n::ffff:127.0.0.1" },
    { domain: "open.example" },
    { domain: "vault.example", privacy: "2", password: "right one" },
  ];
  for (const form of sites) {
    const created = await t.call(key, { method: "POST", url: "/api/v1/websites", form });
    assert.equal(created.statusCode, 201, created.body);
  }
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

  /** The drop reasons of one hit sent through the fast path and one through the framework's route. */
  async function hit(site: string, forwarded: string | undefined): Promise<(string | null)[]> {
    const headers: Record<string, string> = { "content-type": "text/plain", "user-agent": CHROME };
    if (forwarded !== undefined) headers["x-forwarded-for"] = forwarded;
    const body = JSON.stringify({ page: `https://${site}/` });
    const drops: (string | null)[] = [];
    for (const path of ["/api/event", "/api/event?through=framework"]) {
      const answer = await fetch(`${base}${path}`, { method: "POST", headers, body });
      assert.equal(answer.status, 202);
      drops.push(answer.headers.get("x-analytics-dropped"));
    }
    return drops;
  }

  /** A password sent to vault.example's form over real HTTP. */
  async function guess(password: string, forwarded: string): Promise<number> {
    const response = await fetch(`${base}/vault.example`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forwarded },
      body: new URLSearchParams({ password }).toString(),
    });
    await response.arrayBuffer();
    return response.status;
  }

  return { t, clock, hit, guess };
}

describe("behind one proxy (ANALYTICS_TRUST_PROXY=1)", () => {
  let server: Awaited<ReturnType<typeof proxiedServer>>;
  before(async () => {
    server = await proxiedServer("1", { ANALYTICS_COLLECT_RATE_LIMIT: "5" });
  });
  after(() => server?.t.close());

  it("takes the address the proxy added, whatever the client wrote before it, on both paths", async () => {
    assert.deepEqual(await server.hit("watched.example", "198.51.100.1, 203.0.113.7"), [
      "excluded_ip",
      "excluded_ip",
    ]);
    assert.deepEqual(await server.hit("watched.example", "203.0.113.7, 198.51.100.2"), [null, null]);
    assert.deepEqual(await server.hit("watched.example", "203.0.113.7"), ["excluded_ip", "excluded_ip"]);
  });

  it("ignores entries that are not IP addresses: the address is then the socket's", async () => {
    for (const junk of ["not-an-ip", "1.2.3.4:5678", LONG_JUNK, "198.51.100.3, junk"]) {
      server.clock.advance(60_000); // a fresh minute: all of these count on one address (see below)
      assert.deepEqual(
        await server.hit("socket.example", junk),
        ["excluded_ip", "excluded_ip"],
        junk.slice(0, 30),
      );
    }
    assert.deepEqual(await server.hit("socket.example", "81.2.69.142"), [null, null]);
  });

  it("gives a client the collection allowance of its own address, however it spoofs", async () => {
    server.clock.advance(60_000); // a fresh minute: the tests above counted hits too
    const drops: (string | null)[] = [];
    for (let i = 0; i < 3; i++)
      drops.push(...(await server.hit("open.example", `198.51.100.${i}, 81.2.69.7`)));
    assert.deepEqual(drops, [null, null, null, null, null, "rate_limited"]);
    server.clock.advance(60_000);
    const junk: (string | null)[] = [];
    for (const entry of ["a", "b", "c"])
      junk.push(...(await server.hit("open.example", `not-an-ip-${entry}`)));
    assert.deepEqual(
      junk,
      [null, null, null, null, null, "rate_limited"],
      "junk counts on the socket's address",
    );
  });

  it("limits password guesses per real address, and a spoofed entry locks no one else out", async () => {
    for (let i = 0; i < 10; i++)
      assert.equal(await server.guess(`guess ${i}`, `203.0.113.${i}, 198.51.100.9`), 401);
    assert.equal(
      await server.guess("right one", "203.0.113.99, 198.51.100.9"),
      429,
      "still the same address",
    );
    // Ten guesses that name the owner's address first, sent from elsewhere...
    for (let i = 0; i < 10; i++)
      assert.equal(await server.guess(`guess ${i}`, "203.0.113.7, 198.51.100.10"), 401);
    // ...lock the sender out, not the owner.
    assert.equal(await server.guess("right one", "203.0.113.7"), 303);
    assert.equal(await server.guess("right one", "203.0.113.7, 198.51.100.10"), 429);
  });
});

describe("behind two proxies (ANALYTICS_TRUST_PROXY=2)", () => {
  let server: Awaited<ReturnType<typeof proxiedServer>>;
  before(async () => {
    server = await proxiedServer("2");
  });
  after(() => server?.t.close());

  it("takes the entry the farther proxy added, on both paths and for the attempt limiter", async () => {
    assert.deepEqual(await server.hit("watched.example", "198.51.100.1, 203.0.113.7, 10.0.0.2"), [
      "excluded_ip",
      "excluded_ip",
    ]);
    assert.deepEqual(await server.hit("watched.example", "203.0.113.7, 198.51.100.1, 10.0.0.2"), [
      null,
      null,
    ]);
    for (let i = 0; i < 10; i++)
      assert.equal(await server.guess("wrong", `192.0.2.${i}, 81.2.69.142, 10.0.0.2`), 401);
    assert.equal(await server.guess("right one", "192.0.2.200, 81.2.69.142, 10.0.0.3"), 429);
    assert.equal(await server.guess("right one", "81.2.69.142, 81.2.69.143, 10.0.0.2"), 303);
  });
});

describe("trusting proxies by address", () => {
  it("believes X-Forwarded-For only from a listed proxy", async () => {
    const listed = await proxiedServer("127.0.0.0/8,::1");
    try {
      assert.deepEqual(await listed.hit("watched.example", "198.51.100.1, 203.0.113.7"), [
        "excluded_ip",
        "excluded_ip",
      ]);
    } finally {
      await listed.t.close();
    }
    const unlisted = await proxiedServer("10.0.0.0/8");
    try {
      assert.deepEqual(await unlisted.hit("watched.example", "203.0.113.7"), [null, null]);
      assert.deepEqual(await unlisted.hit("socket.example", "203.0.113.7"), ["excluded_ip", "excluded_ip"]);
    } finally {
      await unlisted.t.close();
    }
  });
});
