// The web app's website routes: GET / (the owner's websites, or the way to sign in or set
// up), adding one (/websites/new), a website's page with its snippet and settings
// (/websites/{id}), and its deletion after a confirmation (/websites/{id}/delete). Every
// change goes through WebsiteService, as the API's do, so its rules and messages are the
// API's; a form's fields come back with their errors beside them.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { requestOrigin } from "../api/request-origin.js";
import { type FieldErrors, NotFoundError, ValidationError } from "../errors.js";
import { DashboardQuerySchema, sendDashboard } from "../pages/dashboard-response.js";
import { firstValuesOf } from "../pages/dashboard-state.js";
import { html } from "../pages/html.js";
import { sendHtml } from "../pages/html-response.js";
import type { Flag, Privacy } from "../storage/ports.js";
import { FLAG_VALUES, PRIVACY_VALUES } from "../websites/website-rules.js";
import type { WebsiteSettings } from "../websites/website-service.js";
import {
  deleteWebsitePage,
  homePage,
  type InstallationCheck,
  NEW_WEBSITE_VALUES,
  newWebsitePage,
  settingsValues,
  websitePage,
} from "./site-views.js";
import { visitorTrend } from "./visitor-trend.js";
import type { WebAppOptions } from "./web-app.js";
import { appHeader, type FormState, messagePage } from "./web-page.js";
import { ownerGate, repeatedFields, type Session } from "./web-request.js";

const PER_PAGE = 25;
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const ListQuery = Type.Object({ q: Text(253), page: Text(9) });
/** Any text: one that names no website of the owner is its 404 page (websiteOf), not a 400. */
const IdParams = Type.Object({ id: Type.String() });
/**
 * The settings' fields have no limit here, where going over one would fail the whole form (a
 * 400 with every value lost): the website rules check each, as the API's do, and say so
 * beside it. The body limit (1 MiB, the API's) bounds what is read.
 */
const Field = Type.Optional(Type.String());
const SettingsBody = {
  csrf: Text(128),
  privacy: Field,
  password: Field,
  email: Field,
  exclude_bots: Field,
  exclude_datacenters: Field,
  exclude_params: Field,
  exclude_ips: Field,
  timezone: Field,
};
const CreateBody = Type.Object({ domain: Field, ...SettingsBody });
const UpdateBody = Type.Object(SettingsBody);
const CsrfBody = Type.Object({ csrf: Text(128) });

type SettingsForm = Partial<Record<keyof typeof SettingsBody, string>>;

/**
 * The settings a form sends, as WebsiteService takes them, and what is wrong with the values
 * only a crafted post can hold (a privacy outside 0-2). Unchecked boxes send nothing: 0.
 * On an update an empty password keeps the stored one.
 */
function settingsOf(
  body: SettingsForm,
  updating: boolean,
): { settings: WebsiteSettings; fields: FieldErrors } {
  const fields: FieldErrors = {};
  const privacy = Number(body.privacy);
  const validPrivacy = (PRIVACY_VALUES as readonly number[]).includes(privacy) && body.privacy !== "";
  if (!validPrivacy) fields.privacy = [`The privacy must be one of: ${PRIVACY_VALUES.join(", ")}.`];
  const flag = (value: string | undefined, name: string): Flag => {
    if (value === undefined || value === "0") return 0;
    if (value === "1") return 1;
    fields[name] = [`The ${name.replace(/_/g, " ")} must be one of: ${FLAG_VALUES.join(", ")}.`];
    return 0;
  };
  const settings: WebsiteSettings = {
    privacy: validPrivacy ? (privacy as Privacy) : undefined,
    email: flag(body.email, "email"),
    excludeBots: flag(body.exclude_bots, "exclude_bots"),
    excludeDatacenters: flag(body.exclude_datacenters, "exclude_datacenters"),
    excludeParams: body.exclude_params ?? "",
    excludeIps: body.exclude_ips ?? "",
    timezone: body.timezone ?? "UTC",
  };
  if (!updating || body.password) settings.password = body.password ?? "";
  return { settings, fields };
}

