import { QUOTE_TIMEOUT_MS, RATE_LIMIT_BOUNDS } from '@feira/contract';
import { type Static, type TLiteral, type TObject, type TSchema, Type } from '@sinclair/typebox';

/** The commands a setting is an option of. */
export type SettingCommand = 'start' | 'dispatch';

/**
 * How a value given as text becomes the setting's value, when its schema's type,
 * bounds and pattern do not say it all (the entry point that reads flags holds
 * one reader per kind: a file read, a list split, a URL checked against the mode).
 */
export type SettingReader =
  | 'database'
  | 'publicUrl'
  | 'gatewayUrl'
  | 'secret'
  | 'bearerSecret'
  | 'secretList'
  | 'proxies'
  | 'email'
  | 'pemFile'
  | 'switch';

/**
 * What a setting's schema carries besides its type and bounds: how an operator gives it.
 * Bounds are the schema's own `minimum`/`maximum`, the default its `default`.
 */
export interface SettingAnnotation {
  /** Commander's flag (`--port <port>`); none for a setting given by environment only (a secret). */
  flag?: string;
  /** Its environment variable; none for a switch given by flag only. */
  env?: string;
  help: string;
  commands: readonly SettingCommand[];
  /** The default as the help and docs say it, when it is not the value itself (a computed or absent default). */
  shown?: string;
  /** Whole seconds: the refusal says "a whole number of seconds". */
  unit?: 'seconds';
  /** What a value matching the schema's pattern is, for the refusal of one that does not. */
  expected?: string;
  reader?: SettingReader;
  /** Never repeated in a refusal. */
  secret?: boolean;
}

const START: readonly SettingCommand[] = ['start'];
const BOTH: readonly SettingCommand[] = ['start', 'dispatch'];

/** An integer setting within bounds. */
function integer(minimum: number, maximum: number, value: number, annotation: SettingAnnotation) {
  return Type.Integer({ minimum, maximum, default: value, ...annotation });
}

function oneOf<const T extends readonly string[]>(values: T, annotation: SettingAnnotation & { default?: T[number] }) {
  return Type.Union(values.map((value) => Type.Literal(value)) as Array<TLiteral<T[number]>>, annotation);
}

function text(annotation: SettingAnnotation & { pattern?: string; default?: string }) {
  return Type.String(annotation);
}

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

/**
 * What a gateway call's deadline may be set to (D107): a storefront quote and the checkout's re-quote wait
 * for it, so it stays within what a buyer waits for shipping prices at checkout.
 */
export const GATEWAY_TIMEOUT_BOUNDS_MS = Object.freeze({ min: 200, max: 3000 });

/** The gateways' production hosts (their public documentation). */
export const DEFAULT_GATEWAY_BASE_URLS = Object.freeze({
  melhorEnvio: 'https://melhorenvio.com.br',
  frenet: 'https://api.frenet.com.br',
});

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['pretty', 'json'] as const;

/** How signing keys rotate while running (docs/deploy.md "Rotating keys"; identity/signing-keys.ts). */
const SigningKeySettings = Type.Object({
  /**
   * A new key waits 10 minutes before it signs: past the JWKS's `max-age` (300 s) that clients cache it for, and
   * several of every process's reloads (one a minute).
   */
  publishDelaySeconds: integer(1, 7 * 86_400, 600, {
    flag: '--key-publish-delay-s <seconds>',
    env: 'FEIRA_KEY_PUBLISH_DELAY_S',
    help: 'signing keys: seconds a new key is in the JWKS before it signs (at least --key-refresh-s; keep it past the JWKS max-age, 300)',
    commands: START,
    unit: 'seconds',
  }),
  refreshSeconds: integer(1, 3600, 60, {
    flag: '--key-refresh-s <seconds>',
    env: 'FEIRA_KEY_REFRESH_S',
    help: 'signing keys: seconds between two reads of whether a key was added, in every process',
    commands: START,
    unit: 'seconds',
  }),
});

/**
 * The webhook dispatcher's operator-facing knobs (webhooks/webhook-dispatcher.ts says what each does). A worker
 * with room for a thousand leases fans out 500 events per transaction: fewer, larger commits, and a faster
 * SQLite drain than with 256 (docs/decisions.md D6).
 */
