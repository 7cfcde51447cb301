// The owner's web app, one Fastify plugin: its account pages (account-routes.ts), its
// websites (site-routes.ts), API keys (key-routes.ts) and users (user-routes.ts), under the same security headers as the stats pages (no script
// at all, nothing from another host), each form field taken once (web-request.ts) and an
// error handler that answers pages, not JSON.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyInstance } from "fastify";
import type { ApiKeyService } from "../accounts/api-key-service.js";
import type { OwnerSessions } from "../accounts/owner-sessions.js";
import type { UserService } from "../accounts/user-service.js";
import type { Clock } from "../clock.js";
import { AppError, StoreUnavailableError } from "../errors.js";
import { sendHtml } from "../pages/html-response.js";
import type { GeoSource } from "../pages/page-layout.js";
import { SECURITY_HEADERS } from "../pages/security-headers.js";
import type { DroppedHitsService } from "../stats/dropped-hits.js";
import type { RealtimeService } from "../stats/realtime.js";
import type { StatsService } from "../stats/stats-service.js";
import type { TotalsService } from "../stats/totals.js";
import type { StoreFailureLog } from "../store-failure-log.js";
import type { PasswordHasher } from "../websites/password-hasher.js";
import type { WebsiteService } from "../websites/website-service.js";
import { accountRoutes } from "./account-routes.js";
import { keyRoutes } from "./key-routes.js";
import { siteRoutes } from "./site-routes.js";
import { userRoutes } from "./user-routes.js";
import { messagePage } from "./web-page.js";
import { firstValues } from "./web-request.js";

export interface WebAppOptions {
  owners: OwnerSessions;
  /** The owner's API keys (keys page). */
  keys: ApiKeyService;
  /** Users, for administrators (users page). */
  users: UserService;
  /** Hashes the passwords the users page sets. */
  passwords: PasswordHasher;
  websites: WebsiteService;
  /** A website's last minutes, for its installation check. */
  realtime: RealtimeService;
  /** Each listed website's visitors of the last 60 days (its trend), and its dashboard. */
  stats: StatsService;
  /** A dashboard's totals. */
  totals: TotalsService;
  /** The hits dropped over a dashboard's range, shown to its owner. */
  dropped: DroppedHitsService;
  /** Who the geolocation data comes from, credited under a dashboard. */
  geo: GeoSource;
  clock: Clock;
  /** The stats pages' stylesheet, which the app shares. */
  stylesheet: string;
  /** ANALYTICS_PUBLIC_URL: where people reach this server, an origin forms may come from. */
  publicUrl: string | null;
  /** Told of each page refused because a store cannot answer (the page says no more). */
  storeFailures: StoreFailureLog;
}

export async function webApp(scope: FastifyInstance, options: WebAppOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { stylesheet } = options;
  app.addHook("onSend", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    reply.header("cache-control", "private, no-store");
  });
  app.addHook("preValidation", firstValues);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError && error.code === "unavailable") {
      if (error instanceof StoreUnavailableError) options.storeFailures.refused(error);
      return sendHtml(
        reply.header("retry-after", "30"),
        503,
        messagePage(stylesheet, "Unavailable for a moment", "Please try again shortly."),
      );
    }
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, "request failed");
    return sendHtml(
      reply,
      status,
      status === 500
        ? messagePage(stylesheet, "Something went wrong", "Something went wrong on our side.")
        : messagePage(stylesheet, "Request not understood", "The request was not understood."),
    );
  });
  // Routes added to this same plugin, so the hooks above cover them.
  accountRoutes(scope, options);
  siteRoutes(scope, options);
  keyRoutes(scope, options);
  userRoutes(scope, options);
}
