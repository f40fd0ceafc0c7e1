// The published form of the SDK, used as an integrator outside this repository
// would (D53): `npm pack`, install the tarball alone into an empty project with
// no registry, compile a typed script with tsc --strict against its bundled
// declarations, and run it against a real sandbox.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cryptoRandom, seedRecords } from '@feira/platform';
import { type ListeningPlatform, listenPlatform } from '@feira/platform/testing';
import { authorizationUrl, createPkce } from '@feira/sdk';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentAsSeller } from './support/seller-browser.js';

const run = promisify(execFile);
const sdkDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const requireFromRepo = createRequire(join(repoRoot, 'package.json'));
const tscBin = requireFromRepo.resolve('typescript/bin/tsc');
// typebox's exports hide its package.json: its directory is found from the paths Node searches.
const typeboxDir = (requireFromRepo.resolve.paths('@sinclair/typebox') ?? [])
  .map((dir) => join(dir, '@sinclair/typebox'))
  .find((dir) => existsSync(join(dir, 'package.json'))) as string;
const REDIRECT_URI = 'https://integrator.example/callback';

/** The integrator's script: every call typed through the installed package's own declarations. */
const CONSUMER_TS = `
import {
  FeiraApiError,
  FeiraClient,
  handleCallback,
  type Order,
  RECORD_PATHS,
  type TokenSet,
  verifyStandardWebhook,
} from '@feira/sdk';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(name + ' is not set');
  return value;
};
const oauth = { authUrl: env('FEIRA_URL'), clientId: env('FEIRA_CLIENT_ID'), clientSecret: env('FEIRA_CLIENT_SECRET') };
const tokens: TokenSet = await handleCallback(env('CALLBACK_URL'), {
  ...oauth,
  state: env('OAUTH_STATE'),
  codeVerifier: env('CODE_VERIFIER'),
});
const api = new FeiraClient({ baseUrl: env('FEIRA_URL'), accessToken: tokens.access_token, timeoutMs: 10_000, retry: { maxRetries: 1 } });
const orders: Order[] = [];
for await (const order of api.list(RECORD_PATHS.orders, { limit: 2, sort: 'created_at:desc' })) orders.push(order);
const first = orders[0];
if (!first) throw new Error('no orders');
const again = await api.get(\`/v1/orders/\${first.id}\`);
const status: string = again.status;
const total: number = again.total_amount;
let missing = 'none';
try {
  await api.get('/v1/orders/00000000-0000-4000-8000-000000000000');
} catch (error) {
  if (error instanceof FeiraApiError) missing = error.slug;
}
const hook = verifyStandardWebhook({
  rawBody: env('WEBHOOK_BODY'),
  headers: JSON.parse(env('WEBHOOK_HEADERS')) as Record<string, string>,
  secrets: env('WEBHOOK_SECRET'),
});
console.log(JSON.stringify({ orders: orders.length, sameOrder: again.id === first.id, status, total, missing, hookId: hook.id, topic: hook.message.topic }));
`;

/** The same package from CommonJS: \`require\` resolves the CJS build and its .d.cts. */
const CONSUMER_CTS = `
import { DEFAULT_TIMEOUT_MS, FeiraClient, verifyWebhook } from '@feira/sdk';
const api: FeiraClient = new FeiraClient({ baseUrl: 'http://127.0.0.1:1', accessToken: 't' });
console.log(JSON.stringify({ list: typeof api.list, verifyWebhook: typeof verifyWebhook, timeout: DEFAULT_TIMEOUT_MS }));
`;

/** A mistake the declarations must catch: an order's status is not a number. */
const MISUSE_TS = `
import { FeiraClient } from '@feira/sdk';
const api = new FeiraClient({ baseUrl: 'http://127.0.0.1:1', accessToken: 't' });
for await (const order of api.list('/v1/orders')) {
  const wrong: number = order.status;
  console.log(wrong);
}
`;

const TSCONFIG = (include: string[], skipLibCheck = false) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      // The installed declarations are checked too, not only the script.
      skipLibCheck,
      outDir: 'dist',
      rootDir: 'src',
      types: ['node'],
      typeRoots: [join(repoRoot, 'node_modules/@types')],
    },
    include,
  });

