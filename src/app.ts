// Builds the Fastify application from a container: body parsers, OpenAPI document and
// docs page, health check, error handling and the /api/v1 scope. Never listens.

import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import { AJV_OPTIONS } from "./api/ajv-options.js";
import { apiDocs } from "./api/api-docs.js";
import { apiV1 } from "./api/api-v1.js";
import { handleError, sendError } from "./api/http-errors.js";
import { collectRoutes } from "./collect/collect-routes.js";
import { fastCollect } from "./collect/fast-collect.js";
import { loadTrackerAsset } from "./collect/tracker-asset.js";
import type { Container } from "./container.js";
import { createHttpServer } from "./http-server.js";
import { loadPageAssets } from "./pages/page-assets.js";
import { pageRoutes } from "./pages/page-routes.js";
import { rewriteUndecodablePath } from "./url-rewrite.js";

export interface AppOptions {
  logger?: FastifyServerOptions["logger"];
}

export const API_BODY_LIMIT = 1024 * 1024;

export async function buildApp(container: Container, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = container;
  let app: FastifyInstance;
  const fast = fastCollect(container.collect, config.trustProxy, (error) =>
    app.log.error({ err: error }, "request failed"),
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
    trustProxy: config.trustProxy,
    bodyLimit: API_BODY_LIMIT,
    return503OnClosing: true,
    // One log line per request would drown the logs of a collection endpoint.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: AJV_OPTIONS,
    // A stats page's path is its domain, up to 253 characters (more before it redirects to
    // the canonical form); the router's default of 100 answered longer ones with 414.
    routerOptions: { maxParamLength: 1024 },
    rewriteUrl: (request) => rewriteUndecodablePath(request.url ?? "/"),
  });

  app.decorateRequest("user", null);
  app.setErrorHandler(handleError);
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
      await Promise.all([container.metadata.ping(), container.events.ping()]);
      return { status: "ok" };
    } catch (error) {
      app.log.error({ err: error }, "health check failed");
      return reply.code(503).send({ status: "unavailable" });
    }
  });

  await app.register(collectRoutes, { endpoint: container.collect, tracker: loadTrackerAsset() });
  await app.register(apiV1, {
    prefix: "/api/v1",
    users: container.users,
    websites: container.websites,
    importer: container.importer,
    stats: container.stats,
    publicUrl: config.publicUrl,
    rateLimitPerMinute: config.apiRateLimit,
  });
  // Registered last and matching only paths with a dot, so /{domain} shadows no route above.
  await app.register(pageRoutes, {
    access: container.pageAccess,
    stats: container.stats,
    clock: container.clock,
    assets: loadPageAssets(),
    geo: config.geoipDb ? "maxmind" : "dbip",
  });
  return app;
}
