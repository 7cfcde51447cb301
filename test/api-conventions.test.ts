// The conventions of /api/v1 every route shares: Bearer auth, 401/404/405/400/413/415/429
// bodies, rate-limit headers, a real 500 and the health check (CONTRACT.md section 2).

import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { createTestApp, type TestApp } from "./support/test-app.js";

const UNAUTHENTICATED = { message: "Unauthenticated.", status: 401 };
const NOT_FOUND = { message: "Resource not found.", status: 404 };

describe("authentication", () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp();
    key = await t.createUser("auth@example.org");
  });
  after(() => t.close());

  it("answers 401 for a missing, malformed or unknown key on every route", async () => {
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
      { authorization: `Token ${key}` },
      { authorization: `Bearer ${key}x` },
      { authorization: `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}` }, // last character changed
      { authorization: "Bearer ak_0000000000000000AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      { authorization: "Bearer ' OR 1=1 --" },
    ];
    const routes = [
      { method: "GET" as const, url: "/api/v1/websites" },
      { method: "POST" as const, url: "/api/v1/websites" },
      { method: "GET" as const, url: "/api/v1/websites/1" },
      { method: "PUT" as const, url: "/api/v1/websites/1" },
      { method: "DELETE" as const, url: "/api/v1/websites/1" },
    ];
    for (const route of routes) {
      for (const header of headers) {
        const response = await t.app.inject({ ...route, headers: header ?? {} });
        assert.equal(response.statusCode, 401, `${route.method} ${route.url} ${JSON.stringify(header)}`);
        assert.deepEqual(response.json(), UNAUTHENTICATED);
      }
    }
  });

  it("accepts the key as a Bearer token, the scheme in any case", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const response = await t.app.inject({
        url: "/api/v1/websites",
        headers: { authorization: `${scheme} ${key}` },
      });
      assert.equal(response.statusCode, 200, scheme);
    }
  });

  it("never accepts a key in the URL", async () => {
    for (const name of ["api_key", "key", "token", "access_token"]) {
      const response = await t.app.inject({ url: `/api/v1/websites?${name}=${key}` });
      assert.equal(response.statusCode, 401, name);
    }
  });

  it("stops accepting a key as soon as it is rotated", async () => {
    const email = "rotate@example.org";
    const old = await t.createUser(email);
    assert.equal((await t.call(old, { url: "/api/v1/websites" })).statusCode, 200);
    const { apiKey } = await t.container.users.rotateKey(email);
    assert.equal((await t.call(old, { url: "/api/v1/websites" })).statusCode, 401);
    assert.equal((await t.call(apiKey, { url: "/api/v1/websites" })).statusCode, 200);
  });
});

