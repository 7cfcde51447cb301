// API keys: long random tokens of the form `ak_<key id><secret>`. Only the key id (for
// lookup) and a SHA-256 of the whole key are stored; the presented key's hash is compared
// to the stored one in constant time. A fast hash is right here: the key has 256 bits of
// entropy, so there is nothing for a slow hash to protect.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const KEY_PATTERN = /^ak_([0-9a-f]{16})([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  /** The key to hand to the user, shown once. */
  key: string;
  keyId: string;
  keyHash: string;
}

export function issueApiKey(): IssuedKey {
  const keyId = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  const key = `ak_${keyId}${secret}`;
  return { key, keyId, keyHash: hashKey(key) };
}

/** The key id of a well-formed key, or null for anything else. */
export function keyIdOf(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

export function keyMatches(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashKey(key), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
