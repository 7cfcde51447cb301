// The website list: search, sort, per_page, page, and the data/links/meta shape
// (CONTRACT.md section 3.4).

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { rawRequest } from "./support/raw-http.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

describe("website list", () => {
  let t: TestApp;
  let key: string;
  const domains = Array.from({ length: 25 }, (_, i) => `site${String(i + 1).padStart(2, "0")}.example`);

  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
    for (const domain of domains) {
      const response = await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain } });
      assert.equal(response.statusCode, 201);
    }
    for (const domain of ["percent.example", "under-score.example", "three.example"]) {
      const response = await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain } });
      assert.equal(response.statusCode, 201);
    }
  });
  after(() => t.close());

  const list = async (query: string) => {
    const response = await t.call(key, { url: `/api/v1/websites${query}` });
    return { status: response.statusCode, body: response.json() };
  };

  it("defaults to newest first, 10 per page, with links and meta", async () => {
    const { status, body } = await list("?search=site");
    assert.equal(status, 200);
    assert.equal(body.status, 200);
    assert.deepEqual(
      body.data.map((w: { domain: string }) => w.domain),
      domains.slice(15).reverse(),
    );
    assert.deepEqual(body.meta, {
      current_page: 1,
      from: 1,
      last_page: 3,
      path: "http://localhost:80/api/v1/websites",
      per_page: 10,
      to: 10,
      total: 25,
    });
    assert.deepEqual(body.links, {
      first: "http://localhost:80/api/v1/websites?search=site&page=1",
      last: "http://localhost:80/api/v1/websites?search=site&page=3",
      prev: null,
      next: "http://localhost:80/api/v1/websites?search=site&page=2",
    });
  });

  it("pages through the list and keeps the query in the links", async () => {
    const { body } = await list("?search=site&sort_by=domain&sort=asc&per_page=10&page=3");
    assert.deepEqual(
      body.data.map((w: { domain: string }) => w.domain),
      domains.slice(20),
    );
    assert.equal(body.meta.from, 21);
    assert.equal(body.meta.to, 25);
    assert.equal(
      body.links.prev,
      "http://localhost:80/api/v1/websites?search=site&sort_by=domain&sort=asc&per_page=10&page=2",
    );
    assert.equal(body.links.next, null);
  });

  it("gives an empty page past the end", async () => {
    const { status, body } = await list("?search=site&page=9");
    assert.equal(status, 200);
    assert.deepEqual(body.data, []);
    assert.equal(body.meta.from, null);
    assert.equal(body.meta.to, null);
    assert.equal(body.meta.last_page, 3);
    assert.equal(body.meta.current_page, 9);
  });

  it("sorts by domain either way and by creation either way", async () => {
    const byDomain = await list("?search=site&sort_by=domain&sort=asc&per_page=25");
    assert.deepEqual(
      byDomain.body.data.map((w: { domain: string }) => w.domain),
      domains,
    );
    const byDomainDesc = await list("?search=site&sort_by=domain&sort=desc&per_page=25");
    assert.deepEqual(
      byDomainDesc.body.data.map((w: { domain: string }) => w.domain),
      [...domains].reverse(),
    );
    const oldest = await list("?search=site&sort_by=id&sort=asc&per_page=25");
    const ids = oldest.body.data.map((w: { id: number }) => w.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    assert.deepEqual(
      oldest.body.data.map((w: { domain: string }) => w.domain),
      domains,
    );
  });

  it("honours every allowed per_page", async () => {
    for (const perPage of [10, 25, 50, 100]) {
      const { body } = await list(`?per_page=${perPage}`);
      assert.equal(body.meta.per_page, perPage);
      assert.equal(body.data.length, Math.min(perPage, 28));
    }
  });

  it("searches case-insensitively with % and _ taken literally", async () => {
    assert.deepEqual(
      (await list("?search=SITE0")).body.data.map((w: { domain: string }) => w.domain).sort(),
      domains.slice(0, 9),
    );
    assert.deepEqual(
      (await list("?search=%25")).body.data.map((w: { domain: string }) => w.domain),
      [],
      "% matches only a literal %, and no domain has one",
    );
    assert.deepEqual(
      (await list("?search=_")).body.data.map((w: { domain: string }) => w.domain),
      [],
      "_ matches only a literal _",
    );
    assert.deepEqual(
      (await list("?search=R-S")).body.data.map((w: { domain: string }) => w.domain),
      ["under-score.example"],
    );
    assert.equal((await list("?search=site&search_by=domain")).body.meta.total, 25);
  });

  it("rejects parameters outside their allowed values, naming them", async () => {
    const { status, body } = await list("?per_page=20&sort=up&sort_by=name&search_by=id&page=0");
    assert.equal(status, 422);
    assert.deepEqual(body, {
      message: {
        search_by: ["The search by must be one of: domain."],
        sort_by: ["The sort by must be one of: id, domain."],
        sort: ["The sort must be one of: desc, asc."],
        per_page: ["The per page must be one of: 10, 25, 50, 100."],
        page: ["The page must be at least 1."],
      },
      status: 422,
    });
    assert.equal((await list("?page=abc")).status, 422);
    assert.equal((await list("?page=1.5")).status, 422);
  });

  it("uses ANALYTICS_PUBLIC_URL for links when set", async () => {
    const other = await createTestApp({ ANALYTICS_PUBLIC_URL: "https://stats.example.org/" });
    try {
      const otherKey = await other.createUser();
      const response = await other.call(otherKey, { url: "/api/v1/websites?per_page=25" });
      assert.equal(response.json().meta.path, "https://stats.example.org/api/v1/websites");
      assert.equal(
        response.json().links.first,
        "https://stats.example.org/api/v1/websites?per_page=25&page=1",
      );
      assert.equal(response.json().meta.last_page, 1);
    } finally {
      await other.close();
    }
  });
});

