// Hostile paths on the stats pages, over a real socket: a path segment that decodes to CR/LF,
// `;`, `,`, spaces, NUL or non-ASCII text never reaches a response header (no injected
// header, no cookie attribute of the client's choosing, no redirect elsewhere) and never
// makes a 500, on GET and on every kind of POST.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { headerValues, type RawResponse, rawRequest } from "./support/raw-http.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

/** Raw request-target paths (as they appear on the request line). */
const HOSTILE_PATHS: (string | Buffer)[] = [
  "/x%0d%0aX-Injected:%201.test",
  "/a.test%3B%20Domain%3Dexample.org%3B%20Path%3D%2F",
  "/a.test%0d%0aX-Injected:%201",
  "/%0aX-Injected:%201.test",
  "/a.test%2C%20b.test",
  "/a.test%2CDomain%3Dexample.org",
  "/a%20b.test",
  "/a.test%20%3B%20Secure",
  "/a.test%00",
  "/caf%C3%A9.test%3B%20Domain%3Dexample.org",
  "/%E2%80%AE.test",
  "/caf%C3%A9.test", // an internationalised name: redirected to its punycode form
  "/WWW.A.test%0d%0a", // no domain (a line break), though a.test once it is trimmed
  "/%zz.test",
  "/%C3%28.test",
  // Raw bytes outside ASCII: the HTTP parser refuses them before any route.
  Buffer.from("/café.test;Domain=example.org", "utf8"),
  Buffer.from("/www.a.test?x=\u00e9", "latin1"),
];

const BODIES = ["sign_out=1", "password=guess", "key=ak_0000000000000000", ""];

describe("stats pages under hostile paths", () => {
  let t: TestApp;
  let port = 0;

  before(async () => {
    t = await createTestApp();
    const key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "a.test", privacy: "2", password: "right one" },
    });
    assert.equal(created.statusCode, 201, created.body);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });

  after(async () => {
    await t?.close();
  });

  function send(method: "GET" | "POST", path: string | Buffer, body = ""): Promise<RawResponse> {
    const head = `${method} ${typeof path === "string" ? path : ""}`;
    const rest =
      ` HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n` +
      (method === "POST"
        ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
        : "") +
      `\r\n${body}`;
    const bytes =
      typeof path === "string"
        ? Buffer.from(`${head}${rest}`, "latin1")
        : Buffer.concat([Buffer.from(`${method} `), path, Buffer.from(rest, "latin1")]);
    return rawRequest(port, bytes);
  }

  /** Everything a hostile path must never get: a 500, an injected header, a cookie or redirect it shaped. */
  function assertContained(response: RawResponse, what: string): void {
    assert.ok(response.status > 0 && response.status < 500, `${what}: status ${response.status}`);
    assert.deepEqual(headerValues(response, "x-injected"), [], `${what}: no injected header`);
    for (const cookie of headerValues(response, "set-cookie")) {
      const attributes = cookie.split(";").map((part) => part.trim());
      assert.ok(!attributes.some((a) => /^domain=/i.test(a)), `${what}: no Domain attribute: ${cookie}`);
      const paths = attributes.filter((a) => /^path=/i.test(a));
      assert.equal(paths.length, 1, `${what}: one Path: ${cookie}`);
      assert.match(paths[0] ?? "", /^Path=\/[A-Za-z0-9._~%-]+$/, `${what}: ${cookie}`);
    }
    for (const location of headerValues(response, "location")) {
      assert.match(
        location,
        /^\/[A-Za-z0-9._~%-]+(\?[\x21-\x7e\x80-\xff]*)?$/,
        `${what}: Location ${location}`,
      );
    }
    if (response.status === 404 || response.status === 401) {
      const type = headerValues(response, "content-type")[0] ?? "";
      assert.match(
        type,
        /^text\/html/,
        `${what}: the pages' own answer, not a framework error: ${response.body}`,
      );
    }
  }

  it("answers the two reported requests with the not-found page, no header of theirs", async () => {
    const signOut = await send("POST", "/x%0d%0aX-Injected:%201.test", "sign_out=1");
    assert.equal(signOut.status, 404, signOut.body);
    assert.deepEqual(headerValues(signOut, "x-injected"), []);
    assert.match(signOut.body, /Page not found/);

    const cookieAttributes = "/a.test%3B%20Domain%3Dexample.org%3B%20Path%3D%2F";
    for (const body of ["sign_out=1", "password=right%20one"]) {
      const response = await send("POST", cookieAttributes, body);
      assert.equal(response.status, 404, body);
      assert.deepEqual(
        headerValues(response, "set-cookie"),
        [],
        `${body}: no cookie for a path that is no domain`,
      );
    }
    const get = await send("GET", cookieAttributes);
    assert.equal(get.status, 404);
    assert.deepEqual(headerValues(get, "set-cookie"), []);
  });

  it("gives the not-found page, never a redirect, to a domain with a space, line break or slash", async () => {
    // Each of these once came back to a.test (trimmed, or stripped as a typed domain is):
    // 301 on GET, and a post signed out of a.test with a 303. Only `www.`, capitals and an
    // internationalised name are taken for a website's domain written otherwise.
    const paths = [
      "/a.test%0a",
      "/a.test%20",
      "/a.test%0d%0a",
      "/a.test%09",
      "/%20a.test",
      "/a.test%C2%A0",
      "/a.test%E2%80%A8",
      "/a.test%2F",
      "/http:%2F%2Fa.test",
      "/https%3A%2F%2Fwww.a.test",
    ];
    for (const path of paths) {
      const get = await send("GET", path);
      assert.equal(get.status, 404, `GET ${path}`);
      assert.match(get.body, /Page not found/, `GET ${path}`);
      assert.deepEqual(headerValues(get, "location"), [], `GET ${path}`);
      for (const body of BODIES) {
        const post = await send("POST", path, body);
        assert.equal(post.status, 404, `POST ${path} ${body}`);
        assert.deepEqual(headerValues(post, "location"), [], `POST ${path} ${body}`);
        assert.deepEqual(headerValues(post, "set-cookie"), [], `POST ${path} ${body}`);
      }
    }
    for (const path of ["/A.test", "/www.a.test", "/WWW.A.TEST"]) {
      const get = await send("GET", path);
      assert.equal(get.status, 301, `GET ${path}`);
      assert.deepEqual(headerValues(get, "location"), ["/a.test"], `GET ${path}`);
    }
  });

  it("contains every hostile path on GET and on every POST; the real page keeps its own path", async () => {
    for (const path of HOSTILE_PATHS) {
      const shown = typeof path === "string" ? path : JSON.stringify(path.toString("latin1"));
      assertContained(await send("GET", path), `GET ${shown}`);
      for (const body of BODIES) assertContained(await send("POST", path, body), `POST ${shown} ${body}`);
    }
    const signIn = await send("POST", "/a.test", "password=right%20one");
    assert.equal(signIn.status, 303);
    const [cookie = ""] = headerValues(signIn, "set-cookie");
    assert.match(cookie, /; Path=\/a\.test;/);
    const signOut = await send("POST", "/a.test", "sign_out=1");
    assert.equal(signOut.status, 303);
    assert.deepEqual(headerValues(signOut, "location"), ["/a.test"]);
    assert.match(headerValues(signOut, "set-cookie")[0] ?? "", /; Path=\/a\.test; Max-Age=0;/);
  });
});
