// What every route of the web app does with a request: find who is signed in (the cookie's
// token, owner-sessions.ts), accept a form only from this server's pages and, once signed in,
// with its sign-in's form token, take each form field once, set or clear the sign-in cookie,
// and answer HTML.
//
// The cookie is HttpOnly and SameSite=Lax (a link from an email still opens the app signed
// in; posts are guarded by the checks here), Secure whenever the request came over HTTPS.

import type { FastifyReply, FastifyRequest } from "fastify";
import type { TObject } from "typebox";
import { OWNER_SESSION_SECONDS, type OwnerSessions } from "../accounts/owner-sessions.js";
import type { FieldErrors } from "../errors.js";
import { cookieValue } from "../pages/access-cookie.js";
import { firstValuesOf, repeatedPart } from "../pages/dashboard-state.js";
import { fromOwnPage } from "../pages/form-origin.js";
import { sendHtml } from "../pages/html-response.js";
import type { UserRecord } from "../storage/ports.js";
import { signInLocation } from "./return-path.js";
import { crossSitePage } from "./web-page.js";

export const SESSION_COOKIE = "analytics_session";

export interface Session {
  user: UserRecord;
  /** The sign-in's token, as the cookie holds it. */
  token: string;
}

/** The signed-in owner of the request, or null. */
export async function sessionOf(request: FastifyRequest, owners: OwnerSessions): Promise<Session | null> {
  const token = cookieValue(request.headers.cookie, SESSION_COOKIE) ?? undefined;
  const user = await owners.userOf(token);
  return user && token ? { user, token } : null;
}

/**
 * Whether a post may act: it comes from this server's own pages (form-origin.ts) and, for a
 * signed-in owner, carries the form token of their sign-in.
 */
export async function formAccepted(
  request: FastifyRequest,
  publicUrl: string | null,
  signedIn?: { session: Session; owners: OwnerSessions; presented: string | undefined },
): Promise<boolean> {
  if (!fromOwnPage(request, publicUrl)) return false;
  if (!signedIn) return true;
  return signedIn.owners.formTokenMatches(signedIn.session.token, signedIn.presented);
}

/** The checks of a signed-in page and of its forms, answering for the route when one fails. */
export interface OwnerGate {
  /**
   * The signed-in owner, or null after sending anyone else to sign in (and back to this page
   * then: return-path.ts), or to set up.
   */
  page(request: FastifyRequest, reply: FastifyReply): Promise<Session | null>;
  /**
   * The signed-in owner of a post that may act (formAccepted, with `presented` as its form
   * token), or null after answering: the way to sign in, or a 403 page.
   */
  post(request: FastifyRequest, reply: FastifyReply, presented: string | undefined): Promise<Session | null>;
}

export function ownerGate(owners: OwnerSessions, stylesheet: string, publicUrl: string | null): OwnerGate {
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await sessionOf(request, owners);
    if (!session) await reply.redirect((await owners.needsSetup()) ? "/setup" : signInLocation(request), 303);
    return session;
  };
  return {
    page,
    async post(request, reply, presented) {
      const session = await page(request, reply);
      if (!session) return null;
      if (await formAccepted(request, publicUrl, { session, owners, presented })) return session;
      await sendHtml(reply, 403, crossSitePage(stylesheet));
      return null;
    },
  };
}

/** Per request, the form fields it sent more than once and how many times (firstValues). */
const repeats = new WeakMap<FastifyRequest, Map<string, number>>();

/**
 * A preValidation hook: a field sent more than once (`name=a&name=b`, which only a crafted
 * post sends) reaches the body as a list, which the routes' schemas refused with a bare 400
 * and every value lost. Each list is cut to its first value, so the form can be given back
 * with what was typed, and the field noted for repeatedFields. The form token is checked,
 * never shown: its first value is the one checked.
 */
export async function firstValues(request: FastifyRequest): Promise<void> {
  const times = firstValuesOf(request.body);
  times.delete("csrf");
  if (times.size > 0) repeats.set(request, times);
}

/**
 * What to say beside each field of `form` (a route's body schema) that the request sent more
 * than once, as the dashboard says of a repeated part; a route refuses the form while any is.
 */
export function repeatedFields(request: FastifyRequest, form: TObject): FieldErrors {
  const fields: FieldErrors = {};
  for (const [name, times] of repeats.get(request) ?? []) {
    if (Object.hasOwn(form.properties, name)) fields[name] = [repeatedPart(name, times)];
  }
  return fields;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header("set-cookie", sessionCookie(request, token, OWNER_SESSION_SECONDS));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header("set-cookie", sessionCookie(request, "", 0));
}

function sessionCookie(request: FastifyRequest, value: string, maxAge: number): string {
  const secure = request.protocol === "https" ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}
