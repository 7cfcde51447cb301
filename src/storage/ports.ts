// The storage ports: what the domain needs from the metadata store (users, API keys,
// websites). Adapters implement these and translate driver errors into the errors below;
// nothing outside storage/ knows which engine is behind them.

export interface UserRecord {
  id: number;
  email: string;
  name: string | null;
  isAdmin: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUser {
  email: string;
  name: string | null;
  isAdmin: boolean;
  apiKeyId: string;
  apiKeyHash: string;
  now: Date;
}

export interface StoredCredential {
  user: UserRecord;
  apiKeyHash: string;
}

export interface UserRepository {
  /** Throws DuplicateError("email") when the email is taken. */
  create(user: NewUser): Promise<UserRecord>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findCredential(apiKeyId: string): Promise<StoredCredential | null>;
  /** Replaces the user's key; returns false when no such user. */
  replaceKey(userId: number, apiKeyId: string, apiKeyHash: string, now: Date): Promise<boolean>;
}

export type Privacy = 0 | 1 | 2;
export type Flag = 0 | 1;

export interface WebsiteRecord {
  id: number;
  userId: number;
  domain: string;
  privacy: Privacy;
  passwordHash: string | null;
  email: Flag;
  excludeBots: Flag;
  excludeParams: string | null;
  excludeIps: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebsite = Omit<WebsiteRecord, "id" | "createdAt" | "updatedAt"> & { now: Date };

export type WebsitePatch = Partial<
  Pick<WebsiteRecord, "privacy" | "passwordHash" | "email" | "excludeBots" | "excludeParams" | "excludeIps">
>;

export interface WebsiteListQuery {
  userId: number;
  /** Lowercase substring of the domain; matched literally (no wildcards). */
  search: string | null;
  sortBy: "id" | "domain";
  sort: "asc" | "desc";
  limit: number;
  offset: number;
}

export interface WebsiteRepository {
  /** Throws DuplicateError("domain") when the domain is taken by any user. */
  create(website: NewWebsite): Promise<WebsiteRecord>;
  /** A website of this user, or null (also when it belongs to someone else). */
  find(userId: number, id: number): Promise<WebsiteRecord | null>;
  findByDomain(domain: string): Promise<WebsiteRecord | null>;
  update(userId: number, id: number, patch: WebsitePatch, now: Date): Promise<WebsiteRecord | null>;
  delete(userId: number, id: number): Promise<boolean>;
  list(query: WebsiteListQuery): Promise<{ items: WebsiteRecord[]; total: number }>;
}

export interface MetadataStore {
  readonly users: UserRepository;
  readonly websites: WebsiteRepository;
  /** Creates or upgrades the schema to the latest version. */
  migrate(): Promise<void>;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A unique constraint refused a write; `field` names the column the caller can report. */
export class DuplicateError extends Error {
  constructor(readonly field: "email" | "domain") {
    super(`duplicate ${field}`);
    this.name = "DuplicateError";
  }
}
