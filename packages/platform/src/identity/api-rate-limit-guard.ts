import { RATE_LIMIT_POLICY_NAME } from '@feira/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ApiRateDecision, rememberedApiRefusal, takeApiRequestOfLiveFamily } from '../accounts/index.js';
import type { PlatformError } from '../core/platform-error.js';
import { refuse } from '../core/refusals.js';
import type { TokenClaims } from './token-signer.js';

/**
 * spec-notes I20: every request an app makes with its access token takes one
 * request from the bucket of (app, store) it acts for, before the route runs.
 * Every answer after this point, success or refusal, carries the limit as
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11,
 * one policy named "app"); over it the answer is 429 `RATE_LIMITED` with
 * `Retry-After` (RFC 9110 §10.2.3). The same statement reads whether the
 * token's family is live (spec-notes I6): a revoked token takes nothing and
 * is refused 401 (D162).
 */
export async function admitApiRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  claims: Pick<TokenClaims, 'client_id' | 'fid'>,
  bucket: string,
): Promise<void> {
  const { platform } = request.server;
  const taken = await takeApiRequestOfLiveFamily(
    platform.database,
    { clientId: claims.client_id, bucket },
    claims.fid,
    platform.config.apiRateLimit,
    platform.clock.now(),
  );
  if (!taken) throw refuse('IDENTITY_TOKEN_REVOKED');
  reply.headers(rateLimitHeaders(taken));
  if (!taken.admitted) throw overTheLimit(taken);
}

/**
 * The same 429 as {@link admitApiRequest}, answered before any database work
 * of the request when this process remembers the bucket refusing (D123): a
 * flood past its limit then costs no statement at all, not even the token's
 * revocation read. A bucket not remembered refusing is left to
 * {@link admitApiRequest}, after every other check.
 */
export async function refuseRememberedApiRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  clientId: string,
  bucket: string,
): Promise<void> {
  const { platform } = request.server;
  const refused = await rememberedApiRefusal(platform.database, { clientId, bucket }, () => platform.clock.now());
  if (!refused) return;
  reply.headers(rateLimitHeaders(refused));
  throw overTheLimit(refused);
}

function overTheLimit(taken: ApiRateDecision): PlatformError {
  return refuse('IDENTITY_API_RATE_LIMITED', {
    requestsPerSecond: taken.limit.requestsPerSecond,
    burst: taken.limit.burst,
    retryAfter: taken.retryAfterSeconds,
  });
}

/**
 * The draft's two fields for a token bucket: the quota is the bucket (`q` = burst) over the time it takes
 * to refill whole (`w`, whole seconds, rounded up); `r` is what is left now and `t` the seconds until full.
 */
function rateLimitHeaders(taken: ApiRateDecision): Record<string, string> {
  const { limit } = taken;
  const window = Math.max(1, Math.ceil(limit.burst / limit.requestsPerSecond));
  return {
    'ratelimit-policy': `"${RATE_LIMIT_POLICY_NAME}";q=${limit.burst};w=${window}`,
    ratelimit: `"${RATE_LIMIT_POLICY_NAME}";r=${taken.remaining};t=${taken.resetSeconds}`,
  };
}
