import { createHash, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** scrypt's cost parameters; a hash carries its own, so a stored hash verifies under the ones it was made with. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

// scrypt parameters (N=2^15, r=8, p=1): OWASP's recommended minimum for scrypt.
const SCRYPT: ScryptCost = { N: 32768, r: 8, p: 1 };
const SCRYPT_MAXMEM = 64 * 1024 * 1024;

/**
 * Password hash `scrypt$N$r$p$salt$hash` (base64url). Passwords are never stored or logged in clear.
 * Every account the platform creates gets the default cost; only the test kit's planted sellers pass a lower one.
 */
export async function hashPassword(password: string, salt: Buffer, cost: ScryptCost = SCRYPT): Promise<string> {
  const hash = await scrypt(password, salt, 32, { ...cost, maxmem: SCRYPT_MAXMEM });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT_MAXMEM,
  });
  return timingSafeEqual(actual, expected);
}

/**
 * SHA-256 of a high-entropy token (client secrets, authorization codes, refresh
 * token ids). Enough for random 256-bit values, where a slow hash buys nothing.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time string equality; compares digests so lengths leak nothing either. */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}
