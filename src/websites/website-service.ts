// Managing a user's websites: create with defaults, partial update (an empty value clears
// a field), delete, read and list. Every call is scoped to the calling user.

import type { Clock } from "../clock.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../errors.js";
import { hasControlCharacter, type RuleResult } from "../field-rule.js";
import {
  DuplicateError,
  type Flag,
  type Privacy,
  type WebsitePatch,
  type WebsiteRecord,
  type WebsiteRepository,
} from "../storage/ports.js";
import type { PasswordHasher } from "./password-hasher.js";
import {
  DOMAIN_TAKEN,
  PASSWORD_REQUIRED,
  passwordRule,
  TEXT_RULES,
  WEBSITE_DEFAULTS,
} from "./website-rules.js";

export interface WebsiteSettings {
  privacy?: Privacy | undefined;
  /** An empty string means "no password". */
  password?: string | undefined;
  email?: Flag | undefined;
  excludeBots?: Flag | undefined;
  excludeDatacenters?: Flag | undefined;
  excludeParams?: string | undefined;
  excludeIps?: string | undefined;
  /** IANA name; a change re-counts the website's stored history in the new zone. */
  timezone?: string | undefined;
}

export interface NewWebsiteInput extends WebsiteSettings {
  domain: string;
}

export interface WebsiteListOptions {
  search?: string | undefined;
  /** `domain_unicode`: by the domain as shown (münchen.de among the m's), not its ASCII form. */
  sortBy: "id" | "domain" | "domain_unicode";
  sort: "asc" | "desc";
  perPage: number;
  page: number;
}

/** What else must happen when a website changes: caches to refresh, recorded events to delete. */
export interface WebsiteHooks {
  changed(domain: string): void;
  /** The time zone a website's statistics count in is now `zone` (at creation too). */
  zoneChanged(websiteId: number, zone: string): Promise<void>;
  deleted(websiteId: number, domain: string): Promise<void>;
}

const NO_HOOKS: WebsiteHooks = {
  changed: () => undefined,
  zoneChanged: async () => undefined,
  deleted: async () => undefined,
};

export class WebsiteService {
  constructor(
    private readonly websites: WebsiteRepository,
    private readonly clock: Clock,
    private readonly passwords: PasswordHasher,
    private readonly hooks: WebsiteHooks = NO_HOOKS,
  ) {}

  async create(userId: number, input: NewWebsiteInput): Promise<WebsiteRecord> {
    const errors = new FieldErrorCollector();
    const domain = applyRule(errors, "domain", TEXT_RULES.domain(input.domain));
    const lists = parseLists(errors, input);
    const timezone =
      input.timezone === undefined
        ? WEBSITE_DEFAULTS.timezone
        : applyRule(errors, "timezone", TEXT_RULES["time-zone"](input.timezone, "timezone"));
    const privacy = input.privacy ?? WEBSITE_DEFAULTS.privacy;
    const password = input.password || null;
    if (password !== null) applyRule(errors, "password", passwordRule(password));
    if (privacy === 2 && password === null) errors.add("password", PASSWORD_REQUIRED);
    errors.throwIfAny();
    try {
      const created = await this.websites.create({
        userId,
        domain: domain as string,
        privacy,
        passwordHash: password === null ? null : await this.passwords.hash(password),
        email: input.email ?? WEBSITE_DEFAULTS.email,
        excludeBots: input.excludeBots ?? WEBSITE_DEFAULTS.excludeBots,
        excludeDatacenters: input.excludeDatacenters ?? WEBSITE_DEFAULTS.excludeDatacenters,
        excludeParams: lists.excludeParams ?? null,
        excludeIps: lists.excludeIps ?? null,
        timezone: timezone as string,
        now: this.clock.now(),
      });
      this.hooks.changed(created.domain);
      if (created.timezone !== WEBSITE_DEFAULTS.timezone) {
        await this.hooks.zoneChanged(created.id, created.timezone);
      }
      return created;
    } catch (error) {
      if (error instanceof DuplicateError) throw ValidationError.single("domain", DOMAIN_TAKEN);
      throw error;
    }
  }

