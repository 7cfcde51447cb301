// The web app's account routes: the first user's setup (/setup), sign-in and sign-out, and
// the password change (/account/password). Every post must come from this server's own
// pages, and a signed-in one must carry its sign-in's form token (web-request.ts), so
// another website can neither sign an owner in or out nor act as them.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { type OwnerSessions, passwordProblems } from "../accounts/owner-sessions.js";
import { ValidationError } from "../errors.js";
import { retryMessage } from "../pages/gate-view.js";
import { sendHtml } from "../pages/html-response.js";
import { passwordChangePage, setupPage, signInPage } from "./account-views.js";
import { returnPath } from "./return-path.js";
import { homePage } from "./site-views.js";
import type { WebAppOptions } from "./web-app.js";
import { crossSitePage, type FormState } from "./web-page.js";
import {
  clearSessionCookie,
  formAccepted,
  ownerGate,
  repeatedFields,
  sessionOf,
  setSessionCookie,
} from "./web-request.js";

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
/**
 * A typed field: no limit here, where going over it would fail the whole form (a 400 with
 * every value lost); the accounts' rules check it and say so beside the field (an email or
 * password too long to be anyone's is a wrong sign-in). The body limit (1 MiB) bounds what
 * is read.
 */
const Typed = Type.Optional(Type.String());
const SetupBody = Type.Object({ code: Typed, email: Typed, name: Typed, password: Typed });
const SignInBody = Type.Object({ email: Typed, password: Typed, next: Typed });
const CsrfBody = Type.Object({ csrf: Text(128) });
const PasswordBody = Type.Object({
  csrf: Text(128),
  email: Typed,
  current_password: Typed,
  new_password: Typed,
});

const BUSY = "Too many sign-ins are being checked right now. Try again in a few seconds.";
const DISABLED = "This account is disabled. An administrator can enable it again.";

