// The /api/v1 scope: per-key rate limit, Bearer auth, the resource routes, and the scope's
// own 404/405 answers. Order of a request: rate limit -> auth -> body parse -> validation.

import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ApiKeyService } from "../accounts/api-key-service.js";
import type { UserService } from "../accounts/user-service.js";
import type { EventImporter } from "../ingest/event-importer.js";
import type { DroppedHitsService } from "../stats/dropped-hits.js";
import type { RealtimeService } from "../stats/realtime.js";
import type { StatsService } from "../stats/stats-service.js";
import type { TimeSeriesService } from "../stats/time-series.js";
import type { TotalsService } from "../stats/totals.js";
import type { WebsiteService } from "../websites/website-service.js";
import { authenticateHook, bearerToken } from "./authenticate.js";
import { eventRoutes } from "./event-routes.js";
import { jsonBodyError, sendError, sendMethodNotAllowed } from "./http-errors.js";
import { parseJsonBody } from "./json-body.js";
import { rejectLooseIntegers } from "./loose-integers.js";
import { checkQuery } from "./request-checks.js";
import { RouteTable } from "./route-table.js";
import { statsRoutes } from "./stats-routes.js";
import { summaryRoutes } from "./summary-routes.js";
import { userRoutes } from "./user-routes.js";
import { IdParams, parseId, websiteRoutes } from "./website-routes.js";

export interface ApiV1Options {
  users: UserService;
  /** Resolves the Bearer key of every request. */
  keys: ApiKeyService;
  websites: WebsiteService;
  importer: EventImporter;
  stats: StatsService;
  realtime: RealtimeService;
  series: TimeSeriesService;
  totals: TotalsService;
  dropped: DroppedHitsService;
  publicUrl: string | null;
  rateLimitPerMinute: number;
}

export async function apiV1(scope: FastifyInstance, options: ApiV1Options) {
  const routes = new RouteTable();
  scope.addHook("onRoute", (route) => routes.add(route.url, route.method));

  await scope.register(rateLimit, {
    global: false,
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
    errorResponseBuilder: () => ({ statusCode: 429, message: "Too Many Attempts." }),
  });
  scope.addHook("onRequest", scope.rateLimit());
  // The API reads forms and JSON alone (README's errors table: anything else is a 415).
  // Fastify also parses text/plain by default, into a string the schemas then refused as
  // "The body must be an object." (422); the collection endpoint keeps reading it, as
  // sendBeacon sends it, in its own scope (collect-routes.ts).
  scope.removeContentTypeParser("text/plain");
  // JSON as the framework reads it, but a poisoning key refused for what it is (json-body.ts).
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const parsed = parseJsonBody(body as string);
    if ("problem" in parsed) done(jsonBodyError(parsed.problem), undefined);
    else done(null, parsed.value);
  });
  const authenticate = authenticateHook(options.keys);
  scope.addHook("onRequest", async (request) => {
    if (!request.is404) await authenticate(request);
  });
  scope.addHook("preValidation", async (request) => {
    // A website id that cannot be one is a 404 before its query or body is checked: a
    // missing website is not a request to correct (`/stats/abc` answered 422, name required).
    if (request.routeOptions.schema?.params === IdParams) parseId((request.params as { id: string }).id);
    // A write without a body is an empty form: report the required fields, not "body must be object".
    if (request.body === undefined || request.body === null) request.body = {};
    rejectLooseIntegers(request.body, request.routeOptions.schema?.body);
    rejectLooseIntegers(request.query, request.routeOptions.schema?.querystring);
  });

  // A query's checks beyond its schema (request-checks.ts), before the handler.
  scope.addHook("preHandler", checkQuery);

  await scope.register(websiteRoutes, { websites: options.websites, publicUrl: options.publicUrl });
  await scope.register(eventRoutes, { importer: options.importer });
  await scope.register(statsRoutes, { stats: options.stats, publicUrl: options.publicUrl });
  await scope.register(summaryRoutes, {
    totals: options.totals,
    series: options.series,
    realtime: options.realtime,
    dropped: options.dropped,
  });
  await scope.register(userRoutes, { users: options.users, publicUrl: options.publicUrl });

  scope.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedMethods(request.url.split("?", 1)[0] ?? "");
    if (allowed.length === 0) return sendError(reply, "not_found");
    return sendMethodNotAllowed(reply, request.method, allowed);
  });
}

/** Limits are per API key; requests without one share a bucket per client address. */
function rateLimitKey(request: FastifyRequest): string {
  const token = bearerToken(request);
  return token ? `key:${createHash("sha256").update(token).digest("base64url")}` : `ip:${request.ip}`;
}
