// API keys: resolving a presented key (a user's primary key, or one of their further named
// keys) to its user and its access, creating further keys (each shown once) and revoking
// them one at a time. A read-only key may read statistics and websites, nothing else
// (enforced where requests are authenticated, api/authenticate.ts).
//
// When a key was last used is written at most once a minute per key: a write per API request
// would double the metadata store's load, and a minute is all an owner needs to tell which
// keys are in use.

import type { Clock } from "../clock.js";
import { NotFoundError, ValidationError } from "../errors.js";
import { codeUnits, hasControlCharacter, holdsControl, tooLong } from "../field-rule.js";
import type { ApiKeyRecord, ApiKeyRepository, UserRecord, UserRepository } from "../storage/ports.js";
import { issueApiKey, keyIdOf, keyMatches } from "./api-keys.js";

export const KEY_NAME_MAX = 100;
const MARK_EVERY_MS = 60_000;
/** Keys whose last write is remembered; beyond this the oldest are forgotten (written again). */
const MARKS_KEPT = 10_000;

export interface Authenticated {
  user: UserRecord;
  readOnly: boolean;
}

export class ApiKeyService {
  /** Per key id, when its last use was written (ms), oldest first. */
  private readonly marked = new Map<string, number>();

  constructor(
    private readonly users: UserRepository,
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  /** The user and access of this key, or null for a malformed, unknown, replaced or revoked key. */
  async authenticate(key: string): Promise<Authenticated | null> {
    const keyId = keyIdOf(key);
    if (!keyId) return null;
    const credential = (await this.users.findCredential(keyId)) ?? (await this.keys.findCredential(keyId));
    if (!credential || !keyMatches(key, credential.apiKeyHash)) return null;
    if (credential.user.disabledAt !== null) return null;
    await this.markUsed(keyId);
    return { user: credential.user, readOnly: credential.readOnly };
  }

  list(user: UserRecord): Promise<ApiKeyRecord[]> {
    return this.keys.list(user.id);
  }

  /** A new named key of the user; the key itself is in the answer only. */
  async create(
    user: UserRecord,
    input: { name: string; readOnly: boolean },
  ): Promise<{ record: ApiKeyRecord; key: string }> {
    const name = input.name.trim();
    if (name === "") throw ValidationError.single("name", "The name field is required.");
    if (codeUnits(name) > KEY_NAME_MAX) throw ValidationError.single("name", tooLong("name", KEY_NAME_MAX));
    if (hasControlCharacter(name)) throw ValidationError.single("name", holdsControl("name"));
    const issued = issueApiKey();
    const record = await this.keys.create({
      keyId: issued.keyId,
      userId: user.id,
      name,
      keyHash: issued.keyHash,
      readOnly: input.readOnly,
      now: this.clock.now(),
    });
    return { record, key: issued.key };
  }

  /** Revokes one of the user's further keys at once; the primary key is replaced with `keys rotate`. */
  async revoke(user: UserRecord, keyId: string): Promise<void> {
    if (!(await this.keys.delete(user.id, keyId))) throw new NotFoundError();
    this.marked.delete(keyId);
  }

  private async markUsed(keyId: string): Promise<void> {
    const now = this.clock.now();
    const last = this.marked.get(keyId);
    if (last !== undefined && now.getTime() - last < MARK_EVERY_MS) return;
    this.marked.delete(keyId);
    this.marked.set(keyId, now.getTime());
    if (this.marked.size > MARKS_KEPT) this.marked.delete(this.marked.keys().next().value as string);
    await this.keys.markUsed(keyId, now);
  }
}
