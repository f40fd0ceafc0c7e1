import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { QUOTE_TIMEOUT_MS, RATE_LIMIT_BOUNDS } from '@feira/contract';
import {
  bearerToken,
  DEFAULT_API_RATE_LIMIT,
  DEFAULT_BATCH_SIZE,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_PER_ENDPOINT_IN_FLIGHT,
  DEFAULT_RETENTION,
  DEFAULT_SECRET_REVEAL_REAUTH_SECONDS,
  DEFAULT_SIGNING_KEYS,
  DEFAULT_UPLOAD_LIMITS,
  type DispatcherTuning,
  GATEWAY_TIMEOUT_BOUNDS_MS,
  parseTrustedProxies,
  type RetentionPolicy,
  type SigningKeyTuning,
  type UploadLimits,
} from '@feira/platform';
import { ConfigError } from './config-error.js';

/**
 * The settings of `feira start` and `feira dispatch`, read from flags and
 * `FEIRA_*` environment variables here and nowhere else (house style: config
 * in one place, validated, frozen). Precedence: flag, then environment, then
 * default.
 */
export interface StartSettings {
  port: number;
  host: string;
  /** `sqlite:<path>` or `postgres://…`. */
  databaseUrl: string;
  /** Absolute path of the data folder (admin token, secret key, demo credentials, the default SQLite file). */
  dataDir: string;
  seed: 'demo' | 'none';
  mode: 'sandbox' | 'strict';
  /** Public URL without trailing slash; `undefined` means "http(s)://<host>:<actual port>", known once listening. */
  publicUrl: string | undefined;
  /**
   * Serve HTTPS with a certificate of the data folder's local CA: sandbox mode unless `--http` (FEIRA_HTTP=1).
   * Strict mode serves plain HTTP, TLS ending at the reverse proxy in front (docs/deploy.md).
   */
  https: boolean;
  /** Given by flag or environment; otherwise kept in (or generated into) the data folder. */
  adminToken: string | undefined;
  /** pino level of the logs on stderr; `silent` turns them off. Default `warn` in sandbox mode (a readable banner), `info` in strict. */
  logLevel: LogLevel;
  /** `pretty` (one readable line per entry, colour on a TTY) or `json` (pino's lines); default pretty on a terminal, else json. */
  logFormat: LogFormat;
  /** Port of the demo seller's quote endpoint (sandbox with a demo); 0 picks a free one. */
  quotePort: number;
  /** From FEIRA_SECRET_KEY only (a flag would show in process lists); otherwise kept in the data folder. */
  secretKey: string | undefined;
  /** From FEIRA_SECRET_KEY_PREVIOUS only: secrets replaced by the current one, still read until the re-seal is done (D112). */
  previousSecretKeys: string[];
  /** How signing keys rotate while running (PlatformConfig.signingKeys). */
  signingKeys: SigningKeyTuning;
  /** PEM of extra CA certificates the outbound client trusts (a local HTTPS webhook receiver or quote endpoint). */
  outboundCa: string | undefined;
  /** Bearer token `GET /metrics` requires; `/metrics` is open when absent. */
  metricsToken: string | undefined;
  /** Reverse proxies whose X-Forwarded-For is believed; empty: the socket's address is the client's. */
  trustProxy: string[];
  /** Seconds after sign-in the console shows a secret without asking for the password again (PlatformConfig). */
  secretRevealReauthSeconds: number;
  /** The webhook dispatcher's tuning (PlatformConfig.dispatcher), each value from its row of START_SETTINGS. */
  dispatcherTuning: DispatcherTuning;
  /** How long what grows with use is kept (PlatformConfig.retention), each value from its row of START_SETTINGS. */
  retention: RetentionPolicy;
  /** Base URLs of the freight gateways' APIs (PlatformConfig.gateways); absent: their production hosts. */
  gateways: { melhorEnvio?: string; frenet?: string };
  /** The operator's technical contact, in the User-Agent of every freight-gateway call (Melhor Envio requires one). */
  gatewayContactEmail: string | undefined;
  /** The deadline of a freight-gateway call in ms, within GATEWAY_TIMEOUT_BOUNDS_MS (D107). */
  gatewayTimeoutMs: number;
  /** Sandbox: the first demo store quotes through a fake Melhor Envio started beside the platform (D60). */
  demoGateway: 'melhor_envio' | 'none';
  /** The bounds of a freight-table upload (PlatformConfig.uploads), each value from its row of START_SETTINGS. */
  uploadLimits: UploadLimits;
  /** The API rate limit of an app with none of its own, per store (PlatformConfig.apiRateLimit, spec-notes I20). */
  apiRateLimit: { requestsPerSecond: number; burst: number };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Raw flag values as commander hands them over (strings, undefined when absent): one per row of
 * START_SETTINGS that has a flag, named as commander names it (`--data-dir` → `dataDir`).
 */
type ValueKey = Exclude<keyof typeof START_SETTINGS, 'secretKey' | 'secretKeyPrevious' | 'dispatcher' | 'http'>;
export type StartFlags = { [K in ValueKey]?: string } & {
  /** commander's `--http`: true when given. */
  http?: boolean;
};

/** The commands a setting is an option of. */
export type SettingCommand = 'start' | 'dispatch';

/** One row of the settings table. */
export interface Setting {
  /** Commander's flag (`--port <port>`); none for a setting given by environment only (a secret). */
  flag: string | undefined;
  /** Its environment variable; none for a switch given by flag only. */
  env: string | undefined;
  /** The default as the help and README say it. */
  default: string;
  help: string;
  commands: readonly SettingCommand[];
  /** A dispatcher tuning value: an integer within bounds, carried to PlatformConfig.dispatcher under `key`. */
  tuning?: { key: keyof DispatcherTuning; min: number; max: number };
  /** A freight upload bound: an integer within bounds, carried to PlatformConfig.uploads under `key`. */
  upload?: { key: keyof UploadLimits; min: number; max: number };
  /** A retention value: an integer within bounds, carried to PlatformConfig.retention under `key`. */
  retention?: { key: keyof RetentionPolicy; min: number; max: number };
}

const START: readonly SettingCommand[] = ['start'];
const BOTH: readonly SettingCommand[] = ['start', 'dispatch'];

/**
 * Every setting: its flag, its environment variable, its default, its help and
 * the commands that take it; the commands' options are generated from it.
 * README's `feira start` options table lists exactly these rows (start-config.test.ts checks it).
 */
export const START_SETTINGS = {
  port: { flag: '--port <port>', env: 'FEIRA_PORT', default: '8080', help: 'TCP port; 0 picks a free one', commands: START },
  host: { flag: '--host <host>', env: 'FEIRA_HOST', default: '127.0.0.1', help: 'interface to listen on', commands: START },
  database: {
    flag: '--database <url>',
    env: 'FEIRA_DATABASE',
    default: 'sqlite:<data-dir>/feira.db',
    help: 'sqlite:<path> or a postgres:// URL',
    commands: BOTH,
  },
  dataDir: {
    flag: '--data-dir <path>',
    env: 'FEIRA_DATA_DIR',
    default: './.feira',
    help: 'where generated secrets are kept',
    commands: BOTH,
  },
  seed: {
    flag: '--seed <demo|none>',
    env: 'FEIRA_SEED',
    default: 'demo',
    help: 'demo data on an empty database',
    commands: START,
  },
  mode: {
    flag: '--mode <sandbox|strict>',
    env: 'FEIRA_MODE',
    default: 'sandbox',
    help: 'strict refuses private webhook targets',
    commands: BOTH,
  },
  http: {
    flag: '--http',
    env: 'FEIRA_HTTP',
    default: 'off: the sandbox serves HTTPS (strict mode: HTTP, TLS at your proxy)',
    help: "sandbox: serve plain HTTP rather than HTTPS with a certificate of the data folder's local CA (`npx feira trust`); FEIRA_HTTP=1",
    commands: START,
  },
  publicUrl: {
    flag: '--public-url <url>',
    env: 'FEIRA_PUBLIC_URL',
    default: 'http://<host>:<port>',
    help: 'URL clients use',
    commands: START,
  },
  adminToken: {
    flag: '--admin-token <token>',
    env: 'FEIRA_ADMIN_TOKEN',
    default: 'generated once into <data-dir>/admin-token',
    help: 'bearer token of the admin API',
    commands: START,
  },
  secretKey: {
    // Environment only: a flag would show in process lists.
    flag: undefined,
    env: 'FEIRA_SECRET_KEY',
    default: 'generated once into <data-dir>/secret-key',
    help: 'server secret: seals signing keys and webhook secrets, signs cookies and cursors',
    commands: BOTH,
  },
  secretKeyPrevious: {
    // Environment only, as the secret it replaces.
    flag: undefined,
    env: 'FEIRA_SECRET_KEY_PREVIOUS',
    default: 'none',
    help: 'server secrets replaced by FEIRA_SECRET_KEY, comma-separated: still read until every sealed value is sealed again (feira keys status)',
    commands: BOTH,
  },
  keyPublishDelayS: {
    flag: '--key-publish-delay-s <seconds>',
    env: 'FEIRA_KEY_PUBLISH_DELAY_S',
    default: String(DEFAULT_SIGNING_KEYS.publishDelaySeconds),
    help: 'signing keys: seconds a new key is in the JWKS before it signs (at least --key-refresh-s; keep it past the JWKS max-age, 300)',
    commands: START,
  },
  keyRefreshS: {
    flag: '--key-refresh-s <seconds>',
    env: 'FEIRA_KEY_REFRESH_S',
    default: String(DEFAULT_SIGNING_KEYS.refreshSeconds),
    help: 'signing keys: seconds between two reads of whether a key was added, in every process',
    commands: START,
  },
  logLevel: {
    flag: '--log-level <level>',
    env: 'FEIRA_LOG_LEVEL',
    default: 'warn in sandbox mode, info in strict',
    help: 'level of the logs on stderr (request lines are info); silent for none',
    commands: START,
  },
  logFormat: {
    flag: '--log-format <pretty|json>',
    env: 'FEIRA_LOG_FORMAT',
    default: 'pretty on a terminal, else json',
    help: 'readable lines or pino JSON lines',
    commands: START,
  },
  quotePort: {
    flag: '--quote-port <port>',
    env: 'FEIRA_QUOTE_PORT',
    default: '0 (a free port)',
    help: "port of the demo seller's shipping-quote endpoint",
    commands: START,
  },
  outboundCa: {
    flag: '--outbound-ca <file>',
    env: 'FEIRA_OUTBOUND_CA',
    default: "none (Node's trusted CAs, NODE_EXTRA_CA_CERTS included, and the data folder's local CA)",
    help: 'PEM file of CA certificates trusted for webhook deliveries and quote calls (e.g. your local HTTPS receiver)',
    commands: BOTH,
  },
  melhorEnvioUrl: {
    flag: '--melhor-envio-url <url>',
    env: 'FEIRA_MELHOR_ENVIO_URL',
    default: 'https://melhorenvio.com.br',
    help: "base URL of Melhor Envio's API, for stores whose gateway kind is melhor_envio (its sandbox: https://sandbox.melhorenvio.com.br)",
    commands: START,
  },
  frenetUrl: {
    flag: '--frenet-url <url>',
    env: 'FEIRA_FRENET_URL',
    default: 'https://api.frenet.com.br',
    help: "base URL of Frenet's API, for stores whose gateway kind is frenet",
    commands: START,
  },
  gatewayContactEmail: {
    flag: '--gateway-contact-email <email>',
    env: 'FEIRA_GATEWAY_CONTACT_EMAIL',
    default: 'none (User-Agent: Feira)',
    help: 'your technical contact, sent as `User-Agent: Feira (<email>)` on every freight-gateway call: Melhor Envio requires it',
    commands: START,
  },
  gatewayTimeoutMs: {
    flag: '--gateway-timeout-ms <ms>',
    env: 'FEIRA_GATEWAY_TIMEOUT_MS',
    default: String(QUOTE_TIMEOUT_MS),
    help: `deadline of a call to a freight gateway's API (connect to last byte, no retry), ${GATEWAY_TIMEOUT_BOUNDS_MS.min}-${GATEWAY_TIMEOUT_BOUNDS_MS.max} ms: a buyer at checkout waits for it`,
    commands: START,
  },
  demoGateway: {
    flag: '--demo-gateway <none|melhor_envio>',
    env: 'FEIRA_DEMO_GATEWAY',
    default: 'none',
    help: 'sandbox: the first demo store quotes through a fake Melhor Envio started beside the platform',
    commands: START,
  },
  metricsToken: {
    flag: '--metrics-token <token>',
    env: 'FEIRA_METRICS_TOKEN',
    default: 'none (/metrics open)',
    help: 'bearer token GET /metrics requires (Prometheus: authorization.credentials)',
    commands: START,
  },
  trustProxy: {
    flag: '--trust-proxy <addresses>',
    env: 'FEIRA_TRUST_PROXY',
    default: 'none (the connecting address is the client)',
    help: 'reverse proxies whose X-Forwarded-For names the client: addresses, CIDR ranges or loopback, comma-separated',
    commands: START,
  },
  revealReauthSeconds: {
    flag: '--reveal-reauth-seconds <s>',
    env: 'FEIRA_REVEAL_REAUTH_SECONDS',
    default: String(DEFAULT_SECRET_REVEAL_REAUTH_SECONDS),
    help: 'console: a secret shown longer than this after the seller signed in asks for their password again (0: always)',
    commands: START,
  },
  concurrency: {
    flag: '--concurrency <n>',
    env: 'FEIRA_DISPATCH_CONCURRENCY',
    default: String(DEFAULT_MAX_IN_FLIGHT),
    help: 'webhook dispatcher: requests in flight (or queued) in this process, over all receivers',
    commands: BOTH,
    tuning: { key: 'maxInFlight', min: 1, max: 100_000 },
  },
  perEndpoint: {
    flag: '--per-endpoint <n>',
    env: 'FEIRA_DISPATCH_PER_ENDPOINT',
    default: String(DEFAULT_PER_ENDPOINT_IN_FLIGHT),
    help: 'webhook dispatcher: requests in flight per receiver origin, so one slow receiver cannot hold up the others',
    commands: BOTH,
    tuning: { key: 'perEndpointInFlight', min: 1, max: 10_000 },
  },
  dispatchBatch: {
    flag: '--dispatch-batch <n>',
    env: 'FEIRA_DISPATCH_BATCH',
    default: String(DEFAULT_BATCH_SIZE),
    help: 'webhook dispatcher: outbox events fanned out, and deliveries claimed, per query',
    commands: BOTH,
    tuning: { key: 'batchSize', min: 1, max: 10_000 },
  },
  dispatchIdlePollMs: {
    flag: '--dispatch-idle-poll-ms <ms>',
    env: 'FEIRA_DISPATCH_IDLE_POLL_MS',
    default: String(DEFAULT_MAX_POLL_INTERVAL_MS),
    help: 'webhook dispatcher: longest wait when idle before it looks for retries falling due (a new event wakes it at once)',
    commands: BOTH,
    tuning: { key: 'maxPollIntervalMs', min: 20, max: 60_000 },
  },
  dispatchLeaseMs: {
    flag: '--dispatch-lease-ms <ms>',
    env: 'FEIRA_DISPATCH_LEASE_MS',
    default: String(DEFAULT_LEASE_MS),
    help: "webhook dispatcher: how long a claimed delivery stays its own unless renewed; a crashed dispatcher's deliveries wait this long",
    commands: BOTH,
    tuning: { key: 'leaseMs', min: 1_000, max: 3_600_000 },
  },
  uploadMaxCsvBytes: {
    flag: '--upload-max-csv-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_CSV_BYTES',
    default: String(DEFAULT_UPLOAD_LIMITS.csvBytes),
    help: 'freight upload: bytes of a CSV body (streamed, never held whole)',
    commands: START,
    upload: { key: 'csvBytes', min: 1_024, max: 4_294_967_296 },
  },
  uploadMaxWorkbookBytes: {
    flag: '--upload-max-workbook-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_WORKBOOK_BYTES',
    default: String(DEFAULT_UPLOAD_LIMITS.workbookBytes),
    help: 'freight upload: bytes of an .xlsx body (held while its zip is read)',
    commands: START,
    upload: { key: 'workbookBytes', min: 1_024, max: 2_147_483_648 },
  },
  uploadMaxPartInflatedBytes: {
    flag: '--upload-max-part-inflated-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_PART_INFLATED_BYTES',
    default: String(DEFAULT_UPLOAD_LIMITS.partInflatedBytes),
    help: "freight upload: bytes any one part of a workbook's zip may inflate to",
    commands: START,
    upload: { key: 'partInflatedBytes', min: 1_024, max: 4_294_967_295 },
  },
  uploadMaxCompressionRatio: {
    flag: '--upload-max-compression-ratio <n>',
    env: 'FEIRA_UPLOAD_MAX_COMPRESSION_RATIO',
    default: String(DEFAULT_UPLOAD_LIMITS.compressionRatio),
    help: 'freight upload: inflated bytes per compressed byte of a workbook part (checked past 1 MiB inflated)',
    commands: START,
    upload: { key: 'compressionRatio', min: 2, max: 100_000 },
  },
  uploadMaxSharedStrings: {
    flag: '--upload-max-shared-strings <n>',
    env: 'FEIRA_UPLOAD_MAX_SHARED_STRINGS',
    default: String(DEFAULT_UPLOAD_LIMITS.sharedStrings),
    help: "freight upload: strings in a workbook's shared strings",
    commands: START,
    upload: { key: 'sharedStrings', min: 1, max: 100_000_000 },
  },
  uploadMaxSharedStringsBytes: {
    flag: '--upload-max-shared-strings-bytes <bytes>',
    env: 'FEIRA_UPLOAD_MAX_SHARED_STRINGS_BYTES',
    default: String(DEFAULT_UPLOAD_LIMITS.sharedStringsBytes),
    help: 'freight upload: bytes of text of all the shared strings together',
    commands: START,
    upload: { key: 'sharedStringsBytes', min: 1_024, max: 4_294_967_295 },
  },
  uploadMaxCellChars: {
    flag: '--upload-max-cell-chars <n>',
    env: 'FEIRA_UPLOAD_MAX_CELL_CHARS',
    default: String(DEFAULT_UPLOAD_LIMITS.cellChars),
    help: "freight upload: characters of one cell (a workbook's: bytes of its XML text)",
    commands: START,
    upload: { key: 'cellChars', min: 200, max: 10_000_000 },
  },
  uploadMaxColumns: {
    flag: '--upload-max-columns <n>',
    env: 'FEIRA_UPLOAD_MAX_COLUMNS',
    default: String(DEFAULT_UPLOAD_LIMITS.columns),
    help: 'freight upload: cells of one row',
    commands: START,
    upload: { key: 'columns', min: 12, max: 16_384 },
  },
  uploadMaxRows: {
    flag: '--upload-max-rows <n>',
    env: 'FEIRA_UPLOAD_MAX_ROWS',
    default: String(DEFAULT_UPLOAD_LIMITS.rows),
    help: 'freight upload: rows of a spreadsheet, the header included',
    commands: START,
    upload: { key: 'rows', min: 2, max: 100_000_000 },
  },
  uploadWorkbookHeapMb: {
    flag: '--upload-workbook-heap-mb <mib>',
    env: 'FEIRA_UPLOAD_WORKBOOK_HEAP_MB',
    default: String(DEFAULT_UPLOAD_LIMITS.workbookHeapMb),
    help: 'freight upload: MiB of heap of the thread that reads one workbook',
    commands: START,
    upload: { key: 'workbookHeapMb', min: 16, max: 16_384 },
  },
  uploadWorkbookSeconds: {
    flag: '--upload-workbook-seconds <s>',
    env: 'FEIRA_UPLOAD_WORKBOOK_SECONDS',
    default: String(DEFAULT_UPLOAD_LIMITS.workbookSeconds),
    help: 'freight upload: seconds the thread that reads one workbook may run',
    commands: START,
    upload: { key: 'workbookSeconds', min: 1, max: 86_400 },
  },
  uploadStoreRate: {
    flag: '--upload-store-rate <per-second>',
    env: 'FEIRA_UPLOAD_STORE_RATE',
    default: String(DEFAULT_UPLOAD_LIMITS.storeUploadsPerSecond),
    help: "freight upload: uploads per second a store's bucket refills at (shared by every process)",
    commands: START,
    upload: { key: 'storeUploadsPerSecond', min: 1, max: 100_000 },
  },
  uploadStoreBurst: {
    flag: '--upload-store-burst <n>',
    env: 'FEIRA_UPLOAD_STORE_BURST',
    default: String(DEFAULT_UPLOAD_LIMITS.storeUploadBurst),
    help: "freight upload: uploads a store's bucket holds, the most it may send at once",
    commands: START,
    upload: { key: 'storeUploadBurst', min: 1, max: 1_000_000 },
  },
  apiRateLimit: {
    flag: '--api-rate-limit <per-second>',
    env: 'FEIRA_API_RATE_LIMIT',
    default: String(DEFAULT_API_RATE_LIMIT.requestsPerSecond),
    help: "default API rate limit of an app, per store: requests per second its bucket refills at (an app's own limit is set with PATCH /admin/v1/clients/{client_id})",
    commands: START,
  },
  apiBurst: {
    flag: '--api-burst <n>',
    env: 'FEIRA_API_BURST',
    default: String(DEFAULT_API_RATE_LIMIT.burst),
    help: 'default API rate limit of an app, per store: requests its bucket holds, the most it may send at once',
    commands: START,
  },
  retainDeliveriesDays: {
    flag: '--retain-deliveries-days <days>',
    env: 'FEIRA_RETAIN_DELIVERIES_DAYS',
    default: String(DEFAULT_RETENTION.deliveryDays),
    help: 'retention: days a webhook delivery and its attempts are kept after it succeeded or died (0 keeps them)',
    commands: BOTH,
    retention: { key: 'deliveryDays', min: 0, max: 3650 },
  },
  retainQuoteCallsDays: {
    flag: '--retain-quote-calls-days <days>',
    env: 'FEIRA_RETAIN_QUOTE_CALLS_DAYS',
    default: String(DEFAULT_RETENTION.quoteCallDays),
    help: 'retention: days a quote call stays in the quote log (0 keeps them)',
    commands: BOTH,
    retention: { key: 'quoteCallDays', min: 0, max: 3650 },
  },
  retainOutboxHours: {
    flag: '--retain-outbox-hours <hours>',
    env: 'FEIRA_RETAIN_OUTBOX_HOURS',
    default: String(DEFAULT_RETENTION.outboxHours),
    help: 'retention: hours a fanned-out event is kept at least; it stays while a delivery of it is kept (0 keeps them)',
    commands: BOTH,
    retention: { key: 'outboxHours', min: 0, max: 87_600 },
  },
  retainExpiredHours: {
    flag: '--retain-expired-hours <hours>',
    env: 'FEIRA_RETAIN_EXPIRED_HOURS',
    default: String(DEFAULT_RETENTION.expiredHours),
    help: 'retention: hours authorization codes, refresh tokens, sessions and throttle rows are kept once expired (0 keeps them)',
    commands: BOTH,
    retention: { key: 'expiredHours', min: 0, max: 87_600 },
  },
  retentionBatch: {
    flag: '--retention-batch <rows>',
    env: 'FEIRA_RETENTION_BATCH',
    default: String(DEFAULT_RETENTION.batchRows),
    help: 'retention: rows deleted per statement of the background sweep',
    commands: BOTH,
    retention: { key: 'batchRows', min: 10, max: 10_000 },
  },
  retentionIntervalS: {
    flag: '--retention-interval-s <seconds>',
    env: 'FEIRA_RETENTION_INTERVAL_S',
    default: String(DEFAULT_RETENTION.intervalSeconds),
    help: 'retention: seconds between two sweeps (one process sweeps at a time)',
    commands: BOTH,
    retention: { key: 'intervalSeconds', min: 10, max: 86_400 },
  },
  workers: {
    flag: '--workers <n|auto>',
    env: 'FEIRA_WORKERS',
    default: '1',
    help: 'API processes sharing the port (auto: one per core); PostgreSQL only. Listening is printed once every one is ready',
    commands: START,
  },
  dispatcher: {
    flag: '--no-dispatcher',
    env: undefined,
    default: 'a dispatcher runs in the (first) process',
    help: 'run no webhook dispatcher here (run `feira dispatch` elsewhere)',
    commands: START,
  },
} as const satisfies Record<string, Setting>;

/** The options of a command, generated from START_SETTINGS (commander `Option`s: flag and help with env and default). */
export function settingsOf(command: SettingCommand): Array<{ key: keyof typeof START_SETTINGS; setting: Setting }> {
  return (Object.entries(START_SETTINGS) as Array<[keyof typeof START_SETTINGS, Setting]>)
    .filter(([, setting]) => setting.commands.includes(command))
    .map(([key, setting]) => ({ key, setting }));
}

/** The help line of a setting's option. */
export function settingHelp(setting: Setting): string {
  return `${setting.help} (${setting.env ? `env ${setting.env}; ` : ''}default ${setting.default})`;
}

/** A Markdown table cell: code marks around flags and names, pipes escaped. */
function cell(text: string, code = false): string {
  const escaped = text.replaceAll('|', '\\|');
  return code ? `\`${escaped}\`` : escaped;
}

/**
 * The options table of docs/sandbox.md, generated from START_SETTINGS so the
 * documentation, `--help` and the code cannot disagree (start-config.test.ts
 * compares; FEIRA_WRITE_DOCS=1 rewrites it).
 */
export function startOptionsTable(): string {
  const rows = settingsOf('start').map(({ setting }) =>
    [
      setting.flag ? cell(setting.flag, true) : '—',
      setting.env ? cell(setting.env, true) : '—',
      cell(setting.default),
      cell(setting.help.charAt(0).toUpperCase() + setting.help.slice(1)),
    ].join(' | '),
  );
  return ['| Flag | Environment | Default | Meaning |', '| --- | --- | --- | --- |', ...rows.map((r) => `| ${r} |`)].join('\n');
}

const MIN_SECRET_LENGTH = 16;

function readCaFile(path: string | undefined, cwd: string): string | undefined {
  if (path === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(resolve(cwd, path), 'utf8');
  } catch {
    throw new ConfigError(`--outbound-ca: cannot read ${path}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`--outbound-ca: ${path} holds no PEM certificate`);
  return pem;
}

function parseProxies(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    return parseTrustedProxies(text);
  } catch (error) {
    throw new ConfigError(`--trust-proxy: ${(error as Error).message}`);
  }
}

/** Whole seconds from 0 to `max`; the error names the flag. */
function parseSeconds(name: string, value: string, max: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) > max)
    throw new ConfigError(`${name} must be a whole number of seconds from 0 to ${max} (got "${value}")`);
  return Number(value);
}

/** An e-mail address sent in a header: one address, printable ASCII, no parentheses or spaces. */
function parseEmail(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > 254 || !/^[^\s@()<>",;]+@[^\s@()<>",;]+\.[^\s@()<>",;]+$/.test(value) || !/^[\x21-\x7e]+$/.test(value))
    throw new ConfigError(`${name} must be one e-mail address, e.g. ops@example.com (got "${value}")`);
  return value;
}

/** A switch given by environment: 1/true on, 0/false (or unset) off. */
function parseSwitch(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0 (got "${value}")`);
}

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined) return flag;
  return env !== undefined && env !== '' ? env : undefined;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function parsePort(value: string, name = '--port'): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new ConfigError(`${name} must be an integer from 0 to 65535 (got "${value}")`);
  return Number(value);
}

