// The web app's account routes: GET / (the owner's home, or the way to it), the first user's
// setup (/setup), sign-in and sign-out, and the password change (/account/password).
//
// Every form post must come from this server's own pages (form-origin.ts: the browser's
// Sec-Fetch-Site, Origin or Referer), and a signed-in one must also carry its sign-in's form
// token (owner-sessions.ts), so another website can neither sign an owner in or out nor act
// as them. The sign-in cookie is HttpOnly and SameSite=Lax (a link from an email still opens
// the app signed in), Secure whenever the request came over HTTPS.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { OWNER_SESSION_SECONDS, type OwnerSessions } from "../accounts/owner-sessions.js";
import { AppError, ValidationError } from "../errors.js";
import { cookieValue } from "../pages/access-cookie.js";
import { fromOwnPage } from "../pages/form-origin.js";
import { retryMessage } from "../pages/gate-view.js";
import { type Html, html } from "../pages/html.js";
import { layout } from "../pages/page-layout.js";
import { SECURITY_HEADERS } from "../pages/security-headers.js";
import type { UserRecord } from "../storage/ports.js";
import type { WebsiteService } from "../websites/website-service.js";
import { type FormState, homePage, passwordChangePage, setupPage, signInPage } from "./account-views.js";

export const SESSION_COOKIE = "analytics_session";
/** The home lists this many websites; the full list with search comes with the websites page. */
const HOME_WEBSITES = 100;

export interface AccountRoutesOptions {
  owners: OwnerSessions;
  websites: WebsiteService;
  /** The stats pages' stylesheet, which these pages share. */
  stylesheet: string;
  /** ANALYTICS_PUBLIC_URL: where people reach this server, an origin forms may come from. */
  publicUrl: string | null;
}

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const SetupBody = Type.Object({ code: Text(64), email: Text(320), name: Text(255), password: Text(1024) });
const SignInBody = Type.Object({ email: Text(320), password: Text(1024) });
const CsrfBody = Type.Object({ csrf: Text(128) });
const PasswordBody = Type.Object({
  csrf: Text(128),
  email: Text(320),
  current_password: Text(1024),
  new_password: Text(1024),
});

