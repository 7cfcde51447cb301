// Table types of the relational metadata store, shared by every SQL dialect. Timestamps are
// written as ISO-8601 strings and read back as Date or string depending on the engine.

import type { Generated } from "kysely";

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string | null;
  is_admin: number;
  api_key_id: string;
  api_key_hash: string;
  /** The web app's password (password-hash.ts), or null: the user has none. */
  password_hash: string | null;
  /** When the primary key (api_key_id) was last used, to the minute; null: never. */
  api_key_last_used_at: string | Date | null;
  /** When an administrator disabled the user; null: enabled. */
  disabled_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

/** One sign-in to the web app: the SHA-256 of the token its cookie holds, never the token. */
export interface UserSessionsTable {
  token_hash: string;
  user_id: number;
  created_at: string | Date;
  expires_at: string | Date;
}

export interface WebsitesTable {
  id: Generated<number>;
  user_id: number;
  domain: string;
  /** The domain in Unicode (unicode-domain.ts), kept so the list can search either form in SQL. */
  domain_unicode: string;
  privacy: number;
  password_hash: string | null;
  /** Times the website left privacy 2: password cookies are signed over it (page-access.ts). */
  password_epoch: Generated<number>;
  timezone: Generated<string>;
  email: number;
  exclude_bots: number;
  exclude_datacenters: number;
  exclude_params: string | null;
  exclude_ips: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface VisitorSaltsTable {
  day: string;
  salt: string;
  created_at: string | Date;
  /** Null only in a row an older server wrote during an upgrade (a newer one sets it on first use). */
  expires_at: string | Date | null;
}

export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string | Date;
}

export interface ReportLogTable {
  user_id: number;
  period_key: string;
  status: string;
  claim_token: string;
  attempts: number;
  last_error: string | null;
  claimed_at: string | Date;
  sent_at: string | Date | null;
}

/** A user's further API key (the primary one is in users): only its id and hash are kept. */
export interface ApiKeysTable {
  key_id: string;
  user_id: number;
  name: string;
  key_hash: string;
  read_only: number;
  created_at: string | Date;
  last_used_at: string | Date | null;
}

/** Hits dropped for a website on one of its local days (YYYY-MM-DD), by reason. */
export interface DroppedHitsTable {
  website_id: number;
  day: string;
  reason: string;
  count: number;
}

export interface Database {
  users: UsersTable;
  websites: WebsitesTable;
  visitor_salts: VisitorSaltsTable;
  server_secrets: ServerSecretsTable;
  report_log: ReportLogTable;
  user_sessions: UserSessionsTable;
  api_keys: ApiKeysTable;
  dropped_hits: DroppedHitsTable;
}