const DispatcherSettings = Type.Object({
  maxInFlight: integer(1, 100_000, 1_000, {
    flag: '--concurrency <n>',
    env: 'FEIRA_DISPATCH_CONCURRENCY',
    help: 'webhook dispatcher: requests in flight (or queued) in this process, over all receivers',
    commands: BOTH,
  }),
  perEndpointInFlight: integer(1, 10_000, 32, {
    flag: '--per-endpoint <n>',
    env: 'FEIRA_DISPATCH_PER_ENDPOINT',
    help: 'webhook dispatcher: requests in flight per receiver origin, so one slow receiver cannot hold up the others',
    commands: BOTH,
  }),
  batchSize: integer(1, 10_000, 500, {
    flag: '--dispatch-batch <n>',
    env: 'FEIRA_DISPATCH_BATCH',
    help: 'webhook dispatcher: outbox events fanned out, and deliveries claimed, per query',
    commands: BOTH,
  }),
  maxPollIntervalMs: integer(20, 60_000, 250, {
    flag: '--dispatch-idle-poll-ms <ms>',
    env: 'FEIRA_DISPATCH_IDLE_POLL_MS',
    help: 'webhook dispatcher: longest wait when idle before it looks for retries falling due (a new event wakes it at once)',
    commands: BOTH,
  }),
  leaseMs: integer(1_000, 3_600_000, 10_000, {
    flag: '--dispatch-lease-ms <ms>',
    env: 'FEIRA_DISPATCH_LEASE_MS',
    help: "webhook dispatcher: how long a claimed delivery stays its own unless renewed; a crashed dispatcher's deliveries wait this long",
    commands: BOTH,
  }),
});

/**
 * What one tenant's spreadsheet upload may cost the process: every bound is checked as the bytes arrive or
 * inflate, before anything is held whole (docs/security.md, "Tenant isolation"). The defaults leave room for
 * the largest table a seller sends on purpose (Excel's 1,048,576 rows, a CSV of a few million rows) and refuse
 * what only a hostile or broken file is: a part inflating far past its compressed size, a cell no freight row needs.
 */
const UploadSettings = Type.Object({
  csvBytes: integer(1_024, 4_294_967_296, 256 * 1024 * 1024, {
    flag: '--upload-max-csv-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_CSV_BYTES',
    help: 'freight upload: bytes of a CSV body (streamed, never held whole)',
    commands: START,
  }),
  workbookBytes: integer(1_024, 2_147_483_648, 128 * 1024 * 1024, {
    flag: '--upload-max-workbook-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_WORKBOOK_BYTES',
    help: 'freight upload: bytes of an .xlsx body (held while its zip is read)',
    commands: START,
  }),
  partInflatedBytes: integer(1_024, 4_294_967_295, 1024 * 1024 * 1024, {
    flag: '--upload-max-part-inflated-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_PART_INFLATED_BYTES',
    help: "freight upload: bytes any one part of a workbook's zip may inflate to",
    commands: START,
  }),
  compressionRatio: integer(2, 100_000, 100, {
    flag: '--upload-max-compression-ratio <n>',
    env: 'FEIRA_UPLOAD_MAX_COMPRESSION_RATIO',
    help: 'freight upload: inflated bytes per compressed byte of a workbook part (checked past 1 MiB inflated)',
    commands: START,
  }),
  sharedStrings: integer(1, 100_000_000, 3_000_000, {
    flag: '--upload-max-shared-strings <n>',
    env: 'FEIRA_UPLOAD_MAX_SHARED_STRINGS',
    help: "freight upload: strings in a workbook's shared strings",
    commands: START,
  }),
  sharedStringsBytes: integer(1_024, 4_294_967_295, 64 * 1024 * 1024, {
    flag: '--upload-max-shared-strings-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_SHARED_STRINGS_BYTES',
    help: 'freight upload: bytes of text of all the shared strings together',
    commands: START,
  }),
  // Excel's own longest cell; a freight cell keeps 200 characters at most.
  cellChars: integer(200, 10_000_000, 32_767, {
    flag: '--upload-max-cell-chars <n>',
    env: 'FEIRA_UPLOAD_MAX_CELL_CHARS',
    help: "freight upload: characters of one cell (a workbook's: bytes of its XML text)",
    commands: START,
  }),
  columns: integer(12, 16_384, 256, {
    flag: '--upload-max-columns <n>',
    env: 'FEIRA_UPLOAD_MAX_COLUMNS',
    help: 'freight upload: cells of one row',
    commands: START,
  }),
  rows: integer(2, 100_000_000, 4_000_000, {
    flag: '--upload-max-rows <n>',
    env: 'FEIRA_UPLOAD_MAX_ROWS',
    help: 'freight upload: rows of a spreadsheet, the header included',
    commands: START,
  }),
  workbookHeapMb: integer(16, 16_384, 512, {
    flag: '--upload-workbook-heap-mb <mib>',
    env: 'FEIRA_UPLOAD_WORKBOOK_HEAP_MB',
    help: 'freight upload: MiB of heap of the thread that reads one workbook',
    commands: START,
  }),
  workbookSeconds: integer(1, 86_400, 300, {
    flag: '--upload-workbook-seconds <s>',
    env: 'FEIRA_UPLOAD_WORKBOOK_SECONDS',
    help: 'freight upload: seconds the thread that reads one workbook may run',
    commands: START,
  }),
  // A seller uploads a few tables a day; a store sending more than one a second is not maintaining freight tables.
  storeUploadsPerSecond: integer(1, 100_000, 1, {
    flag: '--upload-store-rate <per-second>',
    env: 'FEIRA_UPLOAD_STORE_RATE',
    help: "freight upload: uploads per second a store's bucket refills at (shared by every process)",
    commands: START,
  }),
  storeUploadBurst: integer(1, 1_000_000, 5, {
    flag: '--upload-store-burst <n>',
    env: 'FEIRA_UPLOAD_STORE_BURST',
    help: "freight upload: uploads a store's bucket holds, the most it may send at once",
    commands: START,
  }),
});