export async function accountRoutes(scope: FastifyInstance, options: AccountRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { owners, stylesheet } = options;

  app.addHook("onSend", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    reply.header("cache-control", "private, no-store");
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError && error.code === "unavailable") {
      return sendHtml(
        reply.header("retry-after", "30"),
        503,
        message(stylesheet, "Unavailable for a moment", "Please try again shortly."),
      );
    }
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, "request failed");
    return sendHtml(
      reply,
      status,
      status === 500
        ? message(stylesheet, "Something went wrong", "Something went wrong on our side.")
        : message(stylesheet, "Request not understood", "The request was not understood."),
    );
  });

  /** The signed-in user and their sign-in's token, or null. */
  const signedIn = async (request: FastifyRequest): Promise<{ user: UserRecord; token: string } | null> => {
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE) ?? undefined;
    const user = await owners.userOf(token);
    return user && token ? { user, token } : null;
  };

  app.get("/", { schema: { hide: true } }, async (request, reply) => {
    if (await owners.needsSetup()) return reply.redirect("/setup", 303);
    const session = await signedIn(request);
    if (!session) return reply.redirect("/sign-in", 303);
    return sendHtml(reply, 200, await home(session));
  });

  const home = async ({ user, token }: { user: UserRecord; token: string }, apiKey?: string) => {
    const listed = await options.websites.list(user.id, {
      sortBy: "domain",
      sort: "asc",
      perPage: HOME_WEBSITES,
      page: 1,
    });
    return homePage(stylesheet, user, await owners.formToken(token), listed.items, listed.total, apiKey);
  };

  app.get("/setup", { schema: { hide: true } }, async (_request, reply) => {
    if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
    return sendHtml(reply, 200, setupPage(stylesheet));
  });

  app.post("/setup", { schema: { hide: true, body: Type.Optional(SetupBody) } }, async (request, reply) => {
    if (!fromOwnPage(request, options.publicUrl)) return sendHtml(reply, 403, crossSite(stylesheet));
    if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
    const body = request.body ?? {};
    const values = { email: body.email, name: body.name };
    let outcome: Awaited<ReturnType<OwnerSessions["setUp"]>>;
    try {
      outcome = await owners.setUp(
        { code: body.code ?? "", email: body.email ?? "", name: body.name, password: body.password ?? "" },
        request.ip,
      );
    } catch (error) {
      if (error instanceof ValidationError)
        return sendHtml(reply, 422, setupPage(stylesheet, { values, fields: error.fields }));
      throw error;
    }
    if (outcome.state === "granted") {
      setSession(request, reply, outcome.token);
      // The page itself, not a redirect: the API key is shown this once.
      return sendHtml(reply, 201, await home({ user: outcome.user, token: outcome.token }, outcome.apiKey));
    }
    if (outcome.state === "refused") {
      if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
      return sendHtml(
        reply,
        403,
        setupPage(stylesheet, { values, fields: { code: ["The setup code is wrong."] } }),
      );
    }
    reply.header("retry-after", String(outcome.retryAfter));
    const error = outcome.state === "limited" ? retryMessage(outcome.retryAfter) : busy;
    return sendHtml(reply, outcome.state === "limited" ? 429 : 503, setupPage(stylesheet, { values, error }));
  });

  app.get("/sign-in", { schema: { hide: true } }, async (request, reply) => {
    if (await owners.needsSetup()) return reply.redirect("/setup", 303);
    if (await signedIn(request)) return reply.redirect("/", 303);
    return sendHtml(reply, 200, signInPage(stylesheet));
  });

  app.post(
    "/sign-in",
    { schema: { hide: true, body: Type.Optional(SignInBody) } },
    async (request, reply) => {
      if (!fromOwnPage(request, options.publicUrl)) return sendHtml(reply, 403, crossSite(stylesheet));
      const body = request.body ?? {};
      const values = { email: body.email };
      const outcome = await owners.signIn(body.email ?? "", body.password ?? "", request.ip);
      if (outcome.state === "granted") {
        setSession(request, reply, outcome.token);
        return reply.redirect("/", 303);
      }
      if (outcome.state === "refused")
        return sendHtml(reply, 401, signInPage(stylesheet, { values, error: "Wrong email or password." }));
      reply.header("retry-after", String(outcome.retryAfter));
      const error = outcome.state === "limited" ? retryMessage(outcome.retryAfter) : busy;
      return sendHtml(
        reply,
        outcome.state === "limited" ? 429 : 503,
        signInPage(stylesheet, { values, error }),
      );
    },
  );

  app.post("/sign-out", { schema: { hide: true, body: Type.Optional(CsrfBody) } }, async (request, reply) => {
    const session = await signedIn(request);
    if (!session) return reply.redirect("/sign-in", 303);
    if (
      !fromOwnPage(request, options.publicUrl) ||
      !(await owners.formTokenMatches(session.token, request.body?.csrf))
    )
      return sendHtml(reply, 403, crossSite(stylesheet));
    await owners.signOut(session.token);
    clearSession(request, reply);
    return reply.redirect("/sign-in", 303);
  });

  app.get("/account/password", { schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request);
    if (!session) return reply.redirect("/sign-in", 303);
    return sendHtml(
      reply,
      200,
      passwordChangePage(stylesheet, session.user, await owners.formToken(session.token)),
    );
  });

  app.post(
    "/account/password",
    { schema: { hide: true, body: Type.Optional(PasswordBody) } },
    async (request, reply) => {
      const session = await signedIn(request);
      if (!session) return reply.redirect("/sign-in", 303);
      const body = request.body ?? {};
      if (
        !fromOwnPage(request, options.publicUrl) ||
        !(await owners.formTokenMatches(session.token, body.csrf))
      )
        return sendHtml(reply, 403, crossSite(stylesheet));
      const page = async (status: number, state: FormState, token = session.token) =>
        sendHtml(
          reply,
          status,
          passwordChangePage(stylesheet, session.user, await owners.formToken(token), state),
        );
      let outcome: Awaited<ReturnType<OwnerSessions["changePassword"]>>;
      try {
        outcome = await owners.changePassword(
          session.user,
          body.current_password ?? "",
          body.new_password ?? "",
          request.ip,
        );
      } catch (error) {
        if (error instanceof ValidationError) return page(422, { fields: error.fields });
        throw error;
      }
      if (outcome.state === "granted") {
        setSession(request, reply, outcome.token);
        return page(200, { notice: "Password changed. Other browsers are signed out." }, outcome.token);
      }
      if (outcome.state === "refused")
        return page(401, { fields: { current_password: ["The current password is wrong."] } });
      reply.header("retry-after", String(outcome.retryAfter));
      return page(outcome.state === "limited" ? 429 : 503, {
        error: outcome.state === "limited" ? retryMessage(outcome.retryAfter) : busy,
      });
    },
  );
}

const busy = "Too many sign-ins are being checked right now. Try again in a few seconds.";

function setSession(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header("set-cookie", sessionCookie(request, token, OWNER_SESSION_SECONDS));
}

function clearSession(request: FastifyRequest, reply: FastifyReply): void {
  reply.header("set-cookie", sessionCookie(request, "", 0));
}

function sessionCookie(request: FastifyRequest, value: string, maxAge: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

function sendHtml(reply: FastifyReply, status: number, page: Html) {
  return reply.code(status).header("content-type", "text/html; charset=utf-8").send(page.text);
}

function message(stylesheet: string, title: string, text: string): Html {
  return layout({
    title,
    stylesheet,
    body: html`<main class="wrap"><div class="gate card"><h1>${title}</h1><p>${text}</p></div></main>`,
  });
}

function crossSite(stylesheet: string): Html {
  return message(
    stylesheet,
    "Form refused",
    "This form was not sent from this server's own page, so it was not accepted. Open the page again and retry.",
  );
}
