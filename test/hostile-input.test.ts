// A table of hostile and odd inputs sent to every websites route: none may produce a 500,
// each gets the status the contract gives it, and the store stays consistent.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HOSTILE } from "./support/hostile-strings.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

interface Case {
  name: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  contentType?: string;
  payload?: string;
  expect: number;
}

const SQL = "x.example'; DROP TABLE websites; --";
const longText = "é".repeat(300_000);

function cases(id: number): Case[] {
  const form = "application/x-www-form-urlencoded";
  const json = "application/json";
  const list: Case[] = [
    {
      name: "array for a string field",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":["a.example","b.example"]}',
      expect: 422,
    },
    {
      name: "object for a string field",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":{"$ne":null}}',
      expect: 422,
    },
    {
      name: "number for the domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":12345}',
      expect: 422,
    },
    {
      name: "repeated form key",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain=a.example&domain=b.example",
      expect: 422,
    },
    {
      name: "bracketed form key",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain[]=a.example",
      expect: 422,
    },
    {
      name: "array body",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: "[1,2,3]",
      expect: 422,
    },
    {
      name: "string body",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '"domain"',
      expect: 422,
    },
    {
      name: "null body",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: "null",
      expect: 422,
    },
    {
      name: "deeply nested JSON",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: `${"[".repeat(5000)}${"]".repeat(5000)}`,
      expect: 422,
    },
    {
      name: "SQL in the domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=${encodeURIComponent(SQL)}`,
      expect: 422,
    },
    {
      name: "NUL in the domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain=a%00.example",
      expect: 422,
    },
    {
      name: "emoji domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=${encodeURIComponent("💩.example")}`,
      expect: 201,
    },
    {
      name: "right-to-left domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=${encodeURIComponent("مثال.إختبار")}`,
      expect: 201,
    },
    {
      name: "lone surrogate",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":"\\ud800.example"}',
      expect: 422,
    },
    {
      name: "invalid percent-encoding",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain=%E0%A4%A.example",
      expect: 422,
    },
    {
      name: "huge unicode field",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=${encodeURIComponent(longText)}`,
      expect: 413,
    },
    {
      name: "very long domain",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=${"a".repeat(100_000)}.example`,
      expect: 422,
    },
    {
      name: "SQL in exclude_ips",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: `domain=ok-sql.example&exclude_ips=${encodeURIComponent("1.1.1.1' OR '1'='1")}`,
      expect: 422,
    },
    {
      name: "huge privacy",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain=p.example&privacy=99999999999999999999999",
      expect: 422,
    },
    {
      name: "prototype key in form",
      method: "POST",
      url: "/api/v1/websites",
      contentType: form,
      payload: "domain=proto.example&__proto__=x&constructor=y",
      expect: 201,
    },
    {
      name: "SQL in search",
      method: "GET",
      url: `/api/v1/websites?search=${encodeURIComponent("' OR 1=1 --")}`,
      expect: 200,
    },
    {
      name: "unicode search",
      method: "GET",
      url: `/api/v1/websites?search=${encodeURIComponent("ünï😀")}`,
      expect: 200,
    },
    { name: "array per_page", method: "GET", url: "/api/v1/websites?per_page=10&per_page=25", expect: 422 },
    { name: "huge page", method: "GET", url: "/api/v1/websites?page=99999999999999999999", expect: 422 },
    { name: "page 1e3", method: "GET", url: "/api/v1/websites?page=1e3", expect: 422 },
    { name: "negative page", method: "GET", url: "/api/v1/websites?page=-1", expect: 422 },
    { name: "id 1e3", method: "GET", url: "/api/v1/websites/1e3", expect: 404 },
    { name: "id -1", method: "GET", url: "/api/v1/websites/-1", expect: 404 },
    {
      name: "id 9999999999999999999",
      method: "GET",
      url: "/api/v1/websites/9999999999999999999",
      expect: 404,
    },
    {
      name: "id with SQL",
      method: "GET",
      url: `/api/v1/websites/${encodeURIComponent("1 OR 1=1")}`,
      expect: 404,
    },
    // An id has one form: decimal digits without a leading zero (CONTRACT.md 3.3).
    ...(["GET", "PUT", "DELETE"] as const).flatMap((method) => [
      {
        name: `${method} id 00012 (leading zeros)`,
        method,
        url: `/api/v1/websites/${String(id).padStart(5, "0")}`,
        expect: 404,
      },
      { name: `${method} id 0${id}`, method, url: `/api/v1/websites/0${id}`, expect: 404 },
      { name: `${method} id %zz`, method, url: "/api/v1/websites/%zz", expect: 404 },
      { name: `${method} id %C3%28 (not UTF-8)`, method, url: "/api/v1/websites/%C3%28", expect: 404 },
    ]),
    {
      name: "stats of id 0N",
      method: "GET",
      url: `/api/v1/stats/0${id}?name=page&from=2026-01-01&to=2026-01-02`,
      expect: 404,
    },
    {
      name: "stats of id %zz",
      method: "GET",
      url: "/api/v1/stats/%zz?name=page&from=2026-01-01&to=2026-01-02",
      expect: 404,
    },
    // A one-element array is not its element.
    {
      name: "privacy [0]",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":"array-privacy.example","privacy":[0]}',
      expect: 422,
    },
    {
      name: "email [1]",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":"array-email.example","email":[1]}',
      expect: 422,
    },
    {
      name: "domain [one]",
      method: "POST",
      url: "/api/v1/websites",
      contentType: json,
      payload: '{"domain":["array-domain.example"]}',
      expect: 422,
    },
    {
      name: "PUT privacy [0]",
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      contentType: json,
      payload: '{"privacy":[0]}',
      expect: 422,
    },
    {
      name: "PUT exclude_ips [one]",
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      contentType: json,
      payload: '{"exclude_ips":["10.0.0.0/8"]}',
      expect: 422,
    },
    {
      name: "PUT with array value",
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      contentType: json,
      payload: '{"exclude_ips":["1.1.1.1","2.2.2.2"]}',
      expect: 422,
    },
    {
      name: "PUT with object value",
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      contentType: json,
      payload: '{"password":{"a":1}}',
      expect: 422,
    },
    {
      name: "PUT with unknown fields only",
      method: "PUT",
      url: `/api/v1/websites/${id}`,
      contentType: json,
      payload: '{"owner":1,"id":5,"user_id":2}',
      expect: 200,
    },
    { name: "DELETE id 1e3", method: "DELETE", url: "/api/v1/websites/1e3", expect: 404 },
  ];
  return list;
}

