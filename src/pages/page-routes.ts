// The public stats pages: GET /{domain} (the statistics, the password form or a 404),
// POST /{domain} (sign in with a password or an API key, or sign out; only from the page
// itself, see form-origin.ts), and their static assets. A domain always has a dot, so /api,
// /js, /healthz and /assets stay their own: a path without one goes on to the application's 404.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Clock } from "../clock.js";
import { AppError, StoreUnavailableError } from "../errors.js";
import type { RealtimeService } from "../stats/realtime.js";
import type { StatsService } from "../stats/stats-service.js";
import type { TotalsService } from "../stats/totals.js";
import type { StoreFailureLog } from "../store-failure-log.js";
import { normaliseDomain } from "../websites/domain-name.js";
import { ACCESS_COOKIE, cookieValue } from "./access-cookie.js";
import { DashboardQuerySchema, sendDashboard } from "./dashboard-response.js";
import { firstValuesOf, repeatedPart } from "./dashboard-state.js";
import { fromOwnPage } from "./form-origin.js";
import { notFoundPage, passwordPage, retryMessage } from "./gate-view.js";
import { type Html, html } from "./html.js";
import { sendHtml } from "./html-response.js";
import type { PageAccess, PageAccessResult } from "./page-access.js";
import { SESSION_SECONDS } from "./page-access.js";
import type { PageAssets } from "./page-assets.js";
import { type GeoSource, layout } from "./page-layout.js";
import { SECURITY_HEADERS } from "./security-headers.js";

export interface PageRoutesOptions {
  access: PageAccess;
  stats: StatsService;
  totals: TotalsService;
  realtime: RealtimeService;
  clock: Clock;
  assets: PageAssets;
  geo: GeoSource;
  /** ANALYTICS_PUBLIC_URL: where people reach this server, an origin forms may come from. */
  publicUrl: string | null;
  /** Told of each page refused because a store cannot answer (the page says no more). */
  storeFailures: StoreFailureLog;
}

const Day = Type.String({ maxLength: 10 });
const SignInBody = Type.Object({
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  key: Type.Optional(Type.String({ maxLength: 1024 })),
  sign_out: Type.Optional(Type.String({ maxLength: 8 })),
  from: Type.Optional(Day),
  to: Type.Optional(Day),
});
const DomainParams = Type.Object({ domain: Type.String() });

/**
 * Each sign-in form's field sent more than once counts as its first value (no browser sends
 * one twice), and the request remembers why it cannot be a sign-in if it was the password or
 * the key: that is said beside the form (422) and counts no attempt, instead of a 400 page.
 */
const repeatedSecrets = new WeakMap<FastifyRequest, string>();
async function firstFormValues(request: FastifyRequest): Promise<void> {
  for (const [name, times] of firstValuesOf(request.body))
    if ((name === "password" || name === "key") && !repeatedSecrets.has(request))
      repeatedSecrets.set(request, repeatedPart(name, times));
}

type Target =
  | { kind: "elsewhere" }
  | { kind: "invalid"; segment: string }
  | { kind: "redirect"; domain: string; location: string }
  | { kind: "page"; domain: string };

/**
 * Which page a path segment names: a canonical domain, one to redirect to, one that no
 * website can have, or no page at all. Only a validated domain ever reaches a header (the
 * cookie's Path, a Location): the decoded segment may hold CR/LF, `;` or anything else.
 */
function targetOf(segment: string, url: string): Target {
  if (!segment.includes(".")) return { kind: "elsewhere" };
  // normaliseDomain forgives what is typed into a form (spaces around it, a scheme, a
  // trailing slash); in an address those are characters no domain has, so not-found, not a
  // redirect. Only `www.`, capitals and an internationalised name lead to a website's page.
  if (/[\s/:]/.test(segment)) return { kind: "invalid", segment };
  const normalised = normaliseDomain(segment);
  if (!normalised.ok || normalised.value === null) return { kind: "invalid", segment };
  if (normalised.value === segment) return { kind: "page", domain: segment };
  const query = url.indexOf("?");
  return {
    kind: "redirect",
    domain: normalised.value,
    location: `/${normalised.value}${query >= 0 ? url.slice(query) : ""}`,
  };
}