/**
 * spec-notes I20's default (docs/decisions.md D97 says why these): a steady sync walking list pages and a
 * burst as large as an app's start-up sweep, per store; the operator raises it per app. The bounds are the
 * admin API's own.
 */
const ApiRateLimitSettings = Type.Object({
  requestsPerSecond: integer(RATE_LIMIT_BOUNDS.requests_per_second.minimum, RATE_LIMIT_BOUNDS.requests_per_second.maximum, 10, {
    flag: '--api-rate-limit <per-second>',
    env: 'FEIRA_API_RATE_LIMIT',
    help: "default API rate limit of an app, per store: requests per second its bucket refills at (an app's own limit is set with PATCH /admin/v1/clients/{client_id})",
    commands: START,
  }),
  burst: integer(RATE_LIMIT_BOUNDS.burst.minimum, RATE_LIMIT_BOUNDS.burst.maximum, 100, {
    flag: '--api-burst <n>',
    env: 'FEIRA_API_BURST',
    help: 'default API rate limit of an app, per store: requests its bucket holds, the most it may send at once',
    commands: START,
  }),
});

/**
 * How long what grows with use is kept (docs/deploy.md "Retention"); a period of 0 keeps those rows for ever.
 * Nothing still needed is ever swept, whatever the periods. The defaults: a month of delivery and quote history,
 * credentials gone a day after their end.
 */
const RetentionSettings = Type.Object({
  deliveryDays: integer(0, 3650, 30, {
    flag: '--retain-deliveries-days <days>',
    env: 'FEIRA_RETAIN_DELIVERIES_DAYS',
    help: 'retention: days a webhook delivery and its attempts are kept after it succeeded or died (0 keeps them)',
    commands: BOTH,
  }),
  quoteCallDays: integer(0, 3650, 30, {
    flag: '--retain-quote-calls-days <days>',
    env: 'FEIRA_RETAIN_QUOTE_CALLS_DAYS',
    help: 'retention: days a quote call stays in the quote log (0 keeps them)',
    commands: BOTH,
  }),
  outboxHours: integer(0, 87_600, 24, {
    flag: '--retain-outbox-hours <hours>',
    env: 'FEIRA_RETAIN_OUTBOX_HOURS',
    help: 'retention: hours a fanned-out event is kept at least; it stays while a delivery of it is kept (0 keeps them)',
    commands: BOTH,
  }),
  expiredHours: integer(0, 87_600, 24, {
    flag: '--retain-expired-hours <hours>',
    env: 'FEIRA_RETAIN_EXPIRED_HOURS',
    help: 'retention: hours authorization codes, refresh tokens, sessions and throttle rows are kept once expired (0 keeps them)',
    commands: BOTH,
  }),
  batchRows: integer(10, 10_000, 500, {
    flag: '--retention-batch <rows>',
    env: 'FEIRA_RETENTION_BATCH',
    help: 'retention: rows deleted per statement of the background sweep',
    commands: BOTH,
  }),
  intervalSeconds: integer(10, 86_400, 300, {
    flag: '--retention-interval-s <seconds>',
    env: 'FEIRA_RETENTION_INTERVAL_S',
    help: 'retention: seconds between two sweeps (one process sweeps at a time)',
    commands: BOTH,
  }),
});

