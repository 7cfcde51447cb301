// Accounts: creating users, rotating their primary API key (the old one fails at once) and
// setting their web app password. An administrator (`users create --admin`) may also list
// and create users through the API. Further named keys, and resolving any key to its user,
// are api-key-service.ts's.

import type { Clock } from "../clock.js";
import {
  AppError,
  FieldErrorCollector,
  type FieldErrors,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from "../errors.js";
import { DuplicateError, type UserRecord, type UserRepository } from "../storage/ports.js";
import { issueApiKey } from "./api-keys.js";
import { emailRule } from "./email-rule.js";
import { userNameRule } from "./user-name-rule.js";

const EMAIL_TAKEN = "The email has already been taken.";

export interface NewUserInput {
  email: string;
  name?: string | undefined;
  admin?: boolean | undefined;
  /** The web app's password, hashed (password-hash.ts); none by default. */
  passwordHash?: string | null | undefined;
}

export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * What is wrong with a new user's email and name, every problem at once (an email already
   * taken included), without creating anything: a form shows these beside its own fields'.
   */
  async problemsOf(input: NewUserInput): Promise<FieldErrors> {
    const { errors, email } = readFields(input);
    if (email !== null && (await this.users.findByEmail(email))) errors.add("email", EMAIL_TAKEN);
    return errors.fields;
  }

  async create(input: NewUserInput): Promise<{ user: UserRecord; apiKey: string }> {
    const { errors, email, name } = readFields(input);
    errors.throwIfAny();
    const issued = issueApiKey();
    try {
      const user = await this.users.create({
        email: email as string,
        name,
        isAdmin: input.admin === true,
        apiKeyId: issued.keyId,
        apiKeyHash: issued.keyHash,
        passwordHash: input.passwordHash ?? null,
        now: this.clock.now(),
      });
      return { user, apiKey: issued.key };
    } catch (error) {
      if (error instanceof DuplicateError) throw ValidationError.single("email", EMAIL_TAKEN);
      throw error;
    }
  }

  /** Replaces the password of the user of `email` (a stored hash) and ends their web app sign-ins. */
  async replacePassword(email: string, passwordHash: string): Promise<UserRecord> {
    const user = await this.users.findByEmail(normaliseEmail(email));
    if (!user || !(await this.users.replacePassword(user.id, passwordHash, this.clock.now())))
      throw new AppError("not_found", `No user has the email ${email}.`);
    return user;
  }

  async rotateKey(email: string): Promise<{ user: UserRecord; apiKey: string }> {
    const user = await this.users.findByEmail(normaliseEmail(email));
    if (!user) throw new AppError("not_found", `No user has the email ${email}.`);
    const issued = issueApiKey();
    await this.users.replaceKey(user.id, issued.keyId, issued.keyHash, this.clock.now());
    return { user, apiKey: issued.key };
  }

  /** A page of every user, for an administrator; anyone else is refused. */
  async list(actor: UserRecord, page: { perPage: number; page: number }) {
    requireAdmin(actor);
    return this.users.list(page.perPage, (page.page - 1) * page.perPage);
  }

  /** problemsOf, for an administrator; anyone else is refused. */
  async problemsAs(actor: UserRecord, input: NewUserInput): Promise<FieldErrors> {
    requireAdmin(actor);
    return this.problemsOf(input);
  }

  /** Creates a user (with its first API key) for an administrator; anyone else is refused. */
  async createAs(actor: UserRecord, input: NewUserInput): Promise<{ user: UserRecord; apiKey: string }> {
    requireAdmin(actor);
    return this.create(input);
  }

  /**
   * For an administrator: disables a user (their keys and sign-ins stop at once; their
   * websites stay) or enables them again. An administrator cannot disable themselves.
   */
  async setDisabledAs(actor: UserRecord, userId: number, disabled: boolean): Promise<void> {
    requireAdmin(actor);
    if (userId === actor.id && disabled) throw new AppError("forbidden", "You cannot disable yourself.");
    const now = this.clock.now();
    if (!(await this.users.setDisabled(userId, disabled ? now : null, now))) throw new NotFoundError();
  }

  /** For an administrator: sets a user's web app password (hashed), ending their sign-ins. */
  async resetPasswordAs(actor: UserRecord, userId: number, passwordHash: string): Promise<void> {
    requireAdmin(actor);
    if (!(await this.users.replacePassword(userId, passwordHash, this.clock.now())))
      throw new NotFoundError();
  }
}

function requireAdmin(actor: UserRecord): void {
  if (!actor.isAdmin) throw new ForbiddenError();
}

/** The new user's email and name as stored, and what is wrong with them. */
function readFields(input: NewUserInput) {
  const errors = new FieldErrorCollector();
  const email = emailRule(input.email);
  const name = userNameRule(input.name ?? "");
  if (!email.ok) for (const message of email.errors) errors.add("email", message);
  if (!name.ok) for (const message of name.errors) errors.add("name", message);
  return { errors, email: email.ok ? email.value : null, name: name.ok ? name.value : null };
}

function normaliseEmail(raw: string): string {
  const result = emailRule(raw);
  if (!result.ok) throw new ValidationError({ email: result.errors });
  return result.value as string;
}