describe("errors of the API scope", () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
  });
  after(() => t.close());

  it("answers 404 with the contract body for unknown paths, with or without a key", async () => {
    for (const url of [
      "/api/v1",
      "/api/v1/",
      "/api/v1/nope",
      "/api/v1/websites/1/extra",
      "/api/v2/websites",
    ]) {
      for (const k of [key, null]) {
        const response = await t.call(k, { url });
        assert.equal(response.statusCode, 404, url);
        assert.deepEqual(response.json(), NOT_FOUND);
      }
    }
  });

  it("answers a path whose escapes do not decode like any other unknown id: 404, rate-limit headers", async () => {
    const urls = [
      "/api/v1/websites/%zz",
      "/api/v1/websites/%C3%28",
      "/api/v1/websites/%",
      "/api/v1/stats/%zz?name=page&from=2026-01-01&to=2026-01-02",
    ];
    for (const url of urls) {
      for (const method of ["GET", "PUT", "DELETE"] as const) {
        if (url.startsWith("/api/v1/stats") && method !== "GET") continue;
        const response = await t.call(key, { method, url });
        assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
        assert.deepEqual(response.json(), NOT_FOUND);
        assert.ok(response.headers["x-ratelimit-limit"], `${method} ${url}: X-RateLimit-Limit`);
        assert.ok(response.headers["x-ratelimit-remaining"] !== undefined, `${method} ${url}`);
      }
    }
    const anonymous = await t.call(null, { url: "/api/v1/websites/%zz" });
    assert.equal(anonymous.statusCode, 401, "the key is checked first, as everywhere");
    assert.deepEqual(anonymous.json(), UNAUTHENTICATED);
    const unknown = await t.call(key, { url: "/api/v1/%zz" });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), NOT_FOUND);
    // An id that cannot be a website's is a 404 before the query or body is checked.
    for (const [method, url] of [
      ["GET", "/api/v1/stats/abc"],
      ["GET", "/api/v1/stats/01/totals"],
      ["GET", "/api/v1/stats/1e3/timeseries?interval=year"],
      ["PUT", "/api/v1/websites/abc"],
    ] as const) {
      const response = await t.call(key, { method, url });
      assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
  });

  it("answers 405 with Allow for a wrong method on a known path", async () => {
    const collection = await t.call(key, { method: "PATCH", url: "/api/v1/websites" });
    assert.equal(collection.statusCode, 405);
    assert.equal(collection.headers.allow, "GET, HEAD, POST");
    assert.equal(collection.json().status, 405);
    assert.match(collection.json().message, /PATCH method is not supported/);
    const item = await t.call(key, { method: "POST", url: "/api/v1/websites/12" });
    assert.equal(item.statusCode, 405);
    assert.equal(item.headers.allow, "DELETE, GET, HEAD, PUT");
    const withQuery = await t.call(key, { method: "DELETE", url: "/api/v1/websites?x=1" });
    assert.equal(withQuery.statusCode, 405);
    // A path with a trailing slash is served by no route: 404, not a 405 that allows the
    // very method used.
    for (const [method, url] of [
      ["GET", "/api/v1/websites/12/"],
      ["DELETE", "/api/v1/websites/12/"],
      ["GET", "/api/v1/stats/12/?name=page&from=2026-01-01&to=2026-01-02"],
      ["POST", "/api/v1/events/"],
    ] as const) {
      const slashed = await t.call(key, { method, url });
      assert.equal(slashed.statusCode, 404, `${method} ${url}: ${slashed.body}`);
      assert.deepEqual(slashed.json(), NOT_FOUND);
    }
  });

  it("answers a request the HTTP parser cannot read in the contract's shape (400, 431)", async () => {
    const base = new URL(await t.app.listen({ host: "127.0.0.1", port: 0 }));
    /** The raw answer to `request` sent as bytes on a fresh connection. */
    const raw = (request: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(base.port), base.hostname);
        const chunks: Buffer[] = [];
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.on("error", reject);
        socket.end(request);
      });
    const cases: [Buffer, number][] = [
      // A URL with a raw UTF-8 byte, as `curl -g '...?search=é'` sends it.
      [
        Buffer.concat([
          Buffer.from("GET /api/v1/websites?search="),
          Buffer.from("é"),
          Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ]),
        400,
      ],
      [Buffer.from(`GET /api/v1/websites?search=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431],
    ];
    for (const [request, status] of cases) {
      const answer = await raw(request);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), answer.slice(0, 200));
      assert.match(head, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      const parsed = JSON.parse(body) as { message: string; status: number };
      assert.equal(parsed.status, status);
      assert.deepEqual(Object.keys(parsed).sort(), ["message", "status"]);
      assert.ok(parsed.message.length > 20, parsed.message);
    }
  });

  it("answers 400 for a body that is not valid JSON", async () => {
    for (const payload of ['{"domain":', "{'domain': 1}", "\ufeff"]) {
      const response = await t.app.inject({
        method: "POST",
        url: "/api/v1/websites",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        payload,
      });
      assert.equal(response.statusCode, 400, payload);
      assert.equal(response.json().status, 400);
      assert.equal(typeof response.json().message, "string");
    }
  });

  /**
   * Every route that reads a body, with an administrator's key (so POST /api/v1/users reads
   * its body too) and a website of theirs to update.
   */
  const bodyRoutes = async (name: string) => {
    const admin = (await t.container.users.create({ email: `${name}-admin@example.org`, admin: true }))
      .apiKey;
    const made = await t.call(admin, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: `${name}.example` },
    });
    assert.equal(made.statusCode, 201, made.body);
    const id = made.json().data.id as number;
    const routes = [
      { method: "POST" as const, url: "/api/v1/websites" },
      { method: "PUT" as const, url: `/api/v1/websites/${id}` },
      { method: "POST" as const, url: "/api/v1/events" },
      { method: "POST" as const, url: "/api/v1/users" },
    ];
    return { admin, id, routes };
  };

  it("answers 400 naming the refused key for valid JSON with __proto__ or constructor.prototype", async () => {
    const { admin, id, routes } = await bodyRoutes("proto");
    const poisoned = [
      '{"__proto__":{"admin":1}}',
      '{"domain":"p.example","nested":[{"\\u005f_proto__":{}}]}',
      '{"constructor":{"prototype":{"admin":1}}}',
    ];
    for (const route of routes) {
      for (const payload of poisoned) {
        const response = await t.app.inject({
          ...route,
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          payload,
        });
        assert.deepEqual(
          response.json(),
          {
            message:
              "The body must not contain a __proto__ key, nor a constructor key holding a prototype key.",
            status: 400,
          },
          `${route.method} ${route.url} ${payload}`,
        );
        assert.equal(response.statusCode, 400);
      }
    }
    // A constructor key that holds no prototype is an ordinary unknown field.
    const plain = await t.call(admin, {
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      json: { constructor: "x", privacy: 0 },
    });
    assert.equal(plain.statusCode, 200, plain.body);
  });

  it("answers 415 for a body type it does not read", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/api/v1/websites",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/xml" },
      payload: "<domain>x.example</domain>",
    });
    assert.equal(response.statusCode, 415);
    assert.equal(response.json().status, 415);
  });

  it("answers 415 for plain text, or any type but form and JSON, on every route that takes a body", async () => {
    const { admin, routes } = await bodyRoutes("types");
    const bodies = [
      { type: "text/plain", payload: "domain=x.example" },
      { type: "text/plain; charset=utf-8", payload: '{"privacy":0}' },
      { type: "text/csv", payload: "domain\nx.example" },
      { type: "application/octet-stream", payload: '{"privacy":0}' },
    ];
    for (const route of routes) {
      for (const { type, payload } of bodies) {
        const response = await t.app.inject({
          ...route,
          headers: { authorization: `Bearer ${admin}`, "content-type": type },
          payload,
        });
        const what = `${route.method} ${route.url} ${type}`;
        assert.equal(response.statusCode, 415, `${what}: ${response.body}`);
        assert.equal(response.json().status, 415, what);
        assert.equal(typeof response.json().message, "string", what);
      }
    }
  });

  it("answers 413 for a huge body", async () => {
    const response = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "huge.example", exclude_params: "a".repeat(2 * 1024 * 1024) },
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(response.json(), { message: "The request body is too large.", status: 413 });
  });

  it("treats a write without a body as an empty form", async () => {
    const response = await t.call(key, { method: "POST", url: "/api/v1/websites" });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      message: { domain: ["The domain field is required."] },
      status: 422,
    });
  });

  it("answers a real failure with a bare 500 and says unhealthy", async () => {
    const broken = await createTestApp();
    const brokenKey = await broken.createUser();
    assert.deepEqual((await broken.app.inject({ url: "/healthz" })).json(), { status: "ok" });
    await broken.container.metadata.close();
    const response = await broken.call(brokenKey, { url: "/api/v1/websites" });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { message: "Server Error", status: 500 });
    const health = await broken.app.inject({ url: "/healthz" });
    assert.equal(health.statusCode, 503);
    assert.equal(health.json().status, "unavailable");
    await broken.app.close();
  });
});

describe("rate limit", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ ANALYTICS_API_RATE_LIMIT: "3" });
  });
  after(() => t.close());

  it("counts requests per key, sets X-RateLimit headers and answers 429 with Retry-After", async () => {
    const key = await t.createUser();
    const other = await t.createUser();
    for (const remaining of [2, 1, 0]) {
      const response = await t.call(key, { url: "/api/v1/websites" });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers["x-ratelimit-limit"], "3");
      assert.equal(response.headers["x-ratelimit-remaining"], String(remaining));
    }
    const limited = await t.call(key, { url: "/api/v1/websites" });
    assert.equal(limited.statusCode, 429);
    assert.deepEqual(limited.json(), { message: "Too Many Attempts.", status: 429 });
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    assert.equal(limited.headers["x-ratelimit-remaining"], "0");
    const fresh = await t.call(other, { url: "/api/v1/websites" });
    assert.equal(fresh.statusCode, 200, "another key has its own allowance");
    assert.equal(fresh.headers["x-ratelimit-remaining"], "2");
  });

  it("also counts and labels requests without a valid key", async () => {
    const first = await t.call(null, { url: "/api/v1/websites" });
    assert.equal(first.statusCode, 401);
    assert.equal(first.headers["x-ratelimit-limit"], "3");
  });
});
