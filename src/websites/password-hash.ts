// Website passwords are stored only as salted scrypt hashes (Node's built-in scrypt):
// `scrypt$N$r$p$salt$key`, the parameters recorded in each hash, so new hashes take a
// higher cost while hashes stored under an older one still verify with their own.

import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * The cost of new hashes: N = 2^17, as current guidance asks (each takes 128 MiB of memory
 * and, on a 2-core test machine, about half a second of one core); hashes made before with
 * N = 2^14 keep verifying with theirs.
 */
export const PASSWORD_HASH_PARAMS = { N: 131_072, r: 8, p: 1 };
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

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = PASSWORD_HASH_PARAMS;
  const key = await derive(password, salt, PASSWORD_HASH_PARAMS);
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