function parseDatabaseUrl(value: string): string {
  if (/^postgres(ql)?:\/\/.+/.test(value)) return value;
  if (/^sqlite:.+/.test(value)) return value;
  throw new ConfigError('--database must be sqlite:<path> or a postgres:// URL');
}

function parsePublicUrl(value: string): string {
  if (!URL.canParse(value)) throw new ConfigError(`--public-url must be an absolute http(s) URL (got "${value}")`);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('--public-url must use http or https');
  if (url.search || url.hash) throw new ConfigError('--public-url must not carry a query or fragment');
  return value.replace(/\/+$/, '');
}

/** A gateway's base URL: absolute, no query or fragment, https in strict mode; `{}` when not given. */
function optionalUrl<K extends string>(key: K, name: string, value: string | undefined, mode: 'sandbox' | 'strict') {
  if (value === undefined) return {};
  if (!URL.canParse(value)) throw new ConfigError(`${name} must be an absolute http(s) URL (got "${value}")`);
  const url = new URL(value);
  if (url.protocol !== 'https:' && (mode === 'strict' || url.protocol !== 'http:'))
    throw new ConfigError(`${name} must use https${mode === 'sandbox' ? ' (or http in the sandbox)' : ''}`);
  if (url.search || url.hash || url.username) throw new ConfigError(`${name} must not carry credentials, a query or a fragment`);
  return { [key]: value.replace(/\/+$/, '') } as { [P in K]?: string };
}