export async function pageRoutes(scope: FastifyInstance, options: PageRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { access, assets } = options;
  const stylesheet = assets.stylesheet.path;

  app.addHook("onSend", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "private, no-store");
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A store that cannot answer for now (the event store being opened again, a ClickHouse
    // node that does not answer): 503, not 500, and the cause to the log alone.
    if (error instanceof AppError && error.code === "unavailable") {
      if (error instanceof StoreUnavailableError) options.storeFailures.refused(error);
      return sendHtml(
        reply.header("retry-after", "30"),
        503,
        messagePage(stylesheet, "The statistics are unavailable for a moment. Please try again shortly."),
      );
    }
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, "request failed");
    const message = status === 500 ? "Something went wrong on our side." : "The request was not understood.";
    return sendHtml(reply, status >= 400 ? status : 400, messagePage(stylesheet, message));
  });

  app.get(
    "/assets/:name",
    { schema: { hide: true, params: Type.Object({ name: Type.String() }) } },
    (request, reply) => {
      const asset = assets.byName.get(request.params.name);
      if (!asset) return reply.callNotFound();
      reply
        .header("content-type", asset.type)
        .header("cache-control", "public, max-age=31536000, immutable")
        .header("etag", asset.etag)
        .header("vary", "Accept-Encoding");
      if (request.headers["if-none-match"] === asset.etag) return reply.code(304).send();
      if (/\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
        return reply.header("content-encoding", "gzip").send(asset.gzipped);
      }
      return reply.send(asset.body);
    },
  );

  app.get(
    "/:domain",
    { schema: { hide: true, params: DomainParams, querystring: DashboardQuerySchema } },
    async (request, reply) => {
      const target = targetOf(request.params.domain, request.url);
      if (target.kind === "elsewhere") return reply.callNotFound();
      if (target.kind === "invalid") return sendInvalid(reply, target.segment, stylesheet);
      if (target.kind === "redirect") return reply.redirect(target.location, 301);
      const cookie = cookieValue(request.headers.cookie);
      const result = await access.resolve(target.domain, cookie);
      // The range to come back to after signing in: a repeated end is no range (keepRange drops it).
      const { from, to } = request.query;
      const gate = {
        domain: target.domain,
        stylesheet,
        action: actionOf(target.domain),
        from: typeof from === "string" ? from : undefined,
        to: typeof to === "string" ? to : undefined,
      };
      if (result.state === "hidden") return sendHtml(reply, 404, notFoundPage(keepRange(gate)));
      if (result.state === "password") return sendHtml(reply, 200, passwordPage(keepRange(gate)));
      const signOut = html`<form class="signout" method="post" action="${gate.action}"><input type="hidden" name="sign_out" value="1"><button type="submit">Sign out</button></form>`;
      return sendDashboard(reply, options, result.website, request.query, {
        action: gate.action,
        stylesheet,
        geo: options.geo,
        nav: result.website.privacy !== 0 ? signOut : "",
        index: result.website.privacy === 0,
      });
    },
  );

  app.post(
    "/:domain",
    {
      schema: { hide: true, params: DomainParams, body: Type.Optional(SignInBody) },
      preValidation: firstFormValues,
    },
    async (request, reply) => {
      const target = targetOf(request.params.domain, request.url);
      if (target.kind === "elsewhere") return reply.callNotFound();
      // No website has that name, so there is nothing to sign in to or out of.
      if (target.kind === "invalid") return sendInvalid(reply, target.segment, stylesheet);
      // Before anything else: a refused post signs nobody in or out and counts no attempt.
      if (!fromOwnPage(request, options.publicUrl)) return sendHtml(reply, 403, crossSitePage(stylesheet));
      const domain = target.domain;
      const body = request.body ?? {};
      const gate = keepRange({ domain, stylesheet, action: actionOf(domain), from: body.from, to: body.to });
      const back = `${gate.action}${gate.from && gate.to ? `?${new URLSearchParams({ from: gate.from, to: gate.to })}` : ""}`;
      if (body.sign_out) {
        return reply.header("set-cookie", accessCookie(request, domain, "", 0)).redirect(gate.action, 303);
      }
      const repeated = repeatedSecrets.get(request);
      if (repeated !== undefined) {
        const found = await access.resolve(domain, cookieValue(request.headers.cookie));
        // Open already: nothing to sign in to.
        if (found.state === "open") return reply.redirect(back, 303);
        return sendGate(reply, 422, found, { ...gate, error: repeated });
      }
      const result = await access.signIn(domain, request.ip, { password: body.password, key: body.key });
      if (result.state === "granted") {
        if (result.cookie)
          reply.header("set-cookie", accessCookie(request, domain, result.cookie, SESSION_SECONDS));
        return reply.redirect(back, 303);
      }
      if (result.state === "limited") {
        reply.header("retry-after", String(result.retryAfter));
        return sendGate(reply, 429, result.access, { ...gate, error: retryMessage(result.retryAfter) });
      }
      if (result.state === "busy") {
        reply.header("retry-after", String(result.retryAfter));
        return sendGate(reply, 503, result.access, {
          ...gate,
          error: "Too many sign-ins are being checked right now. Try again in a few seconds.",
        });
      }
      const error =
        result.access.state === "password"
          ? "Wrong password or key."
          : "That key does not open statistics here.";
      return sendGate(reply, result.access.state === "password" ? 401 : 404, result.access, {
        ...gate,
        error,
      });
    },
  );
}