/**
 * What the platform itself is configured with (PlatformConfig): each setting declared here once, with its flag,
 * environment variable, default and bounds; `feira start`, `feira dispatch`, `createPlatform` and the docs
 * table read it.
 */
export const PLATFORM_SETTINGS = Type.Object({
  mode: oneOf(['sandbox', 'strict'] as const, {
    flag: '--mode <sandbox|strict>',
    env: 'FEIRA_MODE',
    default: 'sandbox',
    help: 'strict refuses private webhook targets',
    commands: BOTH,
  }),
  publicUrl: optional(
    text({
      flag: '--public-url <url>',
      env: 'FEIRA_PUBLIC_URL',
      shown: 'the listen URL: https://<host>:<port> (http:// with --http)',
      help: 'URL clients use',
      commands: START,
      reader: 'publicUrl',
    }),
  ),
  adminToken: optional(
    text({
      flag: '--admin-token <token>',
      env: 'FEIRA_ADMIN_TOKEN',
      shown: 'generated once into <data-dir>/admin-token',
      help: 'bearer token of the admin API',
      commands: START,
      reader: 'bearerSecret',
      secret: true,
    }),
  ),
  // Environment only: a flag would show in process lists.
  secretKey: optional(
    text({
      env: 'FEIRA_SECRET_KEY',
      shown: 'generated once into <data-dir>/secret-key',
      help: 'server secret: seals signing keys and webhook secrets, signs cookies and cursors',
      commands: BOTH,
      reader: 'secret',
      secret: true,
    }),
  ),
  // Environment only, as the secret it replaces (D112).
  previousSecretKeys: Type.Array(Type.String(), {
    env: 'FEIRA_SECRET_KEY_PREVIOUS',
    default: [],
    shown: 'none',
    help: 'server secrets replaced by FEIRA_SECRET_KEY, comma-separated: still read until every sealed value is sealed again (feira keys status)',
    commands: BOTH,
    reader: 'secretList',
    secret: true,
  }),
  signingKeys: SigningKeySettings,
  metricsToken: optional(
    text({
      flag: '--metrics-token <token>',
      env: 'FEIRA_METRICS_TOKEN',
      shown: 'none (/metrics open)',
      help: 'bearer token GET /metrics requires (Prometheus: authorization.credentials)',
      commands: START,
      reader: 'bearerSecret',
      secret: true,
    }),
  ),
  trustProxy: Type.Array(Type.String(), {
    flag: '--trust-proxy <addresses>',
    env: 'FEIRA_TRUST_PROXY',
    default: [],
    shown: 'none (the connecting address is the client)',
    help: 'reverse proxies whose X-Forwarded-For names the client: addresses, CIDR ranges or loopback, comma-separated',
    commands: START,
    reader: 'proxies',
  }),
  secretRevealReauthSeconds: integer(0, 86_400, 300, {
    flag: '--reveal-reauth-seconds <s>',
    env: 'FEIRA_REVEAL_REAUTH_SECONDS',
    help: 'console: a secret shown longer than this after the seller signed in asks for their password again (0: always)',
    commands: START,
    unit: 'seconds',
  }),
  dispatcher: DispatcherSettings,
  gateways: Type.Object({
    melhorEnvio: optional(
      text({
        flag: '--melhor-envio-url <url>',
        env: 'FEIRA_MELHOR_ENVIO_URL',
        shown: DEFAULT_GATEWAY_BASE_URLS.melhorEnvio,
        help: "base URL of Melhor Envio's API, for stores whose gateway kind is melhor_envio (its sandbox: https://sandbox.melhorenvio.com.br)",
        commands: START,
        reader: 'gatewayUrl',
      }),
    ),
    frenet: optional(
      text({
        flag: '--frenet-url <url>',
        env: 'FEIRA_FRENET_URL',
        shown: DEFAULT_GATEWAY_BASE_URLS.frenet,
        help: "base URL of Frenet's API, for stores whose gateway kind is frenet",
        commands: START,
        reader: 'gatewayUrl',
      }),
    ),
  }),
  gatewayContactEmail: optional(
    text({
      flag: '--gateway-contact-email <email>',
      env: 'FEIRA_GATEWAY_CONTACT_EMAIL',
      shown: 'none (User-Agent: Feira)',
      help: 'your technical contact, sent as `User-Agent: Feira (<email>)` on every freight-gateway call: Melhor Envio requires it',
      commands: START,
      reader: 'email',
    }),
  ),
  gatewayTimeoutMs: integer(GATEWAY_TIMEOUT_BOUNDS_MS.min, GATEWAY_TIMEOUT_BOUNDS_MS.max, QUOTE_TIMEOUT_MS, {
    flag: '--gateway-timeout-ms <ms>',
    env: 'FEIRA_GATEWAY_TIMEOUT_MS',
    help: `deadline of a call to a freight gateway's API (connect to last byte, no retry), ${GATEWAY_TIMEOUT_BOUNDS_MS.min}-${GATEWAY_TIMEOUT_BOUNDS_MS.max} ms: a buyer at checkout waits for it`,
    commands: START,
  }),
  uploads: UploadSettings,
  apiRateLimit: ApiRateLimitSettings,
  retention: RetentionSettings,
});