  async get(userId: number, id: number): Promise<WebsiteRecord> {
    const website = await this.websites.find(userId, id);
    if (!website) throw new NotFoundError();
    return website;
  }

  /** Changes only the settings present in `input`. */
  async update(userId: number, id: number, input: WebsiteSettings): Promise<WebsiteRecord> {
    const current = await this.get(userId, id);
    const errors = new FieldErrorCollector();
    const patch: WebsitePatch = { ...parseLists(errors, input) };
    if (input.privacy !== undefined) patch.privacy = input.privacy;
    if (input.email !== undefined) patch.email = input.email;
    if (input.excludeBots !== undefined) patch.excludeBots = input.excludeBots;
    if (input.excludeDatacenters !== undefined) patch.excludeDatacenters = input.excludeDatacenters;
    if (input.timezone !== undefined) {
      const timezone = applyRule(errors, "timezone", TEXT_RULES["time-zone"](input.timezone, "timezone"));
      if (timezone !== null && timezone !== current.timezone) patch.timezone = timezone;
    }
    if (input.password) applyRule(errors, "password", passwordRule(input.password));
    const clearsPassword = input.password === "";
    const hasPassword = input.password ? true : clearsPassword ? false : current.passwordHash !== null;
    if ((patch.privacy ?? current.privacy) === 2 && !hasPassword) errors.add("password", PASSWORD_REQUIRED);
    errors.throwIfAny();
    if (input.password) patch.passwordHash = await this.passwords.hash(input.password);
    if (clearsPassword) patch.passwordHash = null;
    // Leaving privacy 2 ends every password cookie, for good: coming back to 2 with the
    // stored password does not revive those issued before (page-access.ts).
    if (current.privacy === 2 && patch.privacy !== undefined && patch.privacy !== 2) {
      patch.endPasswordCookies = true;
    }
    if (Object.keys(patch).length === 0) return current;
    const updated = await this.websites.update(userId, id, patch, this.clock.now());
    if (!updated) throw new NotFoundError();
    this.hooks.changed(updated.domain);
    if (patch.timezone !== undefined) await this.hooks.zoneChanged(updated.id, updated.timezone);
    return updated;
  }

  /** Deletes the website, then everything recorded for it. */
  async delete(userId: number, id: number): Promise<void> {
    const website = await this.get(userId, id);
    if (!(await this.websites.delete(userId, id))) throw new NotFoundError();
    this.hooks.changed(website.domain);
    await this.hooks.deleted(id, website.domain);
  }

  async list(userId: number, options: WebsiteListOptions) {
    // Stored forms are lowercase and composed (NFC): a needle typed with a combining
    // accent (u + U+0308) still finds münchen.de.
    const search = options.search?.trim().normalize("NFC").toLowerCase() || null;
    // No domain holds a control character, and the stores cannot look for a NUL (SQLite's
    // LIKE stops at it and so matched every website; PostgreSQL refuses it in text).
    if (search !== null && hasControlCharacter(search)) return { items: [], total: 0 };
    return this.websites.list({
      userId,
      search,
      sortBy: options.sortBy,
      sort: options.sort,
      limit: options.perPage,
      offset: (options.page - 1) * options.perPage,
    });
  }
}

/** Normalises the exclusion lists that were sent; an empty list becomes null (cleared). */
function parseLists(
  errors: FieldErrorCollector,
  input: WebsiteSettings,
): Pick<WebsitePatch, "excludeIps" | "excludeParams"> {
  const lists: Pick<WebsitePatch, "excludeIps" | "excludeParams"> = {};
  if (input.excludeIps !== undefined) {
    lists.excludeIps = applyRule(
      errors,
      "exclude_ips",
      TEXT_RULES["ip-list"](input.excludeIps, "exclude ips"),
    );
  }
  if (input.excludeParams !== undefined) {
    lists.excludeParams = applyRule(
      errors,
      "exclude_params",
      TEXT_RULES["param-list"](input.excludeParams, "exclude params"),
    );
  }
  return lists;
}

function applyRule(errors: FieldErrorCollector, field: string, result: RuleResult): string | null {
  if (result.ok) return result.value;
  for (const message of result.errors) errors.add(field, message);
  return null;
}
