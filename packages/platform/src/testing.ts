// @feira/platform/testing: what tests (of this package and of others) use to
// run the real platform on an isolated database with a clock they control.
import { readFileSync } from 'node:fs';
import { SCOPE_NAMES, type Scope } from '@feira/contract';
import type { FastifyInstance } from 'fastify';
import { ManualClock } from './core/clock.js';
import { type PlatformConfig, type PlatformConfigInput, platformConfig } from './core/config.js';
import { hashPassword, sha256Hex } from './core/hashing.js';
import { ACCESS_TOKEN_TYP } from './identity/index.js';
import { type CreatePlatformOptions, createPlatform, type Platform } from './platform.js';
import type { Database } from './storage/database.js';
import { type TestDatabaseTarget, testDatabaseTargets } from './test-databases.js';
import type { BackgroundWorkers } from './workers.js';

export { ManualClock } from './core/clock.js';
export {
  openPostgresTestDatabase,
  openSqliteTestDatabase,
  sharedDatabaseUrl,
  type TestDatabaseTarget,
  testDatabaseTargets,
} from './test-databases.js';
export { testTls, writeTestTlsFiles } from './testing-tls.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * The test kit's default API rate limit (spec-notes I20): the bucket is still taken on every call, but no
 * functional test under a frozen clock reaches it; the tests of the limits set their own.
 */
export const TEST_API_RATE_LIMIT = Object.freeze({ requestsPerSecond: 100_000, burst: 1_000_000 });

/** A store's upload bucket no functional test reaches under a frozen clock; the tests of the upload rate set their own. */
export const TEST_STORE_UPLOADS = Object.freeze({ storeUploadsPerSecond: 100_000, storeUploadBurst: 1_000_000 });

export function testConfig(overrides: Partial<PlatformConfigInput> = {}): PlatformConfig {
  return platformConfig({
    mode: 'sandbox',
    publicUrl: 'http://127.0.0.1:8080',
    authUrl: 'http://127.0.0.1:8080',
    adminToken: TEST_ADMIN_TOKEN,
    secretKey: 'test-secret-key-not-for-production',
    apiRateLimit: TEST_API_RATE_LIMIT,
    ...overrides,
    uploads: { ...TEST_STORE_UPLOADS, ...overrides.uploads },
  });
}

export interface TestPlatform {
  app: FastifyInstance;
  database: Database;
  clock: ManualClock;
  /** Creates a seller with tenants directly in the database (password hashed with scrypt, as the admin API does). */
  createSeller(input?: {
    tenants?: number;
    login?: string;
    password?: string;
    /**
     * Hash the password at the platform's own cost rather than the kit's cheap one: for a test whose
     * subject is how many password checks run while they are slow (a throttle counting them).
     */
    fullPasswordCost?: boolean;
  }): Promise<{ sellerId: string; login: string; password: string; tenantIds: string[] }>;
  /** Registers a client application directly in the database; returns its secret in clear (as the admin API shows it once). */
  createClient(input?: {
    name?: string;
    redirectUris?: string[];
    scopes?: Scope[];
    defaultScopes?: Scope[];
    termsOfUseUrl?: string;
    privacyPolicyUrl?: string;
    /** `none` registers a public client (its returned secret then matches nothing). */
    tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  }): Promise<{ clientId: string; clientSecret: string }>;
  /** An access token as the identity provider would issue it, without going through the browser flow. */
  mintAccessToken(input: { tenants: string[]; scopes: Scope[]; sellerId?: string; clientId?: string }): Promise<string>;
  /** The background loops, when `roles` asked for the dispatcher. */
  workers: BackgroundWorkers | undefined;
  close(): Promise<void>;
}

/**
 * The scrypt cost of the sellers the kit plants. A hash carries its own cost and the login verifies
 * under it, so a planted seller signs in through the same code as any other, at a cost that does not
 * make every test that needs a seller pay for a real password hash; the platform's own accounts keep
 * the full cost (core/hashing.ts).
 */
const PLANTED_SELLER_SCRYPT = { N: 1024, r: 8, p: 1 };

/** What a test platform needs of its target: how to open its (migrated) database. */
type PlatformTarget = Pick<TestDatabaseTarget, 'dialect' | 'open'>;