/**
 * The settings of the process around the platform (`feira start`, `feira dispatch`): where it listens, which
 * database and data folder, its logs, the demo.
 */
const PROCESS_SETTINGS = Type.Object({
  port: integer(0, 65_535, 8080, {
    flag: '--port <port>',
    env: 'FEIRA_PORT',
    help: 'TCP port; 0 picks a free one',
    commands: START,
  }),
  host: text({
    flag: '--host <host>',
    env: 'FEIRA_HOST',
    default: '127.0.0.1',
    pattern: '^[A-Za-z0-9.:[\\]-]+$',
    expected: 'a host name or IP address',
    help: 'interface to listen on',
    commands: START,
  }),
  database: optional(
    text({
      flag: '--database <url>',
      env: 'FEIRA_DATABASE',
      shown: 'sqlite:<data-dir>/feira.db',
      help: 'sqlite:<path> or a postgres:// URL',
      commands: BOTH,
      reader: 'database',
      // A PostgreSQL URL may carry its password.
      secret: true,
    }),
  ),
  dataDir: text({
    flag: '--data-dir <path>',
    env: 'FEIRA_DATA_DIR',
    default: './.feira',
    help: 'where generated secrets are kept',
    commands: BOTH,
  }),
  seed: oneOf(['demo', 'none'] as const, {
    flag: '--seed <demo|none>',
    env: 'FEIRA_SEED',
    default: 'demo',
    help: 'demo data on an empty database',
    commands: START,
  }),
  http: Type.Boolean({
    flag: '--http',
    env: 'FEIRA_HTTP',
    default: false,
    shown: 'off: the sandbox serves HTTPS (strict mode: HTTP, TLS at your proxy)',
    help: "sandbox: serve plain HTTP rather than HTTPS with a certificate of the data folder's local CA (`npx feira trust`); FEIRA_HTTP=1",
    commands: START,
    reader: 'switch',
  }),
  logLevel: optional(
    oneOf(LOG_LEVELS, {
      flag: '--log-level <level>',
      env: 'FEIRA_LOG_LEVEL',
      shown: 'warn in sandbox mode, info in strict',
      help: 'level of the logs on stderr (request lines are info); silent for none',
      commands: START,
    }),
  ),
  logFormat: optional(
    oneOf(LOG_FORMATS, {
      flag: '--log-format <pretty|json>',
      env: 'FEIRA_LOG_FORMAT',
      shown: 'pretty on a terminal, else json',
      help: 'readable lines or pino JSON lines',
      commands: START,
    }),
  ),
  quotePort: integer(0, 65_535, 0, {
    flag: '--quote-port <port>',
    env: 'FEIRA_QUOTE_PORT',
    shown: '0 (a free port)',
    help: "port of the demo seller's shipping-quote endpoint",
    commands: START,
  }),
  outboundCa: optional(
    text({
      flag: '--outbound-ca <file>',
      env: 'FEIRA_OUTBOUND_CA',
      shown: "none (Node's trusted CAs, NODE_EXTRA_CA_CERTS included, and the data folder's local CA)",
      help: 'PEM file of CA certificates trusted for webhook deliveries and quote calls (e.g. your local HTTPS receiver)',
      commands: BOTH,
      reader: 'pemFile',
    }),
  ),
  demoGateway: oneOf(['none', 'melhor_envio'] as const, {
    flag: '--demo-gateway <none|melhor_envio>',
    env: 'FEIRA_DEMO_GATEWAY',
    default: 'none',
    help: 'sandbox: the first demo store quotes through a fake Melhor Envio started beside the platform',
    commands: START,
  }),
  workers: text({
    flag: '--workers <n|auto>',
    env: 'FEIRA_WORKERS',
    default: '1',
    pattern: '^(auto|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-6])$',
    expected: 'a whole number from 1 to 256, or auto',
    help: 'API processes sharing the port (auto: one per core); PostgreSQL only. Listening is printed once every one is ready',
    commands: START,
  }),
  dispatcher: Type.Boolean({
    flag: '--no-dispatcher',
    default: true,
    shown: 'a dispatcher runs in the (first) process',
    help: 'run no webhook dispatcher here (run `feira dispatch` elsewhere)',
    commands: START,
  }),
});