describe("hostile input", () => {
  let t: TestApp;
  let key: string;
  let id: number;
  before(async () => {
    t = await createTestApp();
    key = await t.createUser();
    id = (
      await t.call(key, { method: "POST", url: "/api/v1/websites", form: { domain: "target.example" } })
    ).json().data.id;
  });
  after(() => t.close());

  it("never answers 500 and gives each input its status", async () => {
    for (const c of cases(id)) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (c.contentType) headers["content-type"] = c.contentType;
      const response = await t.app.inject({
        method: c.method,
        url: c.url,
        headers,
        ...(c.payload === undefined ? {} : { payload: c.payload }),
      });
      assert.equal(response.statusCode, c.expect, `${c.name}: ${response.body.slice(0, 300)}`);
      const body = response.json();
      assert.equal(body.status, c.expect, c.name);
    }
  });

  it("stored what it accepted, as data, and nothing else", async () => {
    const listed = await t.call(key, { url: "/api/v1/websites?per_page=100&sort_by=domain&sort=asc" });
    const domains = listed.json().data.map((w: { domain: string }) => w.domain);
    assert.deepEqual(domains, [
      "proto.example",
      "target.example",
      "xn--ls8h.example",
      "xn--mgbh0fb.xn--kgbechtv",
    ]);
    const target = (await t.call(key, { url: `/api/v1/websites/${id}` })).json().data;
    assert.equal(target.privacy, 1);
    assert.equal(target.exclude_ips, null);
  });

  it("searches the websites for any text, finding only the domains that hold it", async () => {
    // A NUL once matched every website on SQLite (its LIKE stops at one) and failed on
    // PostgreSQL (500: text cannot hold one).
    const listed = await t.call(key, { url: "/api/v1/websites?per_page=100&sort_by=domain&sort=asc" });
    const all: string[] = listed.json().data.map((w: { domain: string }) => w.domain);
    assert.ok(all.includes("target.example"));
    for (const needle of [...HOSTILE, "target", "ARGET.EX", ".example"]) {
      const response = await t.call(key, {
        url: `/api/v1/websites?per_page=100&sort_by=domain&sort=asc&search=${encodeURIComponent(needle)}`,
      });
      assert.equal(
        response.statusCode,
        200,
        `${JSON.stringify(needle.slice(0, 40))}: ${response.body.slice(0, 300)}`,
      );
      const wanted = needle.trim().toLowerCase();
      assert.deepEqual(
        response.json().data.map((w: { domain: string }) => w.domain),
        wanted === "" ? all : all.filter((domain) => domain.includes(wanted)),
        JSON.stringify(needle.slice(0, 40)),
      );
    }
  });
});
