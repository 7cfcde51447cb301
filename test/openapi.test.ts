// The API documentation: a browsable page and an OpenAPI 3 document generated from the
// route schemas, covering every /api/v1 route with its parameters and responses.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestApp, type TestApp } from "./support/test-app.js";

interface Operation {
  parameters?: { name: string; in: string; schema: { enum?: unknown[] } }[];
  requestBody?: {
    content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }>;
  };
  responses: Record<string, unknown>;
  security?: unknown[];
}

describe("API documentation", () => {
  let t: TestApp;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>> };
  before(async () => {
    t = await createTestApp();
    doc = (await t.app.inject({ url: "/api/docs/json" })).json();
  });
  after(() => t.close());

  it("serves a browsable page", async () => {
    const page = await t.app.inject({ url: "/api/docs/" });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger-ui/i);
  });

  it("sends the page, its files and the document with a policy, never framed or sniffed", async () => {
    for (const url of [
      "/api/docs/",
      "/api/docs",
      "/api/docs/static/swagger-ui-bundle.js",
      "/api/docs/json",
    ]) {
      const response = await t.app.inject({ url });
      assert.ok(response.statusCode < 400, `${url}: ${response.statusCode}`);
      const csp = String(response.headers["content-security-policy"] ?? "");
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        assert.ok(csp.includes(directive), `${url}: CSP has ${directive}: ${csp}`);
      }
      assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), `${url}: ${csp}`);
      assert.equal(response.headers["x-frame-options"], "DENY", url);
      assert.equal(response.headers["x-content-type-options"], "nosniff", url);
    }
  });

  it("documents every API route, and only those", async () => {
    assert.match(doc.openapi, /^3\./);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(operations.sort(), [
      "DELETE /api/v1/websites/{id}",
      "GET /api/v1/stats/{id}",
      "GET /api/v1/stats/{id}/dropped",
      "GET /api/v1/stats/{id}/realtime",
      "GET /api/v1/stats/{id}/timeseries",
      "GET /api/v1/stats/{id}/totals",
      "GET /api/v1/users",
      "GET /api/v1/websites",
      "GET /api/v1/websites/{id}",
      "GET /js/script.js",
      "POST /api/event",
      "POST /api/v1/events",
      "POST /api/v1/users",
      "POST /api/v1/websites",
      "PUT /api/v1/websites/{id}",
    ]);
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith("/api/v1/")) continue;
      for (const [method, operation] of Object.entries(methods)) {
        assert.deepEqual(operation.security, [{ bearerAuth: [] }], `${method} ${path} says it needs a key`);
        assert.ok(operation.responses["401"], `${method} ${path} documents 401`);
      }
    }
  });

  it("shows the allowed values and the form body", async () => {
    const list = doc.paths["/api/v1/websites"]?.get;
    const perPage = list?.parameters?.find((p) => p.name === "per_page");
    assert.deepEqual(perPage?.schema.enum, [10, 25, 50, 100]);
    const create = doc.paths["/api/v1/websites"]?.post;
    const form = create?.requestBody?.content["application/x-www-form-urlencoded"]?.schema;
    assert.ok(form, "create documents its form body");
    assert.deepEqual(Object.keys(form.properties).sort(), [
      "domain",
      "email",
      "exclude_bots",
      "exclude_datacenters",
      "exclude_ips",
      "exclude_params",
      "password",
      "privacy",
      "timezone",
    ]);
    assert.deepEqual(form.required, ["domain"]);
  });

  it("documents the website resource as returned, with both forms of its domain", () => {
    const read = doc.paths["/api/v1/websites/{id}"]?.get?.responses["200"] as {
      content: Record<string, { schema: { properties: { data: WebsiteSchema } } }>;
    };
    const website = read.content["application/json"]?.schema.properties.data;
    assert.ok(website, "the read documents its website");
    assert.deepEqual(Object.keys(website.properties), [
      "id",
      "domain",
      "domain_unicode",
      "privacy",
      "password",
      "email",
      "exclude_bots",
      "exclude_datacenters",
      "exclude_params",
      "exclude_ips",
      "timezone",
      "created_at",
      "updated_at",
    ]);
    assert.ok(website.required.includes("domain_unicode"));
    assert.match(website.properties.domain_unicode?.description ?? "", /Unicode/);
  });
});

interface WebsiteSchema {
  properties: Record<string, { description?: string }>;
  required: string[];
}
