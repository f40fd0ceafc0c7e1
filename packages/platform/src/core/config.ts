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
  /**
   * Server secrets replaced by `secretKey` and still accepted for reading while what they sealed is sealed
   * again (docs/deploy.md "Rotating keys", D112): sealed values open, refresh tokens they signed verify.
   * Never logged.
   */
  previousSecretKeys?: readonly string[];
  /** How signing keys rotate while running (identity/signing-keys.ts); absent values take the defaults. */
  signingKeys?: Readonly<Partial<SigningKeyTuning>>;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Largest accepted request body (1 MiB). */
  bodyLimitBytes: number;
  /**
   * The console shows a secret without asking for the password again only this long after the seller signed in
   * (D98); later, the reveal asks for the password (the sign-in's own check and throttle). Absent (a config
   * built without platformConfig): DEFAULT_SECRET_REVEAL_REAUTH_SECONDS.
   */
  secretRevealReauthSeconds?: number;
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
   * The operator's technical contact e-mail, sent in the User-Agent of every call to a freight gateway's own
   * API (`Feira (ops@example.com)`): Melhor Envio requires `Application (contact e-mail)` on every request.
   * Absent: the User-Agent names no contact, and such gateways may refuse the calls.
   */
  gatewayContactEmail?: string;
  /**
   * The deadline of a call to a freight gateway's own API (connect, headers and body together, no retry), in ms,
   * within GATEWAY_TIMEOUT_BOUNDS_MS; absent: the seller API's 1.0 s (QUOTE_TIMEOUT_MS). D107.
   */
  gatewayTimeoutMs?: number;
  /**
   * The bounds of a freight-table upload (shipping/freight/upload-limits.ts says each one's default and why),
   * each a row of the CLI's settings table; absent values take the defaults.
   */
  uploads?: Readonly<Partial<UploadLimits>>;
  /**
   * The API rate limit of an app that has none of its own, per store (spec-notes I20): a token bucket
   * refilled at `requestsPerSecond` holding `burst` requests. The operator sets an app's own limit
   * through the admin API or console.
   */
  apiRateLimit: Readonly<{ requestsPerSecond: number; burst: number }>;
  /**
   * How long what grows with use is kept, and how the background sweep runs (storage/retention-sweeper.ts);
   * each a row of the CLI's settings table. Absent values take `DEFAULT_RETENTION`.
   */
  retention?: Readonly<Partial<RetentionPolicy>>;
}

/**
 * What one tenant's spreadsheet upload may cost the process: every bound is checked as the bytes
 * arrive or inflate, before anything is held whole (docs/security.md, "Tenant isolation").
 */
export interface UploadLimits {
  /** Bytes of a CSV body (streamed, never held whole). */
  csvBytes: number;
  /** Bytes of an .xlsx body (held in memory while its zip is read, so smaller than a CSV's). */
  workbookBytes: number;
  /** Inflated bytes of any one part (file) of a workbook's zip. */
  partInflatedBytes: number;
  /** Inflated bytes per compressed byte of any one part, checked once the part passes 1 MiB inflated. */
  compressionRatio: number;
  /** Strings in a workbook's shared-strings part. */
  sharedStrings: number;
  /** Bytes of text of all the shared strings together. */
  sharedStringsBytes: number;
  /** Characters of one CSV cell; bytes of one workbook cell's XML text (a value, a formula, a shared string). */
  cellChars: number;
  /** Cells of one row (columns of the header included). */
  columns: number;
  /** Rows of a spreadsheet, the header included. */
  rows: number;
  /** MiB of heap the thread reading one workbook may use. */
  workbookHeapMb: number;
  /** Seconds the thread reading one workbook may run. */
  workbookSeconds: number;
  /** Uploads per second one store's bucket refills at (every process shares it, as an app's API bucket). */
  storeUploadsPerSecond: number;
  /** Uploads one store's bucket holds: the most it may send at once. */
  storeUploadBurst: number;
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

/** What an operator may tune of signing-key rotation (docs/deploy.md "Rotating keys"). */
export interface SigningKeyTuning {
  /** Seconds a new key is published in the JWKS before it signs: at least the JWKS's max-age (300) plus `refreshSeconds`. */
  publishDelaySeconds: number;
  /** Seconds between two reads of whether a key was added, in every process. */
  refreshSeconds: number;
}

/**
 * A new key waits 10 minutes before it signs: past the JWKS's `max-age` (300 s) that clients cache it for, and
 * several of every process's reloads (one a minute).
 */
export const DEFAULT_SIGNING_KEYS: SigningKeyTuning = Object.freeze({ publishDelaySeconds: 600, refreshSeconds: 60 });

/** Where each freight gateway's API is reached (no trailing slash). */
export interface GatewayBaseUrls {
  melhorEnvio: string;
  frenet: string;
}

/**
 * What a gateway call's deadline may be set to (D107): a storefront quote and the checkout's re-quote wait
 * for it, so it stays within what a buyer waits for shipping prices at checkout.
 */
export const GATEWAY_TIMEOUT_BOUNDS_MS = Object.freeze({ min: 200, max: 3000 });

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
export const DEFAULT_SECRET_REVEAL_REAUTH_SECONDS = 300;
/**
 * spec-notes I20's default (docs/decisions.md D97 says why these): a steady sync walking list pages and a
 * burst as large as an app's start-up sweep, per store; the operator raises it per app.
 */
export const DEFAULT_API_RATE_LIMIT = Object.freeze({ requestsPerSecond: 10, burst: 100 });

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
    secretRevealReauthSeconds: DEFAULT_SECRET_REVEAL_REAUTH_SECONDS,
    apiRateLimit: DEFAULT_API_RATE_LIMIT,
    ...input,
    publicUrl,
    authUrl: (input.authUrl ?? publicUrl).replace(/\/+$/, ''),
  });
}