function parseSecret(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < MIN_SECRET_LENGTH) throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  return value;
}

/** FEIRA_SECRET_KEY_PREVIOUS: a comma-separated list, each as long as a secret must be. */
function parsePreviousSecrets(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '')
    .map((secret, i) => parseSecret(`FEIRA_SECRET_KEY_PREVIOUS (secret ${i + 1})`, secret) as string);
}

/** The publish delay and the refresh, each a whole number of seconds; a key must be loadable before it signs. */
function resolveSigningKeys(flags: StartFlags, env: Record<string, string | undefined>): SigningKeyTuning {
  const S = START_SETTINGS;
  const read = (name: string, raw: string, min: number, max: number) => {
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new ConfigError(`${name} must be a whole number of seconds from ${min} to ${max} (got "${raw}")`);
    return Number(raw);
  };
  const publishDelaySeconds = read(
    '--key-publish-delay-s',
    pick(flags.keyPublishDelayS, env[S.keyPublishDelayS.env]) ?? S.keyPublishDelayS.default,
    1,
    7 * 86_400,
  );
  const refreshSeconds = read(
    '--key-refresh-s',
    pick(flags.keyRefreshS, env[S.keyRefreshS.env]) ?? S.keyRefreshS.default,
    1,
    3600,
  );
  if (publishDelaySeconds < refreshSeconds)
    throw new ConfigError(
      '--key-publish-delay-s must be at least --key-refresh-s: every process must load a key before it signs',
    );
  return { publishDelaySeconds, refreshSeconds };
}

