// Who may see a website's stats page. Privacy 0: anyone. Privacy 1: only its owner, signed
// in with their API key; everyone else is answered as if the website did not exist.
// Privacy 2: anyone with the password, or the owner's key. A right credential earns a
// signed cookie for that website alone (access-cookie.ts); wrong ones are rate limited.
// A password cookie lasts while the website stays on privacy 2 with that password; an
// owner's key cookie lasts until the key is rotated, whatever the privacy does meanwhile.

import { randomBytes } from "node:crypto";
import { keyIdOf, keyMatches } from "../accounts/api-keys.js";
import type { Clock } from "../clock.js";
import type { AttemptLimiter } from "../sign-in/attempt-limiter.js";
import type { SecretRepository, UserRepository, WebsiteRecord, WebsiteRepository } from "../storage/ports.js";
import { type PasswordHasher, PasswordsBusyError } from "../websites/password-hasher.js";
import { AccessCookieSigner, type AccessGrant } from "./access-cookie.js";

/** How long a sign-in lasts. */
export const SESSION_SECONDS = 30 * 86_400;
const SECRET_NAME = "stats-page-cookies";

/** What a visitor gets at GET /{domain}: the stats, the password form, or a 404. */
export type PageAccessResult =
  | { state: "open"; website: WebsiteRecord }
  | { state: "password"; website: WebsiteRecord }
  | { state: "hidden" };

export type SignInResult =
  | { state: "granted"; website: WebsiteRecord; cookie: string }
  | { state: "refused"; access: PageAccessResult }
  | { state: "limited"; access: PageAccessResult; retryAfter: number }
  /** Too many passwords are being checked right now; this one was not (and does not count). */
  | { state: "busy"; access: PageAccessResult; retryAfter: number };

export interface Credentials {
  password?: string | undefined;
  key?: string | undefined;
}

/** What a right credential earns, with the hash of the credential its cookie is bound to. */
interface EarnedGrant {
  grant: AccessGrant;
  credentialHash: string;
}

export interface PageAccessDeps {
  websites: WebsiteRepository;
  users: UserRepository;
  secrets: SecretRepository;
  limiter: AttemptLimiter;
  passwords: PasswordHasher;
  clock: Clock;
}

export class PageAccess {
  private signer: Promise<AccessCookieSigner> | null = null;

  constructor(private readonly deps: PageAccessDeps) {}

  /** The page a visitor with this cookie (or none) gets. */
  async resolve(domain: string, cookie: string | null): Promise<PageAccessResult> {
    const website = await this.deps.websites.findByDomain(domain);
    if (!website) return { state: "hidden" };
    if (website.privacy === 0 || (cookie !== null && (await this.cookieOpens(cookie, website)))) {
      return { state: "open", website };
    }
    return locked(website);
  }

  /** Checks a posted password or key; `client` is the address the attempt is counted against. */
  async signIn(domain: string, client: string, credentials: Credentials): Promise<SignInResult> {
    const website = await this.deps.websites.findByDomain(domain);
    if (website?.privacy === 0) return { state: "granted", website, cookie: "" };
    const access = website ? locked(website) : ({ state: "hidden" } as const);
    const { limiter } = this.deps;
    const retryAfter = limiter.begin(client, domain);
    if (retryAfter > 0) return { state: "limited", access, retryAfter };
    let grant: EarnedGrant | null;
    try {
      grant = await this.check(website, credentials);
    } catch (error) {
      limiter.withdrawn(client, domain);
      if (error instanceof PasswordsBusyError) return { state: "busy", access, retryAfter: error.retryAfter };
      throw error;
    }
    if (!website || !grant) return { state: "refused", access };
    limiter.succeeded(client, domain);
    const signer = await this.cookieSigner();
    return { state: "granted", website, cookie: signer.sign(grant.grant, grant.credentialHash) };
  }

  /**
   * The grant a credential earns on this website, with the hash the cookie is bound to. A key
   * is looked up even for an unknown website, so a private one answers no differently.
   */
  private async check(
    website: WebsiteRecord | null,
    { password, key }: Credentials,
  ): Promise<EarnedGrant | null> {
    const expires = Math.floor(this.deps.clock.now().getTime() / 1000) + SESSION_SECONDS;
    if (key) {
      const keyId = keyIdOf(key.trim());
      const credential = keyId ? await this.deps.users.findCredential(keyId) : null;
      if (!keyId || !credential || !keyMatches(key.trim(), credential.apiKeyHash)) return null;
      if (credential.user.disabledAt !== null) return null;
      if (!website || credential.user.id !== website.userId) return null;
      return {
        grant: { websiteId: website.id, kind: "key", keyId, expires },
        credentialHash: credential.apiKeyHash,
      };
    }
    if (password && website?.privacy === 2 && website.passwordHash) {
      if (!(await this.deps.passwords.verify(password, website.passwordHash))) return null;
      return {
        grant: { websiteId: website.id, kind: "password", keyId: null, expires },
        credentialHash: passwordBinding(website, website.passwordHash),
      };
    }
    return null;
  }

  /** Whether a cookie was issued for this website and its credential is still the current one. */
  private async cookieOpens(cookie: string, website: WebsiteRecord): Promise<boolean> {
    const signer = await this.cookieSigner();
    const grant = signer.read(cookie);
    if (!grant || grant.websiteId !== website.id) return false;
    if (grant.expires * 1000 <= this.deps.clock.now().getTime()) return false;
    let credentialHash: string | null = null;
    if (grant.kind === "password") {
      // A password opens only a website that is still on privacy 2.
      if (website.privacy === 2 && website.passwordHash !== null) {
        credentialHash = passwordBinding(website, website.passwordHash);
      }
    } else if (grant.keyId) {
      const credential = await this.deps.users.findCredential(grant.keyId);
      if (credential?.user.id === website.userId && credential.user.disabledAt === null)
        credentialHash = credential.apiKeyHash;
    }
    return credentialHash !== null && signer.verify(cookie, grant, credentialHash);
  }

  /** The signer, with the secret every server shares (created by the first that needs it). */
  private cookieSigner(): Promise<AccessCookieSigner> {
    this.signer ??= this.deps.secrets
      .getOrCreate(SECRET_NAME, randomBytes(32).toString("base64url"), this.deps.clock.now())
      .then((secret) => new AccessCookieSigner(secret))
      .catch((error: unknown) => {
        this.signer = null; // try again on the next request
        throw error;
      });
    return this.signer;
  }
}

/**
 * What a password cookie is bound to: the stored hash (a new password ends it) and the
 * number of times the website left privacy 2 (so leaving ends it, even when the website
 * later returns to 2 with the same hash). Epoch 0 binds the hash alone, as cookies issued
 * before the epoch existed were, so an upgrade signs no one out.
 */
function passwordBinding(website: WebsiteRecord, passwordHash: string): string {
  return website.passwordEpoch === 0 ? passwordHash : `${passwordHash}\nepoch ${website.passwordEpoch}`;
}

function locked(website: WebsiteRecord): PageAccessResult {
  return website.privacy === 2 ? { state: "password", website } : { state: "hidden" };
}
