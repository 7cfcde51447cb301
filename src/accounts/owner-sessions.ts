// Owners signed in to the web app: the first user's setup, sign-in with email and password,
// the sign-in itself (a random token in the owner's cookie, its SHA-256 in user_sessions),
// sign-out, password changes, and the token every form of a signed-in page carries against
// cross-site requests. API keys are untouched: the API goes on taking Bearer keys.
//
// A fresh server has no user. Whoever reaches it first must not become its owner, so the
// setup page asks for a one-time code the server prints in its log at start: reading the
// log needs access to the machine (or its service manager), which the person installing it
// has. Loopback-only setup would not do: a server behind a proxy sees every request from
// 127.0.0.1.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.js";
import { type FieldErrors, ValidationError } from "../errors.js";
import { codePoints, codeUnits, hasControlCharacter, tooLong } from "../field-rule.js";
import type { AttemptLimiter } from "../sign-in/attempt-limiter.js";
import type { SecretRepository, SessionRepository, UserRecord, UserRepository } from "../storage/ports.js";
import { type PasswordHasher, PasswordsBusyError } from "../websites/password-hasher.js";
import { EMAIL_MAX_LENGTH } from "./email-rule.js";
import type { UserService } from "./user-service.js";

/** How long a sign-in lasts without signing in again. */
export const OWNER_SESSION_SECONDS = 14 * 86_400;
/** NIST SP 800-63B: at least 8 characters chosen by the person; long passphrases welcome. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
const SECRET_NAME = "web-app-forms";
/** The limiter's target of setup codes (one code per server, guessed from anywhere). */
const SETUP_TARGET = "setup";

export type SignInOutcome =
  | { state: "granted"; user: UserRecord; token: string }
  | { state: "refused" }
  /** The right password of a disabled user: an administrator may enable them again. */
  | { state: "disabled" }
  /** Too many wrong attempts from this address (or on this email): wait `retryAfter` seconds. */
  | { state: "limited"; retryAfter: number }
  /** Too many passwords are being checked right now; this one was not (and does not count). */
  | { state: "busy"; retryAfter: number };

/** What a setup ends in: never "disabled" (the first user is new), with its API key when granted. */
type SetupOutcome = Exclude<SignInOutcome, { state: "disabled" }> & { apiKey?: string };

/** A password checked, before any sign-in starts. */
type PasswordCheck = Exclude<SignInOutcome, { state: "granted" }> | { state: "granted"; user: UserRecord };

export interface OwnerSessionsDeps {
  users: UserRepository;
  sessions: SessionRepository;
  secrets: SecretRepository;
  accounts: UserService;
  passwords: PasswordHasher;
  limiter: AttemptLimiter;
  clock: Clock;
}

/** The setup code of a server with no user yet: 8 letters and digits, easy to read out. */
export function newSetupCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O, 1/I
  const bytes = randomBytes(8);
  const code = Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join("");
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What is wrong with a new password (nothing: an empty list). */
export function passwordProblems(password: string): string[] {
  if (codePoints(password) < PASSWORD_MIN)
    return [`The password must be at least ${PASSWORD_MIN} characters.`];
  if (codeUnits(password) > PASSWORD_MAX) return [tooLong("password", PASSWORD_MAX)];
  return [];
}

/** The fields with a problem (an empty list is none). */
function withProblems(fields: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(fields).filter(([, problems]) => problems.length > 0));
}

/** Throws a ValidationError naming every field with a problem. */
function refuseProblems(fields: FieldErrors): void {
  const wrong = withProblems(fields);
  if (Object.keys(wrong).length > 0) throw new ValidationError(wrong);
}