/** What a test may set of the platform it gets: config, outbound client, key ring, and so on. */
export type TestPlatformDeps = Partial<
  Omit<CreatePlatformOptions, 'database' | 'databaseUrl' | 'listen' | 'clock' | 'config' | 'roles'>
> & { clock?: ManualClock; config?: PlatformConfig; roles?: { api: true; dispatcher: boolean } };

/**
 * The real app on a fresh database of the given target, with a ManualClock,
 * built by the composition root as `feira start` builds it: the api role, and
 * the dispatcher too when `deps.roles` asks (most tests drive a dispatcher
 * themselves). Pass `deps` to override config, outbound client, and so on.
 */
export async function createTestPlatform(
  target: PlatformTarget = testDatabaseTargets()[0] as TestDatabaseTarget,
  deps: TestPlatformDeps = {},
): Promise<TestPlatform> {
  const clock = deps.clock ?? new ManualClock();
  const platform = await createPlatform({
    ...deps,
    config: deps.config ?? testConfig(),
    database: await target.open(),
    // One platform per database in most tests: no timer reads the sandbox clock's offset behind a counted request.
    sandboxClockRefreshMs: deps.sandboxClockRefreshMs ?? 0,
    clock,
    roles: deps.roles ?? { api: true, dispatcher: false },
  });
  return testKit(platform, clock);
}

/**
 * Another platform over an open test database: a second deployment on the same
 * rows (strict mode, another public URL, a restart with other keys), built by
 * the composition root as the first one is. Closing it leaves the database to
 * its owner.
 */
export async function platformOver(database: Database, deps: TestPlatformDeps = {}): Promise<TestPlatform> {
  const shared: Database = { ...database, close: async () => {} };
  return createTestPlatform({ dialect: database.dialect, open: async () => shared }, deps);
}

/** The helpers of a test platform over a running one (a test that builds its platform itself takes them too). */
export function testKit(platform: Platform, clock: ManualClock): TestPlatform {
  const app = platform.app as FastifyInstance;
  const database = platform.database;
  let counter = 0;
  const { random, signer } = app.identity;

  const createSeller: TestPlatform['createSeller'] = async (input = {}) => {
    const sellerId = random.uuid();
    const now = clock.now().toISOString();
    counter += 1;
    const login = input.login ?? `seller-${counter}-${sellerId.slice(0, 8)}`;
    const password = input.password ?? 'correct horse battery staple';
    await database.db
      .insertInto('sellers')
      .values({
        id: sellerId,
        name: `Seller ${counter}`,
        login,
        password_hash: await hashPassword(password, random.bytes(16), input.fullPasswordCost ? undefined : PLANTED_SELLER_SCRYPT),
        created_at: now,
      })
      .execute();
    const tenantIds: string[] = [];
    for (let i = 0; i < (input.tenants ?? 1); i++) {
      const id = random.uuid();
      tenantIds.push(id);
      await database.db
        .insertInto('tenants')
        .values({ id, seller_id: sellerId, name: `Store ${i + 1}`, created_at: now })
        .execute();
    }
    return { sellerId, login, password, tenantIds };
  };

  const createClient: TestPlatform['createClient'] = async (input = {}) => {
    const clientId = `client_${random.bytes(9).toString('base64url')}`;
    const clientSecret = random.bytes(32).toString('base64url');
    const redirectUris = input.redirectUris ?? ['https://integrator.example/callback'];
    await database.db
      .insertInto('clients')
      .values({
        id: clientId,
        name: input.name ?? 'Test integration',
        secret_hash: sha256Hex(input.tokenEndpointAuthMethod === 'none' ? random.bytes(32).toString('base64url') : clientSecret),
        token_endpoint_auth_method: input.tokenEndpointAuthMethod ?? 'client_secret_basic',
        redirect_uris: JSON.stringify(redirectUris),
        scopes: JSON.stringify(input.scopes ?? SCOPE_NAMES),
        default_scopes: JSON.stringify(input.defaultScopes ?? []),
        terms_of_use_url: input.termsOfUseUrl ?? null,
        privacy_policy_url: input.privacyPolicyUrl ?? null,
        created_at: clock.now().toISOString(),
      })
      .execute();
    const origins = [...new Set(redirectUris.map((uri) => new URL(uri).origin))];
    await database.db
      .insertInto('client_origins')
      .values(origins.map((origin) => ({ origin, client_id: clientId })))
      .execute();
    return { clientId, clientSecret };
  };

  const mintAccessToken: TestPlatform['mintAccessToken'] = async (input) => {
    let sellerId = input.sellerId;
    if (!sellerId) {
      const owner = input.tenants[0]
        ? await database.db.selectFrom('tenants').select('seller_id').where('id', '=', input.tenants[0]).executeTakeFirst()
        : undefined;
      sellerId = owner?.seller_id ?? random.uuid();
    }
    const familyId = random.uuid();
    const clientId = input.clientId ?? 'test-client';
    await database.db
      .insertInto('token_families')
      .values({
        id: familyId,
        client_id: clientId,
        seller_id: sellerId,
        created_at: clock.now().toISOString(),
        revoked_at: null,
        revoked_reason: null,
      })
      .execute();
    const { token } = await signer.sign(ACCESS_TOKEN_TYP, {
      sellerId,
      clientId,
      scope: input.scopes.join(' '),
      tenants: input.tenants,
      familyId,
      ttlSeconds: app.platform.config.accessTokenTtlSeconds,
    });
    return token;
  };

  return {
    app,
    database,
    clock,
    createSeller,
    createClient,
    mintAccessToken,
    workers: platform.workers,
    close: async () => {
      await platform.close();
      await database.close();
    },
  };
}