describe('the packed @feira/sdk installs alone into an empty project and its typed script runs against a sandbox', () => {
  let work: string;
  let project: string;
  let platform: ListeningPlatform;
  let sandboxEnv: Record<string, string>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'feira-sdk-pack-'));
    project = join(work, 'consumer');
    // `npm pack` runs the package's prepack: tsc -b, then the bundle (D53).
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: sdkDir, maxBuffer: 16 << 20 });
    const [sdkTarball] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    if (!sdkTarball) throw new Error('npm pack wrote no tarball');
    // Its one dependency, packed from the copy this repository installed from the registry: no network needed.
    const typebox = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work, typeboxDir], {
      cwd: work,
      maxBuffer: 16 << 20,
    });
    const [typeboxTarball] = JSON.parse(typebox.stdout) as Array<{ filename: string }>;
    if (!typeboxTarball) throw new Error('npm pack wrote no typebox tarball');

    await run('mkdir', ['-p', join(project, 'src')]);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
    await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', join(work, sdkTarball.filename), join(work, typeboxTarball.filename)],
      { cwd: project, maxBuffer: 16 << 20, env: { ...process.env, npm_config_workspaces: 'false' } },
    );

    platform = await listenPlatform();
    const client = await platform.createClient({ redirectUris: [REDIRECT_URI] });
    const seller = await platform.createSeller({ tenants: 1 });
    await seedRecords(
      platform.database,
      seller.tenantIds[0] as string,
      { orders: 3 },
      { clock: platform.clock, random: cryptoRandom },
    );
    const pkce = createPkce();
    const callback = await consentAsSeller(
      authorizationUrl({
        authUrl: platform.url,
        clientId: client.clientId,
        redirectUri: REDIRECT_URI,
        scopes: ['open:order-order:read'],
        state: 'consumer-state',
        pkce,
      }),
      seller,
    );
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const body = JSON.stringify({
      data: { status: 'CREATION', params: { id: 'o-1' }, resource: '/v1/orders/o-1' },
      tenant_id: seller.tenantIds[0],
      topic: 'order',
    });
    const now = new Date();
    sandboxEnv = {
      FEIRA_URL: platform.url,
      FEIRA_CLIENT_ID: client.clientId,
      FEIRA_CLIENT_SECRET: client.clientSecret,
      CALLBACK_URL: callback.toString(),
      OAUTH_STATE: 'consumer-state',
      CODE_VERIFIER: pkce.codeVerifier,
      WEBHOOK_SECRET: secret,
      WEBHOOK_BODY: body,
      WEBHOOK_HEADERS: JSON.stringify({
        'webhook-id': 'msg-1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new ReferenceWebhook(secret).sign('msg-1', now, body),
      }),
    };
  }, 240_000);

  afterAll(async () => {
    await platform?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('D53: the tarball holds the bundle, its declarations and README only; installed, it brings no @feira/contract, only @sinclair/typebox', async () => {
    const installed = JSON.parse(await readFile(join(project, 'node_modules/@feira/sdk/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(installed.dependencies)).toEqual(['@sinclair/typebox']);
    expect(await readdir(join(project, 'node_modules/@feira'))).toEqual(['sdk']);
    expect((await readdir(join(project, 'node_modules/@feira/sdk/dist/bundle'))).sort()).toEqual([
      'index.cjs',
      'index.d.cts',
      'index.d.ts',
      'index.js',
    ]);
    expect(await readdir(join(project, 'node_modules/@feira/sdk'))).toContain('README.md');
    const declarations = await readFile(join(project, 'node_modules/@feira/sdk/dist/bundle/index.d.ts'), 'utf8');
    expect(declarations).not.toContain('@feira/contract');
  });

  it('a typed ES module script compiles with tsc --strict (the installed declarations checked too) and runs the OAuth callback, typed lists and reads, and Standard Webhooks verification against the sandbox', async () => {
    await writeFile(join(project, 'src/consumer.ts'), CONSUMER_TS);
    await writeFile(join(project, 'src/check.cts'), CONSUMER_CTS);
    await writeFile(join(project, 'tsconfig.json'), TSCONFIG(['src/consumer.ts', 'src/check.cts']));
    await run(process.execPath, [tscBin, '-p', project], { cwd: project, maxBuffer: 16 << 20 }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`tsc --strict failed:\n${error.stdout ?? String(error)}`);
      },
    );

    const esm = await run(process.execPath, [join(project, 'dist/consumer.js')], {
      cwd: project,
      env: { ...process.env, ...sandboxEnv },
    });
    expect(JSON.parse(esm.stdout)).toEqual({
      orders: 3,
      sameOrder: true,
      status: expect.any(String),
      total: expect.any(Number),
      missing: 'NOT_FOUND',
      hookId: 'msg-1',
      topic: 'order',
    });

    const cjs = await run(process.execPath, [join(project, 'dist/check.cjs')], { cwd: project });
    expect(JSON.parse(cjs.stdout)).toEqual({ list: 'function', verifyWebhook: 'function', timeout: 30_000 });
  }, 240_000);

  it('the declarations are real types: reading an order status as a number fails to compile', async () => {
    await writeFile(join(project, 'src/misuse.ts'), MISUSE_TS);
    await writeFile(join(project, 'tsconfig.misuse.json'), TSCONFIG(['src/misuse.ts'], true));
    const failed = await run(process.execPath, [tscBin, '-p', join(project, 'tsconfig.misuse.json'), '--noEmit'], {
      cwd: project,
    }).then(
      () => undefined,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    expect(failed).toMatch(/misuse\.ts\(\d+,\d+\): error TS2322/);
  }, 240_000);
});
