// The signed cookie that opens one website's stats page: which website, by which credential
// (its password, or its owner's API key id), until when, and an HMAC-SHA256 over all of it
// and over the credential as it is now (its stored hash; for a password, also the times the
// website left privacy 2). Changing the password, leaving privacy 2 or rotating the key
// changes that, so every cookie issued before stops verifying.

import { createHmac, timingSafeEqual } from "node:crypto";

export const ACCESS_COOKIE = "analytics_page";
const VERSION = "1";

export type AccessKind = "password" | "key";

export interface AccessGrant {
  websiteId: number;
  kind: AccessKind;
  /** The owner's API key id (not the key) for kind "key"; null for a password. */
  keyId: string | null;
  /** Unix seconds after which the cookie is refused. */
  expires: number;
}

const KIND_CODES: Record<AccessKind, string> = { password: "p", key: "k" };
const TOKEN = /^1\.(\d{1,10})\.([pk])\.([0-9a-f]{16}|-)\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export class AccessCookieSigner {
  constructor(private readonly secret: string) {}

  /** A token for `grant`, bound to `credentialHash` (the stored password or key hash). */
  sign(grant: AccessGrant, credentialHash: string): string {
    const body = bodyOf(grant);
    return `${body}.${this.mac(body, credentialHash)}`;
  }

  /** What a well-formed token claims; nothing is trusted until verify() says so. */
  read(token: string): AccessGrant | null {
    const match = TOKEN.exec(token);
    if (!match) return null;
    const [, websiteId, kind, keyId, expires] = match;
    if ((kind === "k") !== (keyId !== "-")) return null;
    return {
      websiteId: Number(websiteId),
      kind: kind === "k" ? "key" : "password",
      keyId: keyId === "-" ? null : (keyId ?? null),
      expires: Number(expires),
    };
  }

  /** Whether `token` was signed by this server for this grant and this credential hash. */
  verify(token: string, grant: AccessGrant, credentialHash: string): boolean {
    const body = bodyOf(grant);
    const presented = Buffer.from(token);
    const expected = Buffer.from(`${body}.${this.mac(body, credentialHash)}`);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  private mac(body: string, credentialHash: string): string {
    return createHmac("sha256", this.secret).update(`${body}\n${credentialHash}`).digest("base64url");
  }
}

function bodyOf(grant: AccessGrant): string {
  return [VERSION, grant.websiteId, KIND_CODES[grant.kind], grant.keyId ?? "-", grant.expires].join(".");
}

/** The value of the access cookie in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name = ACCESS_COOKIE): string | null {
  if (!header) return null;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}
