// Website passwords are stored only as salted scrypt hashes (Node's built-in scrypt):
// `scrypt$N$r$p$salt$key`, the parameters recorded in each hash, so new hashes take a
// higher cost while hashes stored under an older one still verify with their own.

import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * The cost of new hashes: N = 2^17, as current guidance asks (each takes 128 MiB of memory
 * and, on a 2-core test machine, about half a second of one core); hashes made before with
 * N = 2^14 keep verifying with theirs.
 */
export const PASSWORD_HASH_PARAMS: HashCost = { N: 131_072, r: 8, p: 1 };

/** scrypt's cost parameters, recorded in each hash. */
export interface HashCost {
  N: number;
  r: number;
  p: number;
}
const KEY_LENGTH = 32;
/**
 * scrypt needs 128 * N * r bytes (128 MiB for the parameters above); Node refuses more than
 * 32 MiB unless told. Stored parameters that would need more than this are refused too.
 */
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { ...options, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** The stored form of a new password, hashed at `cost` (PASSWORD_HASH_PARAMS unless told). */
export async function hashPassword(password: string, cost: HashCost = PASSWORD_HASH_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return stored(cost, salt, key);
}

/**
 * A hash at `cost` that no password matches (a key of zeros): checked against when an email
 * has no password, so an unknown email takes as long as a wrong password.
 */
export function unmatchableHash(cost: HashCost = PASSWORD_HASH_PARAMS): string {
  return stored(cost, Buffer.alloc(16), Buffer.alloc(KEY_LENGTH));
}

function stored({ N, r, p }: HashCost, salt: Buffer, key: Buffer): string {
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** Whether `password` matches `stored`, hashed again with the parameters `stored` names. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key || rest.length > 0) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(params).every((value) => Number.isSafeInteger(value) && value > 0)) return false;
  if (128 * params.N * params.r > MAX_MEMORY) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
