import type { FastifyReply, FastifyRequest } from 'fastify';
import { endOperatorSession, operatorSessionLive, startOperatorSession } from '../accounts/index.js';
import { constantTimeEqual, sha256Hex } from '../core/hashing.js';
import { randomToken } from '../core/random.js';
import { reserveAttempt, settleAttempt, type ThrottlePolicy, throttleAddress } from '../identity/index.js';

/**
 * The operator's console session: the admin token, typed once into
 * the operator sign-in form, becomes a server-side session named by a random
 * 256-bit id in its own cookie (`feira_operator`: signed, HttpOnly,
 * SameSite=Strict, Secure over https). A seller's login session never grants
 * it: the two cookies and tables are separate, and every operator route asks
 * for this one. Sessions last 8 hours; sign-out ends the row, so a copied
 * cookie is refused afterwards.
 */
const OPERATOR_COOKIE = 'feira_operator';
const OPERATOR_SESSION_TTL_SECONDS = 8 * 3600;
/** Wrong admin tokens per client address: 10 a minute, then a back-off up to 15 minutes. */
const OPERATOR_SIGNIN_POLICY: ThrottlePolicy = {
  allowance: 10,
  windowSeconds: 60,
  backoff: { freeFailures: 5, maxBlockSeconds: 15 * 60 },
};

function cookieOptions(request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.server.platform.config.authUrl.startsWith('https:'),
    signed: true,
  };
}

function sessionIdOf(request: FastifyRequest): string | null {
  const raw = request.cookies[OPERATOR_COOKIE];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value && /^[A-Za-z0-9_-]{43}$/.test(unsigned.value) ? unsigned.value : null;
}

/** True when the request carries a live operator session. */
export async function isOperator(request: FastifyRequest): Promise<boolean> {
  const id = sessionIdOf(request);
  if (!id) return false;
  const { database, clock } = request.server.platform;
  return operatorSessionLive(database.db, sha256Hex(id), clock.now().toISOString());
}

export type OperatorSignIn = { kind: 'ok' } | { kind: 'wrong' } | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * Checks a typed admin token (constant time) under the per-address throttle
 * and, when it is right, starts a session (any session the browser had ends).
 */
export async function signInOperator(request: FastifyRequest, reply: FastifyReply, token: string): Promise<OperatorSignIn> {
  const { database, clock, random, config } = request.server.platform;
  const keys = [{ key: `operator-address:${throttleAddress(request.ip)}`, policy: OPERATOR_SIGNIN_POLICY }];
  const reservation = await reserveAttempt(database.db, keys, clock.now());
  if (!reservation.admitted) return { kind: 'throttled', retryAfterSeconds: reservation.retryAfterSeconds };
  const right = token.length > 0 && constantTimeEqual(token, config.adminToken);
  await settleAttempt(database.db, reservation, right ? 'success' : 'failure', clock.now());
  if (!right) return { kind: 'wrong' };
  await signOutOperator(request, reply);
  const id = randomToken(random, 32);
  const now = clock.now();
  await startOperatorSession(database.db, {
    idHash: sha256Hex(id),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + OPERATOR_SESSION_TTL_SECONDS * 1000).toISOString(),
  });
  reply.setCookie(OPERATOR_COOKIE, id, cookieOptions(request));
  return { kind: 'ok' };
}

export async function signOutOperator(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = sessionIdOf(request);
  if (!id) return;
  const { database, clock } = request.server.platform;
  await endOperatorSession(database.db, sha256Hex(id), clock.now().toISOString());
  reply.clearCookie(OPERATOR_COOKIE, { path: '/' });
}