/**
 * A secret sent as `Authorization: Bearer <token>` (the admin and metrics tokens): also refused unless the
 * platform's one bearer parser reads it back whole (RFC 6750 token68), since a token with a space, `!` or `:`
 * could be set but never presented, locking its holder out.
 */
function parseBearerSecret(name: string, value: string | undefined): string | undefined {
  const secret = parseSecret(name, value);
  if (secret !== undefined && bearerToken(`Bearer ${secret}`) !== secret)
    throw new ConfigError(
      `${name} may hold only letters, digits and - . _ ~ + / (then = at the end): it is sent as "Authorization: Bearer <token>"`,
    );
  return secret;
}

/**
 * Resolves and validates the start settings. `cwd` anchors relative paths.
 * Throws ConfigError (exit code 2) with a message naming the bad setting; the
 * message never repeats a secret value.
 */
export function resolveStartSettings(
  flags: StartFlags,
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
  stderrIsTty: boolean = process.stderr.isTTY === true,
): Readonly<StartSettings> {
  const S = START_SETTINGS;
  const dataDirRaw = pick(flags.dataDir, env[S.dataDir.env]) ?? S.dataDir.default;
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const host = pick(flags.host, env[S.host.env]) ?? S.host.default;
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new ConfigError(`--host must be a host name or IP address (got "${host}")`);
  const databaseRaw = pick(flags.database, env[S.database.env]);
  let databaseUrl = databaseRaw === undefined ? `sqlite:${join(dataDir, 'feira.db')}` : parseDatabaseUrl(databaseRaw);
  if (databaseUrl.startsWith('sqlite:')) {
    // A relative SQLite path is relative to where the command runs, like the data folder.
    const file = databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !isAbsolute(file)) databaseUrl = `sqlite:${resolve(cwd, file)}`;
  }
  const publicUrlRaw = pick(flags.publicUrl, env[S.publicUrl.env]);
  const mode = oneOf('--mode', pick(flags.mode, env[S.mode.env]) ?? S.mode.default, ['sandbox', 'strict'] as const);
  return Object.freeze({
    port: parsePort(pick(flags.port, env[S.port.env]) ?? S.port.default),
    host,
    databaseUrl,
    dataDir,
    seed: oneOf('--seed', pick(flags.seed, env[S.seed.env]) ?? S.seed.default, ['demo', 'none'] as const),
    mode,
    publicUrl: publicUrlRaw === undefined ? undefined : parsePublicUrl(publicUrlRaw),
    https: mode === 'sandbox' && !(flags.http === true || parseSwitch('FEIRA_HTTP', env[S.http.env])),
    // Sandbox mode logs requests only when they go wrong, so the banner stays readable.
    logLevel: oneOf(
      '--log-level',
      pick(flags.logLevel, env[S.logLevel.env]) ?? (mode === 'sandbox' ? 'warn' : 'info'),
      LOG_LEVELS,
    ),
    logFormat: oneOf(
      '--log-format',
      pick(flags.logFormat, env[S.logFormat.env]) ?? (stderrIsTty ? 'pretty' : 'json'),
      LOG_FORMATS,
    ),
    quotePort: parsePort(pick(flags.quotePort, env[S.quotePort.env]) ?? '0', '--quote-port'),
    adminToken: parseBearerSecret('--admin-token', pick(flags.adminToken, env[S.adminToken.env])),
    secretKey: parseSecret('FEIRA_SECRET_KEY', pick(undefined, env[S.secretKey.env])),
    previousSecretKeys: parsePreviousSecrets(pick(undefined, env[S.secretKeyPrevious.env])),
    signingKeys: resolveSigningKeys(flags, env),
    outboundCa: readCaFile(pick(flags.outboundCa, env[S.outboundCa.env]), cwd),
    metricsToken: parseBearerSecret('--metrics-token', pick(flags.metricsToken, env[S.metricsToken.env])),
    trustProxy: parseProxies(pick(flags.trustProxy, env[S.trustProxy.env])),
    secretRevealReauthSeconds: parseSeconds(
      '--reveal-reauth-seconds',
      pick(flags.revealReauthSeconds, env[S.revealReauthSeconds.env]) ?? S.revealReauthSeconds.default,
      86_400,
    ),
    dispatcherTuning: resolveDispatcherTuning(flags, env),
    retention: resolveRetention(flags, env),
    gateways: {
      ...optionalUrl('melhorEnvio', '--melhor-envio-url', pick(flags.melhorEnvioUrl, env[S.melhorEnvioUrl.env]), mode),
      ...optionalUrl('frenet', '--frenet-url', pick(flags.frenetUrl, env[S.frenetUrl.env]), mode),
    },
    apiRateLimit: {
      requestsPerSecond: integerWithin(
        '--api-rate-limit',
        pick(flags.apiRateLimit, env[S.apiRateLimit.env]) ?? S.apiRateLimit.default,
        RATE_LIMIT_BOUNDS.requests_per_second,
      ),
      burst: integerWithin(
        '--api-burst',
        pick(flags.apiBurst, env[S.apiBurst.env]) ?? S.apiBurst.default,
        RATE_LIMIT_BOUNDS.burst,
      ),
    },
    gatewayContactEmail: parseEmail('--gateway-contact-email', pick(flags.gatewayContactEmail, env[S.gatewayContactEmail.env])),
    gatewayTimeoutMs: integerWithin(
      '--gateway-timeout-ms',
      pick(flags.gatewayTimeoutMs, env[S.gatewayTimeoutMs.env]) ?? S.gatewayTimeoutMs.default,
      { minimum: GATEWAY_TIMEOUT_BOUNDS_MS.min, maximum: GATEWAY_TIMEOUT_BOUNDS_MS.max },
    ),
    demoGateway: oneOf('--demo-gateway', pick(flags.demoGateway, env[S.demoGateway.env]) ?? S.demoGateway.default, [
      'none',
      'melhor_envio',
    ] as const),
    uploadLimits: resolveUploadLimits(flags, env),
  });
}

