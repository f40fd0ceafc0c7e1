import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { sha256Hex } from '../core/hashing.js';
import { randomToken } from '../core/random.js';
import { CSRF_TOKEN_BYTES, maskCsrfToken, maskedCsrfMatches } from '../http/csrf-mask.js';
import type { Schema } from '../storage/schema.js';

/**
 * The seller's login session between flows: a
 * server-side row in `login_sessions`, named by a random 256-bit id that the
 * cookie carries (signed with the server secret by @fastify/cookie, HttpOnly,
 * SameSite=Lax, Secure when the identity provider is served over https). The
 * row is stored under the id's SHA-256 and checked on every use, so logout,
 * a password change or an admin ending the seller's sessions takes effect at
 * once: a copied cookie is refused afterwards. The absolute expiry is compared
 * with the injected clock.
 */
const SESSION_COOKIE = 'feira_session';
/** Double-submit CSRF token: the form field must carry this signed, HttpOnly cookie's token, masked (http/csrf-mask.ts). */
const CSRF_COOKIE = 'feira_csrf';
const SESSION_TTL_SECONDS = 12 * 3600;

function cookieOptions(request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.server.platform.config.authUrl.startsWith('https:'),
    signed: true,
  };
}

function readSigned(request: FastifyRequest, name: string): string | null {
  const raw = request.cookies[name];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid ? unsigned.value : null;
}

/** The session id in the request's signed cookie, if any. */
function sessionIdOf(request: FastifyRequest): string | null {
  const value = readSigned(request, SESSION_COOKIE);
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

/** The logged-in seller's id, or null when the cookie names no live, unexpired session. */
export async function sessionSellerId(request: FastifyRequest): Promise<string | null> {
  return (await currentSession(request))?.sellerId ?? null;
}

/** The live session the cookie names: whose it is and when the seller signed in (an ID token's `auth_time`). */
export async function currentSession(request: FastifyRequest): Promise<{ sellerId: string; startedAt: string } | null> {
  const id = sessionIdOf(request);
  if (!id) return null;
  const { database, clock } = request.server.platform;
  const row = await database.db
    .selectFrom('login_sessions')
    .select(['seller_id', 'created_at'])
    .where('id_hash', '=', sha256Hex(id))
    .where('ended_at', 'is', null)
    .where('expires_at', '>', clock.now().toISOString())
    .executeTakeFirst();
  return row ? { sellerId: row.seller_id, startedAt: row.created_at } : null;
}

export async function startSession(request: FastifyRequest, reply: FastifyReply, sellerId: string): Promise<void> {
  const { database, clock, random } = request.server.platform;
  const now = clock.now();
  // A session the browser already had ends: a login always gets a fresh id (no session fixation).
  await endCurrentSession(request, 'replaced');
  const id = randomToken(random, 32);
  await database.db
    .insertInto('login_sessions')
    .values({
      id_hash: sha256Hex(id),
      seller_id: sellerId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000).toISOString(),
      ended_at: null,
      ended_reason: null,
    })
    .execute();
  reply.setCookie(SESSION_COOKIE, id, cookieOptions(request));
  // A new CSRF token on login, so a token seen before login is not the one used after it.
  reply.setCookie(CSRF_COOKIE, randomToken(random, CSRF_TOKEN_BYTES), cookieOptions(request));
}

async function endCurrentSession(request: FastifyRequest, reason: string): Promise<void> {
  const id = sessionIdOf(request);
  if (!id) return;
  const { database, clock } = request.server.platform;
  await database.db
    .updateTable('login_sessions')
    .set({ ended_at: clock.now().toISOString(), ended_reason: reason })
    .where('id_hash', '=', sha256Hex(id))
    .where('ended_at', 'is', null)
    .execute();
}

/** Logout: the session row ends (so a copy of the cookie is refused too) and the cookie is cleared. */
export async function endSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await endCurrentSession(request, 'logout');
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/**
 * Ends every live login session of a seller: after a password
 * change (`reason` 'password_changed'), or when the seller or an admin wants
 * every browser signed out. Returns how many ended.
 */
export async function endSellerSessions(
  db: Kysely<Schema>,
  sellerId: string,
  input: { now: Date; reason: string },
): Promise<number> {
  const result = await db
    .updateTable('login_sessions')
    .set({ ended_at: input.now.toISOString(), ended_reason: input.reason })
    .where('seller_id', '=', sellerId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The CSRF token to put in this page's forms, masked with a fresh pad so no two
 * answers carry the same bytes (BREACH, D98); sets the cookie when the browser has none yet.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  const { random } = request.server.platform;
  const existing = readSigned(request, CSRF_COOKIE);
  if (existing) return maskCsrfToken(existing, random);
  const token = randomToken(random, CSRF_TOKEN_BYTES);
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(request));
  return maskCsrfToken(token, random);
}

/** True when the form's `csrf` field (or the X-CSRF-Token header) is the signed cookie's token, masked; compared in constant time. */
export function csrfTokenValid(request: FastifyRequest, formToken: unknown): boolean {
  return maskedCsrfMatches(formToken, readSigned(request, CSRF_COOKIE));
}