export class OwnerSessions {
  private formSecret: Promise<string> | null = null;
  /** Setups run one at a time on a server, so two people racing cannot both become the first user. */
  private setupQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: OwnerSessionsDeps,
    /** This server's setup code, or null when it started with users. */
    private readonly setupCode: string | null,
  ) {}

  /** Whether the server has no user yet (the web app then offers only its setup page). */
  async needsSetup(): Promise<boolean> {
    return !(await this.deps.users.any());
  }

  /**
   * Creates the first user, an administrator with this password, and signs them in; refused
   * when a user exists, the code is wrong or the address guessed too often.
   */
  setUp(
    input: { email: string; name?: string | undefined; password: string; code: string },
    address: string,
  ): Promise<SetupOutcome> {
    const run = async (): Promise<SetupOutcome> => {
      const { limiter } = this.deps;
      if (this.setupCode === null || !(await this.needsSetup())) return { state: "refused" };
      const retryAfter = limiter.begin(address, SETUP_TARGET);
      if (retryAfter > 0) return { state: "limited", retryAfter };
      if (!sameText(normaliseCode(input.code), this.setupCode)) return { state: "refused" };
      limiter.succeeded(address, SETUP_TARGET);
      refuseProblems(await this.setupProblems(input));
      const hashed = await this.hashed(() => this.deps.passwords.hash(input.password));
      if (typeof hashed !== "string") return hashed;
      const { user, apiKey } = await this.deps.accounts.create({
        email: input.email,
        name: input.name,
        admin: true,
        passwordHash: hashed,
      });
      return { state: "granted", user, token: await this.startSession(user.id), apiKey };
    };
    const next = this.setupQueue.then(run, run);
    this.setupQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * What is wrong with the first user's email, name and password, every problem at once. The
   * code aside: these say nothing about it, so a page refusing a wrong code shows them too.
   */
  async setupProblems(input: {
    email: string;
    name?: string | undefined;
    password: string;
  }): Promise<FieldErrors> {
    return withProblems({
      ...(await this.deps.accounts.problemsOf(input)),
      password: passwordProblems(input.password),
    });
  }

  /** Signs in with email and password; wrong ones count against the address and the email. */
  async signIn(email: string, password: string, address: string): Promise<SignInOutcome> {
    const checked = await this.checkPassword(email, password, address);
    if (checked.state !== "granted") return checked;
    return { ...checked, token: await this.startSession(checked.user.id) };
  }

  /** signIn's check of the password, counted as it counts, without starting a sign-in. */
  private async checkPassword(email: string, password: string, address: string): Promise<PasswordCheck> {
    const { limiter, users, passwords } = this.deps;
    const normalised = email.trim().toLowerCase();
    // No account has an email or a password over the limits, or an email with a control
    // character (which PostgreSQL cannot even be asked for): refused before anything is
    // checked or counted, so the limiter keeps only short emails (its memory is bounded).
    if (
      codeUnits(normalised) > EMAIL_MAX_LENGTH ||
      codeUnits(password) > PASSWORD_MAX ||
      hasControlCharacter(normalised)
    )
      return { state: "refused" };
    const target = `owner:${normalised}`;
    const retryAfter = limiter.begin(address, target);
    if (retryAfter > 0) return { state: "limited", retryAfter };
    const found = await users.findPassword(normalised);
    const stored = found?.passwordHash ?? null;
    const checked = await this.hashed(
      () => passwords.verify(password, stored ?? passwords.unmatchable),
      () => limiter.withdrawn(address, target),
    );
    if (typeof checked !== "boolean") return checked;
    if (!found || stored === null || !checked) return { state: "refused" };
    // Said only to whoever knows the password, so a wrong one still gives nothing away; it
    // stays counted as a wrong attempt, since it signs no one in.
    if (found.user.disabledAt !== null) return { state: "disabled" };
    limiter.succeeded(address, target);
    return { state: "granted", user: found.user };
  }

  /** The user a cookie's token signs in, or null (unknown, expired, ended). */
  userOf(token: string | undefined): Promise<UserRecord | null> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return Promise.resolve(null);
    // A disabled user's sign-ins were deleted with the change; checked here all the same.
    return this.deps.sessions
      .findUser(tokenHash(token), this.deps.clock.now())
      .then((user) => (user?.disabledAt === null ? user : null));
  }

  async signOut(token: string): Promise<void> {
    await this.deps.sessions.delete(tokenHash(token));
  }

  /**
   * Replaces a signed-in user's password after checking their current one: every sign-in of
   * theirs ends, and this browser gets a new one (the returned token). Only a wrong current
   * password counts as a wrong attempt; a refused new one starts no sign-in.
   */
  async changePassword(
    user: UserRecord,
    current: string,
    next: string,
    address: string,
  ): Promise<SignInOutcome> {
    const checked = await this.checkPassword(user.email, current, address);
    if (checked.state !== "granted") return checked;
    refuseProblems({ new_password: passwordProblems(next) });
    const hashed = await this.hashed(() => this.deps.passwords.hash(next));
    if (typeof hashed !== "string") return hashed;
    await this.deps.users.replacePassword(user.id, hashed, this.deps.clock.now());
    return { state: "granted", user, token: await this.startSession(user.id) };
  }

  /** The token a signed-in page's forms carry, bound to the sign-in's own token. */
  async formToken(sessionToken: string): Promise<string> {
    return createHmac("sha256", await this.secret())
      .update(sessionToken)
      .digest("base64url");
  }

  /** Whether a form's token is the one this sign-in's pages carry. */
  async formTokenMatches(sessionToken: string, presented: string | undefined): Promise<boolean> {
    return presented !== undefined && sameText(presented, await this.formToken(sessionToken));
  }

  /** The hasher's answer, or "busy" when it refused to queue the work (`withdrawn` runs then). */
  private async hashed<T>(
    work: () => Promise<T>,
    withdrawn?: () => void,
  ): Promise<T | { state: "busy"; retryAfter: number }> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof PasswordsBusyError)) throw error;
      withdrawn?.();
      return { state: "busy", retryAfter: error.retryAfter };
    }
  }

  private async startSession(userId: number): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const createdAt = this.deps.clock.now();
    // Expired sign-ins are refused anyway; each new one clears them, so the table stays small.
    await this.deps.sessions.deleteExpired(createdAt);
    await this.deps.sessions.create({
      tokenHash: tokenHash(token),
      userId,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + OWNER_SESSION_SECONDS * 1000),
    });
    return token;
  }

  private secret(): Promise<string> {
    this.formSecret ??= this.deps.secrets
      .getOrCreate(SECRET_NAME, randomBytes(32).toString("base64url"), this.deps.clock.now())
      .catch((error: unknown) => {
        this.formSecret = null;
        throw error;
      });
    return this.formSecret;
  }
}

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function normaliseCode(code: string): string {
  const compact = code.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return `${compact.slice(0, 4)}-${compact.slice(4)}`;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