/** What a form showed, to show again (never the password). */
function shownValues(
  body: SettingsForm & { domain?: string | undefined },
): Record<string, string | undefined> {
  const { password: _password, csrf: _csrf, ...shown } = body;
  return {
    ...shown,
    email: body.email ?? "0",
    exclude_bots: body.exclude_bots ?? "0",
    exclude_datacenters: body.exclude_datacenters ?? "0",
  };
}

export function siteRoutes(scope: FastifyInstance, options: WebAppOptions): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { owners, websites, realtime, stats, clock, stylesheet, publicUrl } = options;

  const gate = ownerGate(owners, stylesheet, publicUrl);
  /** The owner's website of the path, or null after a 404 page. */
  const websiteOf = async (session: Session, id: string, reply: FastifyReply) => {
    const number = /^[1-9]\d{0,15}$/.test(id) ? Number(id) : 0;
    try {
      if (number > 0) return await websites.get(session.user.id, number);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    await sendHtml(
      reply,
      404,
      messagePage(stylesheet, "Website not found", "You have no website with this address."),
    );
    return null;
  };
  /** The installation check: the website's pageviews of the last minutes, buffered hits included. */
  const checkOf = async (session: Session, websiteId: number): Promise<InstallationCheck> => {
    const { pageviews } = await realtime.read(session.user.id, websiteId);
    const last = pageviews.findLast((minute) => minute.count > 0);
    return {
      pageviews: pageviews.reduce((sum, minute) => sum + minute.count, 0),
      minutes: pageviews.length,
      lastMinute: last?.minute ?? null,
    };
  };

  // A part of the list's address given twice (an edited link) counts once: its first value.
  const firstQueryValues = async (request: FastifyRequest) => {
    firstValuesOf(request.query);
  };
  app.get(
    "/",
    { schema: { hide: true, querystring: ListQuery }, preValidation: firstQueryValues },
    async (request, reply) => {
      const session = await gate.page(request, reply);
      if (!session) return reply;
      const search = request.query.q?.trim() || undefined;
      const asked = Number(request.query.page);
      const page = Number.isSafeInteger(asked) && asked >= 1 ? asked : 1;
      const listed = await websites.list(session.user.id, {
        search,
        sortBy: "domain_unicode",
        sort: "asc",
        perPage: PER_PAGE,
        page,
      });
      const token = await owners.formToken(session.token);
      const trends = new Map(
        await Promise.all(
          listed.items.map(
            async (website) => [website.id, await visitorTrend(stats, clock, website)] as const,
          ),
        ),
      );
      return sendHtml(
        reply,
        200,
        homePage(
          stylesheet,
          session.user,
          token,
          listed,
          { search, page, perPage: PER_PAGE },
          undefined,
          trends,
        ),
      );
    },
  );

  app.get("/websites/new", { schema: { hide: true } }, async (request, reply) => {
    const session = await gate.page(request, reply);
    if (!session) return reply;
    const token = await owners.formToken(session.token);
    return sendHtml(
      reply,
      200,
      newWebsitePage(stylesheet, session.user, token, { values: NEW_WEBSITE_VALUES }),
    );
  });

  app.post(
    "/websites",
    { schema: { hide: true, body: Type.Optional(CreateBody) } },
    async (request, reply) => {
      const body = request.body ?? {};
      const session = await gate.post(request, reply, body.csrf);
      if (!session) return reply;
      const token = await owners.formToken(session.token);
      const { settings, fields } = settingsOf(body, false);
      Object.assign(fields, repeatedFields(request, CreateBody));
      const again = (state: FormState) =>
        sendHtml(
          reply,
          422,
          newWebsitePage(stylesheet, session.user, token, { values: shownValues(body), ...state }),
        );
      if (Object.keys(fields).length > 0) return again({ fields });
      try {
        const created = await websites.create(session.user.id, { domain: body.domain ?? "", ...settings });
        return reply.redirect(`/websites/${created.id}?added=1`, 303);
      } catch (error) {
        if (error instanceof ValidationError) return again({ fields: error.fields });
        throw error;
      }
    },
  );

  // The website's dashboard: what its stats page shows the public, for its owner at any privacy.
  app.get(
    "/websites/:id/stats",
    { schema: { hide: true, params: IdParams, querystring: DashboardQuerySchema } },
    async (request, reply) => {
      const session = await gate.page(request, reply);
      if (!session) return reply;
      const website = await websiteOf(session, request.params.id, reply);
      if (!website) return reply;
      const nav = html`<p class="owner-links"><a href="/">All websites</a> <a href="/websites/${String(website.id)}">Settings and snippet</a></p>`;
      return sendDashboard(
        reply,
        options,
        website,
        request.query,
        {
          action: `/websites/${website.id}/stats`,
          stylesheet,
          geo: options.geo,
          nav,
          index: false,
          appBar: appHeader(session.user, await owners.formToken(session.token)),
        },
        (from, to) =>
          options.dropped.read(session.user.id, website.id, from, to).then((answer) => answer.totals),
      );
    },
  );

  app.get(
    "/websites/:id",
    {
      schema: { hide: true, params: IdParams, querystring: Type.Object({ added: Text(1), saved: Text(1) }) },
    },
    async (request, reply) => {
      const session = await gate.page(request, reply);
      if (!session) return reply;
      const website = await websiteOf(session, request.params.id, reply);
      if (!website) return reply;
      const token = await owners.formToken(session.token);
      const notice = request.query.added
        ? "Website added. Put the snippet below in its pages."
        : request.query.saved
          ? "Settings saved."
          : undefined;
      const origin = publicUrl ?? requestOrigin(request);
      const check = await checkOf(session, website.id);
      return sendHtml(
        reply,
        200,
        websitePage(stylesheet, session.user, token, website, origin, check, {
          values: settingsValues(website),
          notice,
        }),
      );
    },
  );

  app.post(
    "/websites/:id",
    { schema: { hide: true, params: IdParams, body: Type.Optional(UpdateBody) } },
    async (request, reply) => {
      const body = request.body ?? {};
      const session = await gate.post(request, reply, body.csrf);
      if (!session) return reply;
      const website = await websiteOf(session, request.params.id, reply);
      if (!website) return reply;
      const token = await owners.formToken(session.token);
      const origin = publicUrl ?? requestOrigin(request);
      const { settings, fields } = settingsOf(body, true);
      Object.assign(fields, repeatedFields(request, UpdateBody));
      const check = await checkOf(session, website.id);
      const again = (state: FormState) =>
        sendHtml(
          reply,
          422,
          websitePage(stylesheet, session.user, token, website, origin, check, {
            values: shownValues(body),
            ...state,
          }),
        );
      if (Object.keys(fields).length > 0) return again({ fields });
      try {
        await websites.update(session.user.id, website.id, settings);
        // Post/redirect/get: a reload of the page shown does not post the form again.
        return reply.redirect(`/websites/${website.id}?saved=1`, 303);
      } catch (error) {
        if (error instanceof ValidationError) return again({ fields: error.fields });
        throw error;
      }
    },
  );

  app.get("/websites/:id/delete", { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const session = await gate.page(request, reply);
    if (!session) return reply;
    const website = await websiteOf(session, request.params.id, reply);
    if (!website) return reply;
    const token = await owners.formToken(session.token);
    return sendHtml(reply, 200, deleteWebsitePage(stylesheet, session.user, token, website));
  });

  app.post(
    "/websites/:id/delete",
    { schema: { hide: true, params: IdParams, body: Type.Optional(CsrfBody) } },
    async (request, reply) => {
      const session = await gate.post(request, reply, request.body?.csrf);
      if (!session) return reply;
      const website = await websiteOf(session, request.params.id, reply);
      if (!website) return reply;
      await websites.delete(session.user.id, website.id);
      return reply.redirect("/", 303);
    },
  );
}