describe("website list links without ANALYTICS_PUBLIC_URL", () => {
  let t: TestApp;
  let key: string;
  let port = 0;
  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  /** The list's meta.path when the client sends this Host header (over a real socket). */
  async function pathFor(host: string): Promise<string> {
    const response = await rawRequest(
      port,
      Buffer.from(
        `GET /api/v1/websites?per_page=10 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
        "latin1",
      ),
    );
    assert.equal(response.status, 200, `${host}: ${response.body}`);
    const body = JSON.parse(response.body);
    for (const link of [body.links.first, body.links.last]) assert.ok(link.startsWith(body.meta.path), link);
    return body.meta.path;
  }

  it("takes a host name or an IP address with a port from the Host header, else the server's own address", async () => {
    for (const host of [
      "stats.example.org",
      "stats.example.org:8443",
      "192.0.2.7:8000",
      "[2001:db8::1]:8000",
      "localhost",
    ]) {
      assert.equal(await pathFor(host), `http://${host}/api/v1/websites`);
    }
    const own = `http://127.0.0.1:${port}/api/v1/websites`;
    for (const host of [
      'evil.example"<>',
      "evil.example/<script>",
      "user@evil.example",
      "evil.example:99999",
      "evil..example",
      "[not-ipv6]:80",
      "evil.example:80:80",
      "ev\u00efl.example",
      "",
    ]) {
      assert.equal(await pathFor(host), own, JSON.stringify(host));
    }
  });
});

describe("website list search of internationalised domains", () => {
  let t: TestApp;
  let key: string;

  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
    for (const domain of ["münchen.de", "bücher.example", "muenchen.example", "xn--zz.example"]) {
      const response = await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain } });
      assert.equal(response.statusCode, 201, response.body);
    }
    const other = await t.createUser();
    const theirs = await t.call(other, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "münchen.at" },
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
  });
  after(() => t.close());

  const found = async (search: string) => {
    const response = await t.call(key, {
      url: `/api/v1/websites?sort_by=domain&sort=asc&search=${encodeURIComponent(search)}`,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.meta.total, body.data.length);
    return body.data.map((w: { domain_unicode: string }) => w.domain_unicode);
  };

  it("matches a substring of the Unicode form, case-insensitively", async () => {
    assert.deepEqual(await found("münchen"), ["münchen.de"]);
    assert.deepEqual(await found("MÜNCHEN"), ["münchen.de"]);
    assert.deepEqual(await found("u\u0308nch"), ["münchen.de"], "a decomposed ü is the same letter");
    assert.deepEqual(await found("ü"), ["bücher.example", "münchen.de"], "sorted by the ASCII form");
  });

  it("matches a substring of the ASCII form", async () => {
    assert.deepEqual(await found("xn--mnchen"), ["münchen.de"]);
    assert.deepEqual(await found("MNCHEN-3YA"), ["münchen.de"]);
    assert.deepEqual(await found("muenchen"), ["muenchen.example"]);
    assert.deepEqual(await found("xn--zz"), ["xn--zz.example"], "an xn-- label that is not punycode");
  });

  it("keeps % and _ literal in either form", async () => {
    assert.deepEqual(await found("m_nchen"), []);
    assert.deepEqual(await found("m%nchen"), []);
    assert.deepEqual(await found("b%cher"), []);
  });
});
