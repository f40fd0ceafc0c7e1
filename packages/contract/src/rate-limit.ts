import { type Static, Type } from '@sinclair/typebox';

/**
 * Per-app API rate limits (spec-notes I20): a token bucket per app and store,
 * refilled at `requests_per_second` and holding at most `burst` requests.
 * The bounds are the admin API's: a value outside them is a 422.
 */
export const RATE_LIMIT_BOUNDS = {
  requests_per_second: { minimum: 1, maximum: 100_000 },
  burst: { minimum: 1, maximum: 1_000_000 },
} as const;

/** What the operator sends in `PATCH /admin/v1/clients/{client_id}` as `rate_limit` (null: back to the default). */
export const RateLimitSetting = Type.Object(
  {
    requests_per_second: Type.Integer({
      ...RATE_LIMIT_BOUNDS.requests_per_second,
      description: 'Requests per second the bucket refills at, per store',
    }),
    burst: Type.Integer({
      ...RATE_LIMIT_BOUNDS.burst,
      description: 'Requests the bucket holds: how many may come at once after a quiet spell',
    }),
  },
  { additionalProperties: false },
);
export type RateLimitSetting = Static<typeof RateLimitSetting>;

/** An app's limit as the admin API shows it: the one in force, and whether it is the platform's default. */
export const RateLimitView = Type.Object(
  {
    requests_per_second: Type.Integer(),
    burst: Type.Integer(),
    source: Type.Union([Type.Literal('default'), Type.Literal('app')], {
      description: '`default`: the platform’s default limit applies; `app`: the operator set this app’s own',
    }),
  },
  { additionalProperties: false },
);
export type RateLimitView = Static<typeof RateLimitView>;

/** The name of the one quota policy the platform's `RateLimit-Policy` and `RateLimit` headers carry. */
export const RATE_LIMIT_POLICY_NAME = 'app';

/** What the `RateLimit` header (draft-ietf-httpapi-ratelimit-headers-11) of an answer says. */
export interface RateLimitState {
  /** Requests the client may still make now. */
  remaining: number;
  /** Seconds until the quota is whole again. */
  resetSeconds: number;
}

/**
 * Reads the platform policy's item of a `RateLimit` header value (a Structured Fields list of
 * items, each a string with `r` and `t` parameters); undefined when absent or not understood.
 */
export function parseRateLimitHeader(value: string | null | undefined): RateLimitState | undefined {
  if (!value) return undefined;
  for (const member of value.split(',')) {
    const [name, ...params] = member.trim().split(';');
    if (name?.trim() !== `"${RATE_LIMIT_POLICY_NAME}"`) continue;
    const found = new Map(params.map((param) => param.trim().split('=') as [string, string]));
    const remaining = Number(found.get('r'));
    const resetSeconds = Number(found.get('t'));
    if (Number.isInteger(remaining) && Number.isInteger(resetSeconds)) return { remaining, resetSeconds };
  }
  return undefined;
}