function actionOf(domain: string): string {
  return `/${encodeURIComponent(domain)}`;
}

/** The not-found page of a path that is no domain at all (what an unknown website gets). */
function sendInvalid(reply: FastifyReply, segment: string, stylesheet: string) {
  return sendHtml(reply, 404, notFoundPage({ domain: segment, stylesheet, action: actionOf(segment) }));
}

/** Keeps the asked-for range across the sign-in only when it is a pair of plain dates. */
function keepRange<T extends { from?: string | undefined; to?: string | undefined }>(gate: T): T {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const ok = gate.from !== undefined && gate.to !== undefined && day.test(gate.from) && day.test(gate.to);
  return { ...gate, from: ok ? gate.from : undefined, to: ok ? gate.to : undefined };
}

function sendGate(
  reply: FastifyReply,
  status: number,
  access: PageAccessResult,
  gate: Parameters<typeof notFoundPage>[0],
) {
  return sendHtml(reply, status, access.state === "password" ? passwordPage(gate) : notFoundPage(gate));
}

/**
 * The access cookie, scoped to this website's page; Secure whenever the request came over
 * HTTPS. `domain` is a validated one; the path is encoded all the same, so no character of
 * it can end the attribute or the header.
 */
function accessCookie(request: FastifyRequest, domain: string, value: string, maxAge: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${ACCESS_COOKIE}=${value}; Path=${actionOf(domain)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

function crossSitePage(stylesheet: string): Html {
  return layout({
    title: "Form refused",
    stylesheet,
    body: html`<main class="wrap"><div class="gate card"><h1>Form refused</h1>
<p>This form was sent from another website, so it was not accepted. Open the statistics page here and try again.</p>
</div></main>`,
  });
}

function messagePage(stylesheet: string, message: string): Html {
  return layout({
    title: message,
    stylesheet,
    body: html`<main class="wrap"><div class="gate card"><h1>${message}</h1></div></main>`,
  });
}