export interface ListeningPlatform extends TestPlatform {
  /** `http://127.0.0.1:<port>`: also the configured {base_url} and {auth_url}, so links, metadata and `iss` point here. */
  url: string;
}

/**
 * The real platform on a real socket (127.0.0.1, port 0), for clients that
 * talk HTTP: browsers, third-party OAuth clients, the SDK, CLI processes. The
 * socket is bound first so its address can be the configured public URL
 * (clients check the metadata's issuer, the SDK follows `meta.links.next`
 * exactly); until the app is ready it answers 503. `close()` cuts open
 * connections, then closes the app and the database.
 */
export async function listenPlatform(
  target: PlatformTarget = testDatabaseTargets()[0] as TestDatabaseTarget,
  deps: TestPlatformDeps = {},
): Promise<ListeningPlatform> {
  const clock = deps.clock ?? new ManualClock();
  // The socket's URL wins over any given config: links and `iss` must point where clients connect.
  const { publicUrl: _publicUrl, authUrl: _authUrl, ...config } = deps.config ?? testConfig();
  const platform = await createPlatform({
    ...deps,
    config,
    database: await target.open(),
    sandboxClockRefreshMs: deps.sandboxClockRefreshMs ?? 0,
    clock,
    roles: deps.roles ?? { api: true, dispatcher: false },
    listen: { host: '127.0.0.1', port: 0, shutdownGraceMs: 0 },
  });
  return { ...testKit(platform, clock), url: platform.listenUrl as string };
}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after
 * `deadlineMs` naming `what`. For waits on another process or a socket, where
 * no clock can be moved: the interval only paces the polling, the deadline
 * bounds the wait.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  { deadlineMs = 60_000, intervalMs = 25 }: { deadlineMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Busy CPU time of the whole machine so far (Linux /proc/stat, all cores, µs; null elsewhere): with a
 * database server and a receiver on the same cores, the difference over a phase is what its work cost
 * in all, the figure that bounds a rate when the machine is saturated. For the drain probe and the
 * benchmarks.
 */
export function machineBusyMicros(): number | null {
  try {
    const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number) as number[];
    // USER_HZ is 100 on Linux: a tick is 10 ms.
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10_000;
  } catch {
    return null;
  }
}

/**
 * How every browser test launches Debian's Chromium with playwright-core
 * (`chromium.launch(chromiumLaunchOptions())`): the system binary (playwright
 * cannot download its own here), headless, no sandbox (CI runs as root), and
 * no background traffic.
 */
export function chromiumLaunchOptions(): { executablePath: string; args: string[] } {
  return {
    executablePath: process.env.FEIRA_CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  };
}
