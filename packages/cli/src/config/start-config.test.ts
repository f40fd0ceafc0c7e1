import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadOrCreateSecretFile } from './data-dir-secrets.js';
import { resolveStartSettings, settingsOf, startOptionsTable } from './start-config.js';

const cwd = '/srv/shop';

describe('start settings: flag, then FEIRA_* environment, then default', () => {
  it('uses the documented defaults when neither flag nor environment is set', () => {
    const settings = resolveStartSettings({}, {}, cwd, false);
    expect(settings).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:/srv/shop/.feira/feira.db',
      dataDir: '/srv/shop/.feira',
      seed: 'demo',
      https: true,
      logLevel: 'warn',
      logFormat: 'json',
      quotePort: 0,
      outboundCa: undefined,
      demoGateway: 'none',
      workers: '1',
      dispatcher: true,
      platform: {
        mode: 'sandbox',
        publicUrl: undefined,
        adminToken: undefined,
        secretKey: undefined,
        previousSecretKeys: [],
        signingKeys: { publishDelaySeconds: 600, refreshSeconds: 60 },
        metricsToken: undefined,
        trustProxy: [],
        secretRevealReauthSeconds: 300,
        dispatcher: { maxInFlight: 1000, perEndpointInFlight: 32, batchSize: 500, maxPollIntervalMs: 250, leaseMs: 10_000 },
        retention: {
          deliveryDays: 30,
          quoteCallDays: 30,
          outboxHours: 24,
          expiredHours: 24,
          batchRows: 500,
          intervalSeconds: 300,
        },
        gateways: {},
        gatewayContactEmail: undefined,
        gatewayTimeoutMs: 1000,
        uploads: {
          csvBytes: 268_435_456,
          workbookBytes: 134_217_728,
          partInflatedBytes: 1_073_741_824,
          compressionRatio: 100,
          sharedStrings: 3_000_000,
          sharedStringsBytes: 67_108_864,
          cellChars: 32_767,
          columns: 256,
          rows: 4_000_000,
          workbookHeapMb: 512,
          workbookSeconds: 300,
          storeUploadsPerSecond: 1,
          storeUploadBurst: 5,
        },
        apiRateLimit: { requestsPerSecond: 10, burst: 100 },
      },
    });
  });

  it('takes the environment over the default', () => {
    const settings = resolveStartSettings(
      {},
      {
        FEIRA_PORT: '9000',
        FEIRA_HOST: '0.0.0.0',
        FEIRA_DATABASE: 'postgres://u@db:5432/feira',
        FEIRA_DATA_DIR: '/var/lib/feira',
        FEIRA_SEED: 'none',
        FEIRA_MODE: 'strict',
        FEIRA_PUBLIC_URL: 'https://sandbox.example/',
        FEIRA_LOG_LEVEL: 'warn',
        FEIRA_LOG_FORMAT: 'pretty',
        FEIRA_QUOTE_PORT: '4010',
        FEIRA_ADMIN_TOKEN: 'env-admin-token-0123456789',
        FEIRA_SECRET_KEY: 'env-secret-key-0123456789',
        FEIRA_SECRET_KEY_PREVIOUS: 'old-secret-key-0123456789, older-secret-key-0123456789',
        FEIRA_KEY_PUBLISH_DELAY_S: '900',
        FEIRA_KEY_REFRESH_S: '30',
        FEIRA_REVEAL_REAUTH_SECONDS: '600',
        FEIRA_DISPATCH_CONCURRENCY: '200',
        FEIRA_DISPATCH_PER_ENDPOINT: '4',
        FEIRA_DISPATCH_BATCH: '50',
        FEIRA_DISPATCH_IDLE_POLL_MS: '1000',
        FEIRA_DISPATCH_LEASE_MS: '30000',
        FEIRA_UPLOAD_MAX_CELL_CHARS: '1000',
        FEIRA_UPLOAD_WORKBOOK_SECONDS: '60',
        FEIRA_API_RATE_LIMIT: '40',
        FEIRA_API_BURST: '400',
        FEIRA_RETAIN_DELIVERIES_DAYS: '90',
        FEIRA_RETAIN_QUOTE_CALLS_DAYS: '7',
        FEIRA_RETAIN_OUTBOX_HOURS: '0',
        FEIRA_RETAIN_EXPIRED_HOURS: '48',
        FEIRA_RETENTION_BATCH: '1000',
        FEIRA_RETENTION_INTERVAL_S: '60',
        FEIRA_GATEWAY_CONTACT_EMAIL: 'ops@shop.example',
        FEIRA_GATEWAY_TIMEOUT_MS: '2500',
      },
      cwd,
    );
    expect(settings).toEqual({
      port: 9000,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u@db:5432/feira',
      dataDir: '/var/lib/feira',
      seed: 'none',
      // Strict mode serves plain HTTP: TLS ends at the operator's proxy.
      https: false,
      logLevel: 'warn',
      logFormat: 'pretty',
      quotePort: 4010,
      outboundCa: undefined,
      demoGateway: 'none',
      workers: '1',
      dispatcher: true,
      platform: {
        mode: 'strict',
        publicUrl: 'https://sandbox.example',
        adminToken: 'env-admin-token-0123456789',
        secretKey: 'env-secret-key-0123456789',
        previousSecretKeys: ['old-secret-key-0123456789', 'older-secret-key-0123456789'],
        signingKeys: { publishDelaySeconds: 900, refreshSeconds: 30 },
        trustProxy: [],
        secretRevealReauthSeconds: 600,
        dispatcher: { maxInFlight: 200, perEndpointInFlight: 4, batchSize: 50, maxPollIntervalMs: 1000, leaseMs: 30_000 },
        retention: { deliveryDays: 90, quoteCallDays: 7, outboxHours: 0, expiredHours: 48, batchRows: 1000, intervalSeconds: 60 },
        gateways: {},
        gatewayContactEmail: 'ops@shop.example',
        gatewayTimeoutMs: 2500,
        uploads: expect.objectContaining({ cellChars: 1000, workbookSeconds: 60, rows: 4_000_000 }),
        apiRateLimit: { requestsPerSecond: 40, burst: 400 },
      },
    });
  });

  it('takes the flag over the environment', () => {
    const settings = resolveStartSettings(
      {
        port: '9001',
        host: '::1',
        database: 'sqlite:data/x.db',
        dataDir: 'state',
        seed: 'demo',
        mode: 'sandbox',
        adminToken: 'flag-admin-token-0123456789',
        concurrency: '64',
        dispatchLeaseMs: '2000',
        uploadMaxRows: '1048576',
      },
      {
        FEIRA_UPLOAD_MAX_ROWS: '10',
        FEIRA_DISPATCH_CONCURRENCY: '200',
        FEIRA_DISPATCH_LEASE_MS: '30000',
        FEIRA_PORT: '9000',
        FEIRA_HOST: '0.0.0.0',
        FEIRA_DATABASE: 'postgres://u@db/feira',
        FEIRA_DATA_DIR: '/var/lib/feira',
        FEIRA_SEED: 'none',
        FEIRA_MODE: 'strict',
        FEIRA_ADMIN_TOKEN: 'env-admin-token-0123456789',
      },
      cwd,
    );
    expect(settings).toMatchObject({
      port: 9001,
      host: '::1',
      databaseUrl: 'sqlite:/srv/shop/data/x.db',
      dataDir: '/srv/shop/state',
      seed: 'demo',
      platform: {
        mode: 'sandbox',
        adminToken: 'flag-admin-token-0123456789',
        dispatcher: { maxInFlight: 64, leaseMs: 2000 },
        uploads: { rows: 1_048_576 },
      },
    });
  });

  it('logs at warn in sandbox mode and info in strict mode; readable lines on a terminal, JSON when piped', () => {
    expect(resolveStartSettings({}, {}, cwd, true)).toMatchObject({ logLevel: 'warn', logFormat: 'pretty' });
    expect(resolveStartSettings({ mode: 'strict' }, {}, cwd, false)).toMatchObject({ logLevel: 'info', logFormat: 'json' });
    expect(resolveStartSettings({ logFormat: 'json', logLevel: 'debug' }, {}, cwd, true)).toMatchObject({
      logLevel: 'debug',
      logFormat: 'json',
    });
  });

  it('puts the default SQLite file inside the chosen data folder', () => {
    expect(resolveStartSettings({ dataDir: '/tmp/feira-x' }, {}, cwd).databaseUrl).toBe('sqlite:/tmp/feira-x/feira.db');
  });

  it('treats an empty environment variable as unset', () => {
    expect(resolveStartSettings({}, { FEIRA_PORT: '' }, cwd).port).toBe(8080);
  });

  it('returns a frozen object', () => {
    const settings = resolveStartSettings({}, {}, cwd);
    expect(Object.isFrozen(settings)).toBe(true);
    expect(() => {
      (settings as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it.each([
    [{ port: 'abc' }, /--port must be an integer from 0 to 65535/],
    [{ port: '70000' }, /--port/],
    [{ port: '-1' }, /--port/],
    [{ seed: 'lots' }, /--seed must be one of demo, none/],
    [{ mode: 'prod' }, /--mode must be one of sandbox, strict/],
    [{ database: 'mysql://x' }, /--database must be sqlite:<path> or a postgres:\/\/ URL/],
    [{ publicUrl: 'not a url' }, /--public-url/],
    [{ publicUrl: 'ftp://x.example' }, /--public-url/],
    [{ adminToken: 'short' }, /--admin-token must be at least 16 characters/],
    [{ adminToken: 'admin token with spaces' }, /--admin-token may hold only letters, digits/],
    [{ metricsToken: 'metrics:token!0123456' }, /--metrics-token may hold only letters, digits/],
    [{ metricsToken: 'short' }, /--metrics-token must be at least 16 characters/],
    [{ host: 'bad host!' }, /--host/],
    [{ logLevel: 'loud' }, /--log-level must be one of/],
    [{ logFormat: 'xml' }, /--log-format must be one of pretty, json/],
    [{ quotePort: '70000' }, /--quote-port must be an integer from 0 to 65535/],
    [{ outboundCa: 'no-such-ca.pem' }, /--outbound-ca: cannot read no-such-ca.pem/],
    [{ revealReauthSeconds: '5m' }, /--reveal-reauth-seconds must be a whole number of seconds from 0 to 86400/],
    [{ revealReauthSeconds: '90000' }, /--reveal-reauth-seconds must be a whole number of seconds from 0 to 86400/],
    [{ concurrency: '0' }, /--concurrency must be an integer from 1 to 100000 \(got "0"\)/],
    [{ perEndpoint: 'many' }, /--per-endpoint must be an integer from 1 to 10000/],
    [{ dispatchBatch: '1.5' }, /--dispatch-batch must be an integer from 1 to 10000/],
    [{ apiRateLimit: '0' }, /--api-rate-limit must be an integer from 1 to 100000 \(got "0"\)/],
    [{ apiBurst: '2000000' }, /--api-burst must be an integer from 1 to 1000000/],
    [{ dispatchIdlePollMs: '5' }, /--dispatch-idle-poll-ms must be an integer from 20 to 60000/],
    [{ dispatchLeaseMs: '999' }, /--dispatch-lease-ms must be an integer from 1000 to 3600000/],
    [{ uploadMaxCellChars: '100' }, /--upload-max-cell-chars must be an integer from 200 to 10000000 \(got "100"\)/],
    [{ uploadWorkbookHeapMb: 'lots' }, /--upload-workbook-heap-mb must be an integer from 16 to 16384/],
    [{ retainDeliveriesDays: '-1' }, /--retain-deliveries-days must be an integer from 0 to 3650/],
    [{ retentionBatch: '5' }, /--retention-batch must be an integer from 10 to 10000/],
    [{ gatewayTimeoutMs: '5000' }, /--gateway-timeout-ms must be an integer from 200 to 3000 \(got "5000"\)/],
    [{ gatewayContactEmail: 'ops (team)@x.example' }, /--gateway-contact-email must be one e-mail address/],
    [
      { outboundCa: fileURLToPath(new URL('./config-error.ts', import.meta.url)) },
      /--outbound-ca: .*config-error\.ts holds no PEM certificate/,
    ],
  ])('rejects %o with a ConfigError (exit code 2) naming the setting', (flags, message) => {
    let caught: unknown;
    try {
      resolveStartSettings(flags, {}, cwd);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).exitCode).toBe(2);
    expect((caught as ConfigError).message).toMatch(message);
  });

  it('D106: the sandbox serves HTTPS unless --http or FEIRA_HTTP=1; strict mode serves HTTP (TLS at its proxy)', () => {
    expect(resolveStartSettings({}, {}, cwd).https).toBe(true);
    expect(resolveStartSettings({ http: true }, {}, cwd).https).toBe(false);
    expect(resolveStartSettings({}, { FEIRA_HTTP: '1' }, cwd).https).toBe(false);
    expect(resolveStartSettings({}, { FEIRA_HTTP: '0' }, cwd).https).toBe(true);
    expect(resolveStartSettings({ mode: 'strict' }, {}, cwd).https).toBe(false);
    expect(() => resolveStartSettings({}, { FEIRA_HTTP: 'yes' }, cwd)).toThrow(/FEIRA_HTTP must be 1 or 0/);
  });

  it('D106: a public URL given as http:// while the sandbox serves HTTPS is refused, naming the flag or variable and both ways out', () => {
    for (const [flags, env, name] of [
      [{ publicUrl: 'http://127.0.0.1:8080' }, {}, '--public-url'],
      [{}, { FEIRA_PUBLIC_URL: 'http://127.0.0.1:8080' }, 'FEIRA_PUBLIC_URL'],
    ] as const) {
      expect(() => resolveStartSettings(flags, env, cwd)).toThrow(
        new RegExp(
          `^${name} is an http:// URL, but the sandbox serves HTTPS unless told --http: give --http .* or an https:// URL$`,
        ),
      );
      // Either way out starts.
      expect(resolveStartSettings({ ...flags, http: true }, env, cwd).platform.publicUrl).toBe('http://127.0.0.1:8080');
    }
    expect(resolveStartSettings({ publicUrl: 'https://127.0.0.1:8080' }, {}, cwd).https).toBe(true);
    // Strict mode serves plain HTTP behind its TLS proxy: its public URL is the proxy's, either scheme.
    expect(resolveStartSettings({ mode: 'strict', publicUrl: 'http://127.0.0.1:8080' }, {}, cwd).https).toBe(false);
  });

  it('rejects a bad environment value the same way, without echoing a secret', () => {
    expect(() => resolveStartSettings({}, { FEIRA_PORT: 'eighty' }, cwd)).toThrow(
      /^FEIRA_PORT must be an integer from 0 to 65535 \(got "eighty"\)$/,
    );
    expect(() => resolveStartSettings({}, { FEIRA_SECRET_KEY: 'tiny-secret' }, cwd)).toThrow(
      /^FEIRA_SECRET_KEY must be at least 16 characters$/,
    );
  });
});

describe('the settings table is the one list of options', () => {
  const guide = fileURLToPath(new URL('../../../../docs/sandbox.md', import.meta.url));
  const BEGIN = '<!-- feira start options: generated from packages/cli/src/config/start-config.ts -->';
  const END = '<!-- end of feira start options -->';

  it('docs/sandbox.md lists exactly the rows of the settings table, generated from it, --workers and --no-dispatcher included (FEIRA_WRITE_DOCS=1 rewrites it)', () => {
    const text = readFileSync(guide, 'utf8');
    const from = text.indexOf(BEGIN);
    const to = text.indexOf(END);
    expect(from, `docs/sandbox.md lacks ${BEGIN}`).toBeGreaterThan(-1);
    const written = text.slice(from + BEGIN.length, to).trim();
    const generated = startOptionsTable();
    if (process.env.FEIRA_WRITE_DOCS === '1' && written !== generated)
      writeFileSync(guide, `${text.slice(0, from + BEGIN.length)}\n${generated}\n${text.slice(to)}`);
    else expect(written).toBe(generated);
    for (const flag of ['--workers <n\\|auto>', '--no-dispatcher', '--outbound-ca <file>'])
      expect(generated).toContain(`\`${flag}\``);
  });

  it('feira dispatch takes the database, data folder, mode, secret keys (current and previous), outbound CA and every dispatcher tuning row', () => {
    expect(settingsOf('dispatch').map(({ path }) => path.join('.'))).toEqual([
      'database',
      'dataDir',
      'outboundCa',
      'platform.mode',
      'platform.secretKey',
      'platform.previousSecretKeys',
      'platform.dispatcher.maxInFlight',
      'platform.dispatcher.perEndpointInFlight',
      'platform.dispatcher.batchSize',
      'platform.dispatcher.maxPollIntervalMs',
      'platform.dispatcher.leaseMs',
      'platform.retention.deliveryDays',
      'platform.retention.quoteCallDays',
      'platform.retention.outboxHours',
      'platform.retention.expiredHours',
      'platform.retention.batchRows',
      'platform.retention.intervalSeconds',
    ]);
  });
});

describe('--outbound-ca: extra CAs trusted for webhook deliveries and quote calls', () => {
  it('reads the PEM file named by the flag, else by FEIRA_OUTBOUND_CA, relative to the working directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-ca-'));
    try {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
      writeFileSync(join(dir, 'flag.pem'), pem);
      writeFileSync(join(dir, 'env.pem'), pem.replace('MIIB', 'MIIC'));
      expect(resolveStartSettings({ outboundCa: 'flag.pem' }, { FEIRA_OUTBOUND_CA: 'env.pem' }, dir).outboundCa).toBe(pem);
      expect(resolveStartSettings({}, { FEIRA_OUTBOUND_CA: 'env.pem' }, dir).outboundCa).toContain('MIIC');
      expect(resolveStartSettings({}, {}, dir).outboundCa).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--trust-proxy: the reverse proxies whose X-Forwarded-For names the client', () => {
  it('takes addresses, CIDR ranges and loopback, comma-separated, from the flag, else FEIRA_TRUST_PROXY; none by default', () => {
    expect(resolveStartSettings({ trustProxy: '10.0.0.5, 192.168.0.0/16,loopback,::1' }, {}, cwd).platform.trustProxy).toEqual([
      '10.0.0.5',
      '192.168.0.0/16',
      'loopback',
      '::1',
    ]);
    expect(resolveStartSettings({}, { FEIRA_TRUST_PROXY: 'fd00::/8' }, cwd).platform.trustProxy).toEqual(['fd00::/8']);
    expect(resolveStartSettings({}, {}, cwd).platform.trustProxy).toEqual([]);
  });

  it.each([
    ['true', /--trust-proxy: "true" is not an address/],
    ['10.0.0.5,proxy.internal', /"proxy\.internal" is not an address/],
    ['10.0.0.0/99', /"10\.0\.0\.0\/99" is not an address/],
  ])(
    'refuses %s, naming the entry (exit code 2): trusting every hop would let any client name its own address',
    (value, message) => {
      let caught: unknown;
      try {
        resolveStartSettings({ trustProxy: value }, {}, cwd);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).exitCode).toBe(2);
      expect((caught as ConfigError).message).toMatch(message);
    },
  );
});

describe('secrets kept in the data folder', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('generates a secret once, with mode 0600, and returns the same value on every later start', () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-config-'));
    const dataDir = join(dir, 'data');
    let calls = 0;
    const generate = () => `generated-${++calls}-0123456789abcdef`;
    const first = loadOrCreateSecretFile(dataDir, 'admin-token', generate);
    expect(first).toMatchObject({ value: 'generated-1-0123456789abcdef', generated: true });
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.path, 'utf8').trim()).toBe(first.value);
    const second = loadOrCreateSecretFile(dataDir, 'admin-token', generate);
    expect(second).toMatchObject({ value: first.value, generated: false });
    expect(calls).toBe(1);
  });
});

describe('key rotation settings (docs/deploy.md "Rotating keys")', () => {
  it('D111: a publish delay shorter than the key refresh is refused: a process must load a key before it signs', () => {
    expect(() => resolveStartSettings({ keyPublishDelayS: '30', keyRefreshS: '60' }, {}, '/srv')).toThrow(
      /--key-publish-delay-s must be at least --key-refresh-s/,
    );
  });

  it('D112: a previous secret shorter than a secret may be is refused, naming which, never echoing it', () => {
    let message = '';
    try {
      resolveStartSettings({}, { FEIRA_SECRET_KEY_PREVIOUS: 'long-enough-secret-0123456789,short' }, '/srv');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/FEIRA_SECRET_KEY_PREVIOUS \(secret 2\) must be at least 16 characters/);
    expect(message).not.toContain('short');
  });
});