/** Every upload row of the table, each an integer within its bounds; the error names the flag. */
function resolveUploadLimits(flags: StartFlags, env: Record<string, string | undefined>): UploadLimits {
  const limits: Partial<UploadLimits> = {};
  for (const [key, setting] of Object.entries(START_SETTINGS) as Array<[ValueKey, Setting]>) {
    if (!setting.upload) continue;
    const { min, max } = setting.upload;
    const raw = pick(flags[key], setting.env ? env[setting.env] : undefined) ?? setting.default;
    const name = (setting.flag ?? setting.env ?? key).split(' ')[0];
    if (!/^\d{1,12}$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    limits[setting.upload.key] = Number(raw);
  }
  return limits as UploadLimits;
}

/** An integer setting within the bounds the admin API also keeps (spec-notes I20's limits); the error names the flag. */
function integerWithin(name: string, raw: string, { minimum, maximum }: { minimum: number; maximum: number }): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < minimum || Number(raw) > maximum)
    throw new ConfigError(`${name} must be an integer from ${minimum} to ${maximum} (got "${raw}")`);
  return Number(raw);
}

/** Every tuning row of the table, each an integer within its bounds; the error names the flag. */
function resolveDispatcherTuning(flags: StartFlags, env: Record<string, string | undefined>): DispatcherTuning {
  const tuning: Partial<DispatcherTuning> = {};
  for (const [key, setting] of Object.entries(START_SETTINGS) as Array<[ValueKey, Setting]>) {
    if (setting.tuning) tuning[setting.tuning.key] = boundedInteger(flags, env, key, setting, setting.tuning);
  }
  return tuning as DispatcherTuning;
}

/** Every retention row of the table, each an integer within its bounds; the error names the flag. */
function resolveRetention(flags: StartFlags, env: Record<string, string | undefined>): RetentionPolicy {
  const retention: Partial<RetentionPolicy> = {};
  for (const [key, setting] of Object.entries(START_SETTINGS) as Array<[ValueKey, Setting]>) {
    if (setting.retention) retention[setting.retention.key] = boundedInteger(flags, env, key, setting, setting.retention);
  }
  return retention as RetentionPolicy;
}

function boundedInteger(
  flags: StartFlags,
  env: Record<string, string | undefined>,
  key: ValueKey,
  setting: Setting,
  { min, max }: { min: number; max: number },
): number {
  const raw = pick(flags[key], setting.env ? env[setting.env] : undefined) ?? setting.default;
  const name = (setting.flag ?? setting.env ?? key).split(' ')[0];
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return Number(raw);
}
