// What every route of the web app does with a request: find who is signed in (the cookie's
// token, owner-sessions.ts), accept a form only from this server's pages and, once signed in,
// with its sign-in's form token, set or clear the sign-in cookie, and answer HTML.
//
// The cookie is HttpOnly and SameSite=Lax (a link from an email still opens the app signed
// in; posts are guarded by the checks here), Secure whenever the request came over HTTPS.

import type { FastifyReply, FastifyRequest } from "fastify";
import { OWNER_SESSION_SECONDS, type OwnerSessions } from "../accounts/owner-sessions.js";
import { cookieValue } from "../pages/access-cookie.js";
import { fromOwnPage } from "../pages/form-origin.js";
import { sendHtml } from "../pages/html-response.js";
import type { UserRecord } from "../storage/ports.js";
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
  /** The signed-in owner, or null after sending anyone else to sign in (or to set up). */
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
    if (!session) await reply.redirect((await owners.needsSetup()) ? "/setup" : "/sign-in", 303);
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
