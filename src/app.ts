// Builds the Fastify application from a container: body parsers, OpenAPI document and
// docs page, health check, error handling and the /api/v1 scope. Never listens.

import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import { AJV_OPTIONS } from "./api/ajv-options.js";
import { apiDocs } from "./api/api-docs.js";
import { apiV1 } from "./api/api-v1.js";
import { answerClientError } from "./api/client-errors.js";
import { errorHandler, sendError } from "./api/http-errors.js";
import { ClientAddressRule } from "./client-address.js";
import { collectRoutes } from "./collect/collect-routes.js";
import { fastCollect } from "./collect/fast-collect.js";
import { loadTrackerAsset } from "./collect/tracker-asset.js";
import type { Container } from "./container.js";
import { StoreUnavailableError } from "./errors.js";
import { createHttpServer } from "./http-server.js";
import { loadPageAssets } from "./pages/page-assets.js";
import { pageRoutes } from "./pages/page-routes.js";
import { rewriteUndecodablePath } from "./url-rewrite.js";
import { webApp } from "./web/web-app.js";

export interface AppOptions {
  logger?: FastifyServerOptions["logger"];
}

export const API_BODY_LIMIT = 1024 * 1024;
/**
 * Once the app starts closing, how long connections may stay open before they are cut: a
 * tracker posting back to back on a keep-alive connection, or a client that never finishes
 * its request, must not hold a shutdown up (a supervisor's SIGKILL, usually 10-30 s after
 * SIGTERM, would lose the buffered hits). Every answer given meanwhile says
 * `Connection: close`, so a busy connection ends after its next request.
 */
export const CLOSE_GRACE_MS = 5_000;

export async function buildApp(container: Container, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = container;
  const clients = new ClientAddressRule(config.trustProxy);
  let app: FastifyInstance;
  let closing = false;
  const fast = fastCollect(
    container.collect,
    clients,
    (error) => app.log.error({ err: error }, "request failed"),
    () => closing,
  );
  app = Fastify({
    logger: options.logger ?? false,
    // POST /api/event is answered straight from the server's listener (see fast-collect.ts).
    // Fastify sets its timeouts only on servers it creates: http-server.ts sets them here.
    serverFactory: (handler) =>
      createHttpServer(
        (request, response) => {
          if (!fast(request, response)) handler(request, response);
        },
        config,
        ({ refused, addresses }) =>
          app.log.warn(
            { refused, addresses, limit: config.maxConnectionsPerClient },
            "closed new connections of clients over ANALYTICS_MAX_CONNECTIONS_PER_CLIENT",
          ),
      ),
    // The same trust as the fast path's, so request.ip (and request.protocol and host, from
    // X-Forwarded-Proto and -Host) follow one rule; see the onRequest hook below.
    trustProxy: clients.trusts ?? false,
    bodyLimit: API_BODY_LIMIT,
    // While closing: idle connections are closed at once, a request that arrives on a busy
    // one gets a 503 with Connection: close (the fast path takes the hit and closes instead).
    return503OnClosing: true,
    forceCloseConnections: "idle",
    // One log line per request would drown the logs of a collection endpoint.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: AJV_OPTIONS,
    // A stats page's path is its domain, up to 253 characters (more before it redirects to
    // the canonical form); the router's default of 100 answered longer ones with 414.
    routerOptions: { maxParamLength: 1024 },
    rewriteUrl: (request) => rewriteUndecodablePath(request.url ?? "/"),
    clientErrorHandler: answerClientError,
  });

  app.addHook("preClose", (done) => {
    closing = true;
    const cut = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
    cut.unref();
    app.server.once("close", () => clearTimeout(cut));
    done();
  });
  app.decorateRequest("user", null);
  // Where X-Forwarded-For holds junk the framework would take as the address itself.
  if (clients.trusts) {
    app.addHook("onRequest", (request, _reply, done) => {
      clients.prepare(request.raw);
      done();
    });
  }
  app.setErrorHandler(errorHandler(container.storeFailures));
  app.setNotFoundHandler((_request, reply) => sendError(reply, "not_found"));
  await app.register(formbody);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Analytics API",
        version: "1",
        description:
          "Manage tracked websites and read their statistics. Every call needs `Authorization: Bearer <API key>`.",
      },
      components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } },
    },
  });
  await app.register(apiDocs);

  app.get("/healthz", { schema: { hide: true } }, async (_request, reply) => {
    try {
      await container.checkHealth();
      return { status: "ok" };
    } catch (error) {
      // A store that cannot answer is told as the requests it refuses are (once, then once a
      // minute): a monitor probes every few seconds for as long as it lasts.
      if (error instanceof StoreUnavailableError) container.storeFailures.refused(error);
      else app.log.error({ err: error }, "health check failed");
      return reply.code(503).send({ status: "unavailable" });
    }
  });

  await app.register(collectRoutes, {
    endpoint: container.collect,
    tracker: loadTrackerAsset(),
    storeFailures: container.storeFailures,
  });
  await app.register(apiV1, {
    prefix: "/api/v1",
    users: container.users,
    keys: container.keys,
    websites: container.websites,
    importer: container.importer,
    stats: container.stats,
    realtime: container.realtime,
    series: container.series,
    totals: container.totals,
    dropped: container.dropped,
    publicUrl: config.publicUrl,
    rateLimitPerMinute: config.apiRateLimit,
  });
  const assets = loadPageAssets();
  await app.register(webApp, {
    owners: container.owners,
    keys: container.keys,
    users: container.users,
    passwords: container.passwords,
    websites: container.websites,
    realtime: container.realtime,
    stats: container.stats,
    totals: container.totals,
    dropped: container.dropped,
    clock: container.clock,
    stylesheet: assets.stylesheet.path,
    geo: config.geoipDb ? "maxmind" : "dbip",
    publicUrl: config.publicUrl,
    storeFailures: container.storeFailures,
  });
  // Registered last and matching only paths with a dot, so /{domain} shadows no route above.
  await app.register(pageRoutes, {
    access: container.pageAccess,
    stats: container.stats,
    totals: container.totals,
    realtime: container.realtime,
    clock: container.clock,
    assets,
    geo: config.geoipDb ? "maxmind" : "dbip",
    publicUrl: config.publicUrl,
    storeFailures: container.storeFailures,
  });
  return app;
}
