/**
 * Platform configuration, validated and frozen. It is read from flags and
 * environment in exactly one place (the CLI's config loader) and built by
 * `platformConfig`; everything else receives this object.
 */
export interface PlatformConfig {
  /** `sandbox` (local development: loopback and http allowed for outbound calls) or `strict` (production rules). */
  mode: 'sandbox' | 'strict';
  /** {base_url}: public URL of the platform API, no trailing slash. */
  publicUrl: string;
  /** {auth_url}: public URL of the identity provider (spec-notes I1); the same as publicUrl in the sandbox. */
  authUrl: string;
  /** Bearer token of the admin API. */
  adminToken: string;
  /** Server secret: seals signing keys and webhook secrets at rest, signs cookies and cursors. Never logged. */
  secretKey: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Largest accepted request body (1 MiB). */
  bodyLimitBytes: number;
  /** When set, `GET /metrics` requires `Authorization: Bearer <metricsToken>` (docs/security.md). Never logged. */
  metricsToken?: string;
  /**
   * Reverse proxies whose `X-Forwarded-For` names the client (addresses, CIDR ranges, `loopback`…;
   * http/trusted-proxies.ts). Empty or absent: the socket's address is the client's.
   */
  trustProxy?: readonly string[];
  /**
   * What an operator may tune of the webhook dispatcher (the CLI's settings table declares each one:
   * flag, environment variable, default, bounds); absent values take the dispatcher's defaults.
   */
  dispatcher?: Readonly<Partial<DispatcherTuning>>;
  /**
   * Base URLs of the freight gateways' APIs (shipping/methods/gateways/), each a row of the CLI's settings table;
   * absent: the gateway's production host. A sandbox host or a test server stands in here.
   */
  gateways?: Readonly<Partial<GatewayBaseUrls>>;
  /**
   * How long what grows with use is kept, and how the background sweep runs (storage/retention-sweeper.ts);
   * each a row of the CLI's settings table. Absent values take `DEFAULT_RETENTION`.
   */
  retention?: Readonly<Partial<RetentionPolicy>>;
}

/**
 * What an operator may tune of retention (docs/deploy.md "Retention"). A period of 0 keeps those rows for ever.
 * Nothing still needed is ever swept, whatever the periods: a delivery that may still be retried, an event a
 * delivery still points at, a token, code or session before its expiry.
 */
export interface RetentionPolicy {
  /** Days a webhook delivery (with its attempts) is kept after it succeeded or died. */
  deliveryDays: number;
  /** Days a quote call stays in the quote log. */
  quoteCallDays: number;
  /** Hours a dispatched outbox event is kept at least; it stays while any delivery of it is kept. */
  outboxHours: number;
  /** Hours authorization codes, refresh tokens, login and operator sessions and throttle rows are kept after they expired. */
  expiredHours: number;
  /** Rows deleted per statement. */
  batchRows: number;
  /** Seconds between two sweeps. */
  intervalSeconds: number;
}

/** Defaults an operator would pick: a month of delivery and quote history, credentials gone a day after their end. */
export const DEFAULT_RETENTION: RetentionPolicy = Object.freeze({
  deliveryDays: 30,
  quoteCallDays: 30,
  outboxHours: 24,
  expiredHours: 24,
  batchRows: 500,
  intervalSeconds: 300,
});

/** Where each freight gateway's API is reached (no trailing slash). */
export interface GatewayBaseUrls {
  melhorEnvio: string;
  frenet: string;
}

/** The gateways' production hosts (their public documentation). */
export const DEFAULT_GATEWAY_BASE_URLS: GatewayBaseUrls = Object.freeze({
  melhorEnvio: 'https://melhorenvio.com.br',
  frenet: 'https://api.frenet.com.br',
});

/** The dispatcher's operator-facing knobs (webhooks/webhook-dispatcher.ts says what each does). */
export interface DispatcherTuning {
  /** Requests in flight (or queued) in one dispatcher, over all receivers. */
  maxInFlight: number;
  /** Requests in flight per receiver origin. */
  perEndpointInFlight: number;
  /** Outbox events fanned out, and deliveries claimed, per query. */
  batchSize: number;
  /** The longest wait of an idle dispatcher before it looks again (new events wake it sooner). */
  maxPollIntervalMs: number;
  /** How long a claim stays exclusive unless renewed: after a crash, deliveries wait at most this long. */
  leaseMs: number;
}

export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 7200;
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** What a config must be given; everything else has a default. */
export type PlatformConfigInput = Pick<PlatformConfig, 'mode' | 'publicUrl' | 'adminToken' | 'secretKey'> &
  Partial<PlatformConfig>;

/**
 * The one place a `PlatformConfig` is assembled (the server, `feira dispatch`
 * and the test kit all call it): defaults filled in, URLs without a trailing
 * slash, the auth URL the public URL unless given (spec-notes I1), frozen.
 */
export function platformConfig(input: PlatformConfigInput): PlatformConfig {
  const publicUrl = input.publicUrl.replace(/\/+$/, '');
  return Object.freeze({
    accessTokenTtlSeconds: DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
    ...input,
    publicUrl,
    authUrl: (input.authUrl ?? publicUrl).replace(/\/+$/, ''),
  });
}
