import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../core/hashing.js';
import { randomToken } from '../core/random.js';

/**
 * The seller's login session between flows (issue 3 §2): a cookie signed with
 * the server secret by @fastify/cookie, HttpOnly, SameSite=Lax, Secure when the
 * identity provider is served over https. It holds only the seller id and an
 * absolute expiry compared with the injected clock.
 */
export const SESSION_COOKIE = 'feira_session';
/** Double-submit CSRF token: the form field must equal this signed, HttpOnly cookie. */
export const CSRF_COOKIE = 'feira_csrf';
export const SESSION_TTL_SECONDS = 12 * 3600;

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

/** The logged-in seller's id, or null when there is no valid, unexpired session. */
export function sessionSellerId(request: FastifyRequest): string | null {
  const value = readSigned(request, SESSION_COOKIE);
  if (!value) return null;
  const [sellerId, expiresAtMs] = value.split('|');
  if (!sellerId || !expiresAtMs || !/^\d+$/.test(expiresAtMs)) return null;
  if (Number(expiresAtMs) <= request.server.platform.clock.now().getTime()) return null;
  return sellerId;
}

export function startSession(request: FastifyRequest, reply: FastifyReply, sellerId: string): void {
  const expiresAtMs = request.server.platform.clock.now().getTime() + SESSION_TTL_SECONDS * 1000;
  reply.setCookie(SESSION_COOKIE, `${sellerId}|${expiresAtMs}`, cookieOptions(request));
  // A new CSRF token on login, so a token seen before login is not the one used after it.
  reply.setCookie(CSRF_COOKIE, randomToken(request.server.platform.random, 32), cookieOptions(request));
}

export function endSession(_request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** The CSRF token to put in this page's forms; sets the cookie when the browser has none yet. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readSigned(request, CSRF_COOKIE);
  if (existing) return existing;
  const token = randomToken(request.server.platform.random, 32);
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(request));
  return token;
}

/** True when the form's `csrf` field equals the signed cookie (compared in constant time). */
export function csrfTokenValid(request: FastifyRequest, formToken: unknown): boolean {
  const cookieToken = readSigned(request, CSRF_COOKIE);
  return typeof formToken === 'string' && cookieToken !== null && constantTimeEqual(formToken, cookieToken);
}