/** Every setting: the process's, then the platform's under `platform`. */
export const SETTINGS = Type.Object({ ...PROCESS_SETTINGS.properties, platform: PLATFORM_SETTINGS });

/** One setting of the schema: where its value goes, its schema (type, bounds, default) and how it is given. */
export interface SettingLeaf {
  /** Keys from the top of SETTINGS to the value (`['platform', 'dispatcher', 'perEndpointInFlight']`). */
  path: readonly string[];
  schema: TSchema & SettingAnnotation;
}

function leavesOf(schema: TObject, path: readonly string[]): SettingLeaf[] {
  return Object.entries(schema.properties).flatMap(([key, child]) => {
    const at = [...path, key];
    if (child.type === 'object' && 'properties' in child) return leavesOf(child as TObject, at);
    return [{ path: at, schema: child as TSchema & SettingAnnotation }];
  });
}

/** Every setting in the schema's order: what the commands' options and the docs table are generated from. */
export const SETTING_LEAVES: readonly SettingLeaf[] = Object.freeze(leavesOf(SETTINGS, []));

/** An object of the schema's defaults (settings without one are left out). */
function defaultsOf<T extends TObject>(schema: T): Static<T> {
  const value: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(schema.properties)) {
    if (child.type === 'object' && 'properties' in child) value[key] = defaultsOf(child as TObject);
    else if (child.default !== undefined) value[key] = child.default;
  }
  return Object.freeze(value) as Static<T>;
}

export type SigningKeyTuning = Static<typeof SigningKeySettings>;
export type DispatcherTuning = Static<typeof DispatcherSettings>;
export type UploadLimits = Static<typeof UploadSettings>;
export type RetentionPolicy = Static<typeof RetentionSettings>;
export type GatewayBaseUrls = typeof DEFAULT_GATEWAY_BASE_URLS;
export type PlatformSettings = Static<typeof PLATFORM_SETTINGS>;
export type ProcessSettings = Static<typeof PROCESS_SETTINGS>;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Every platform setting's default. */
export const DEFAULT_PLATFORM_SETTINGS: Readonly<PlatformSettings> = defaultsOf(PLATFORM_SETTINGS);
export const DEFAULT_SIGNING_KEYS = DEFAULT_PLATFORM_SETTINGS.signingKeys;
export const DEFAULT_DISPATCHER_TUNING = DEFAULT_PLATFORM_SETTINGS.dispatcher;
export const DEFAULT_UPLOAD_LIMITS = DEFAULT_PLATFORM_SETTINGS.uploads;
export const DEFAULT_RETENTION = DEFAULT_PLATFORM_SETTINGS.retention;
export const DEFAULT_API_RATE_LIMIT = DEFAULT_PLATFORM_SETTINGS.apiRateLimit;
export const DEFAULT_SECRET_REVEAL_REAUTH_SECONDS = DEFAULT_PLATFORM_SETTINGS.secretRevealReauthSeconds;