export function accountRoutes(scope: FastifyInstance, options: WebAppOptions): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { owners, stylesheet, publicUrl } = options;
  const gate = ownerGate(owners, stylesheet, publicUrl);

  app.get("/setup", { schema: { hide: true } }, async (_request, reply) => {
    if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
    return sendHtml(reply, 200, setupPage(stylesheet));
  });

  app.post("/setup", { schema: { hide: true, body: Type.Optional(SetupBody) } }, async (request, reply) => {
    if (!(await formAccepted(request, publicUrl))) return sendHtml(reply, 403, crossSitePage(stylesheet));
    if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
    const body = request.body ?? {};
    const values = { email: body.email, name: body.name };
    const repeated = repeatedFields(request, SetupBody);
    if (Object.keys(repeated).length > 0)
      return sendHtml(reply, 422, setupPage(stylesheet, { values, fields: repeated }));
    const input = { email: body.email ?? "", name: body.name, password: body.password ?? "" };
    let outcome: Awaited<ReturnType<OwnerSessions["setUp"]>>;
    try {
      outcome = await owners.setUp({ ...input, code: body.code ?? "" }, request.ip);
    } catch (error) {
      if (error instanceof ValidationError)
        return sendHtml(reply, 422, setupPage(stylesheet, { values, fields: error.fields }));
      throw error;
    }
    if (outcome.state === "granted") {
      setSessionCookie(request, reply, outcome.token);
      // The page itself, not a redirect: the API key is shown this once.
      const token = await owners.formToken(outcome.token);
      return sendHtml(
        reply,
        201,
        homePage(stylesheet, outcome.user, token, { items: [], total: 0 }, {}, outcome.apiKey),
      );
    }
    if (outcome.state === "refused") {
      if (!(await owners.needsSetup())) return reply.redirect("/sign-in", 303);
      // The other fields' problems too, so that one more post can fix everything.
      const code = body.code?.trim() ? "The setup code is wrong." : "The setup code field is required.";
      const fields = { code: [code], ...(await owners.setupProblems(input)) };
      return sendHtml(reply, 403, setupPage(stylesheet, { values, fields }));
    }
    reply.header("retry-after", String(outcome.retryAfter));
    const error = outcome.state === "limited" ? retryMessage(outcome.retryAfter) : BUSY;
    return sendHtml(reply, outcome.state === "limited" ? 429 : 503, setupPage(stylesheet, { values, error }));
  });

  app.get("/sign-in", { schema: { hide: true } }, async (request, reply) => {
    if (await owners.needsSetup()) return reply.redirect("/setup", 303);
    const next = returnPath((request.query as Record<string, unknown>).next);
    if (await sessionOf(request, owners)) return reply.redirect(next ?? "/", 303);
    return sendHtml(reply, 200, signInPage(stylesheet, {}, next));
  });

  app.post(
    "/sign-in",
    { schema: { hide: true, body: Type.Optional(SignInBody) } },
    async (request, reply) => {
      if (!(await formAccepted(request, publicUrl))) return sendHtml(reply, 403, crossSitePage(stylesheet));
      const body = request.body ?? {};
      const again: FormState = { values: { email: body.email }, focus: body.email ? "password" : "email" };
      const next = returnPath(body.next);
      const repeated = repeatedFields(request, SignInBody);
      if (Object.keys(repeated).length > 0)
        return sendHtml(reply, 422, signInPage(stylesheet, { ...again, fields: repeated }, next));
      const outcome = await owners.signIn(body.email ?? "", body.password ?? "", request.ip);
      if (outcome.state === "granted") {
        setSessionCookie(request, reply, outcome.token);
        return reply.redirect(next ?? "/", 303);
      }
      if (outcome.state === "refused")
        return sendHtml(
          reply,
          401,
          signInPage(stylesheet, { ...again, error: "Wrong email or password." }, next),
        );
      if (outcome.state === "disabled")
        return sendHtml(reply, 403, signInPage(stylesheet, { ...again, error: DISABLED }, next));
      reply.header("retry-after", String(outcome.retryAfter));
      const error = outcome.state === "limited" ? retryMessage(outcome.retryAfter) : BUSY;
      return sendHtml(
        reply,
        outcome.state === "limited" ? 429 : 503,
        signInPage(stylesheet, { ...again, error }, next),
      );
    },
  );

  app.post("/sign-out", { schema: { hide: true, body: Type.Optional(CsrfBody) } }, async (request, reply) => {
    const session = await gate.post(request, reply, request.body?.csrf);
    if (!session) return reply;
    await owners.signOut(session.token);
    clearSessionCookie(request, reply);
    return reply.redirect("/sign-in", 303);
  });

  app.get("/account/password", { schema: { hide: true } }, async (request, reply) => {
    const session = await gate.page(request, reply);
    if (!session) return reply;
    const token = await owners.formToken(session.token);
    return sendHtml(reply, 200, passwordChangePage(stylesheet, session.user, token));
  });

  app.post(
    "/account/password",
    { schema: { hide: true, body: Type.Optional(PasswordBody) } },
    async (request, reply) => {
      const body = request.body ?? {};
      const session = await gate.post(request, reply, body.csrf);
      if (!session) return reply;
      const page = async (status: number, state: FormState, token = session.token) =>
        sendHtml(
          reply,
          status,
          passwordChangePage(stylesheet, session.user, await owners.formToken(token), state),
        );
      const repeated = repeatedFields(request, PasswordBody);
      if (Object.keys(repeated).length > 0) return page(422, { fields: repeated });
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
        setSessionCookie(request, reply, outcome.token);
        return page(200, { notice: "Password changed. Other browsers are signed out." }, outcome.token);
      }
      if (outcome.state === "refused") {
        // The new password's problems too: a wrong current one does not hide them.
        const problems = passwordProblems(body.new_password ?? "");
        const fields = { current_password: ["The current password is wrong."], new_password: problems };
        return page(401, { fields });
      }
      // Disabled since this page was opened: their sign-ins have ended, as the sign-in page says.
      if (outcome.state === "disabled") return reply.redirect("/sign-in", 303);
      reply.header("retry-after", String(outcome.retryAfter));
      return page(outcome.state === "limited" ? 429 : 503, {
        error: outcome.state === "limited" ? retryMessage(outcome.retryAfter) : BUSY,
      });
    },
  );
}
