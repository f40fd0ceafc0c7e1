// Shared steps of the webhook tests: sign up through the real API, write events
// through the outbox, and run a dispatcher on the test platform or in a process of its own.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Topic } from '@feira/contract';
import { appendEvent, type RecordChange } from '../../src/records/outbox.js';
import { inTransaction } from '../../src/records/record-write.js';
import { createTestPlatform, ManualClock, type TestPlatform, type TestPlatformDeps, testTls } from '../../src/testing.js';
import {
  WebhookDispatcher,
  type WebhookDispatcherDeps,
  type WebhookDispatcherOptions,
} from '../../src/webhooks/webhook-dispatcher.js';
import { type LoopbackReceiver, startReceiver } from './loopback-receiver.js';

export interface Seller {
  tenantId: string;
  clientId: string;
  token: string;
}

/**
 * For the throughput probes: a test clock that reads the wall clock, as `feira start` runs.
 * A frozen clock gives every time-ordered id (core/uuid-v7.ts) the same millisecond, so they
 * land on random index pages like v4 ids and a drain measures a third slower than it runs.
 */
export function wallClock(): ManualClock {
  const clock = new ManualClock();
  clock.now = () => new Date();
  return clock;
}

export const SELLER_SCOPES = ['open:webhook:write', 'open:ticket:read', 'open:order-order:read'] as const;

export async function sellerWithToken(platform: TestPlatform, clientId?: string): Promise<Seller> {
  const { tenantIds } = await platform.createSeller();
  const tenantId = tenantIds[0] as string;
  const client = clientId ?? `client-${platform.app.platform.random.uuid()}`;
  const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: client });
  return { tenantId, clientId: client, token };
}

/** A fresh access token for the same seller, client and tenant (after the clock moved past the old one's expiry). */
export async function renewToken(platform: TestPlatform, seller: Seller): Promise<Seller> {
  const token = await platform.mintAccessToken({
    tenants: [seller.tenantId],
    scopes: [...SELLER_SCOPES],
    clientId: seller.clientId,
  });
  return { ...seller, token };
}

export async function signup(
  platform: TestPlatform,
  seller: Seller,
  version: 'v0' | 'v1',
  webhook: string,
  topics: Topic[] | null = ['sac_ticket'],
) {
  return platform.app.inject({
    method: 'PUT',
    url: `/${version}/onboarding/signup`,
    headers: { authorization: `Bearer ${seller.token}` },
    payload: topics ? { webhook, topics } : { webhook },
  });
}

/** Writes one event exactly as a record write does: inside a transaction, through the outbox, signalled after the commit. */
export async function recordChange(
  platform: TestPlatform,
  change: Partial<RecordChange> & { tenantId: string },
): Promise<string> {
  const recordId = change.recordId ?? platform.app.platform.random.uuid();
  return inTransaction(platform.database.db, platform.app.platform, (trx) =>
    appendEvent(
      trx,
      {
        topic: 'sac_ticket',
        status: 'CREATION',
        resource: `/seller/v0/tickets/${recordId}`,
        ...change,
        recordId,
      },
      platform.app.platform,
    ),
  );
}

/**
 * A test platform whose outbound client trusts the test CA, and one HTTPS
 * receiver: what the dispatcher and its parts are tested against. `close`
 * stops the receiver, then the platform.
 */
export async function platformWithReceiver(
  target: Parameters<typeof createTestPlatform>[0],
  options: TestPlatformDeps = {},
): Promise<{ platform: TestPlatform; receiver: LoopbackReceiver; close(): Promise<void> }> {
  const platform = await createTestPlatform(target, { outboundCa: testTls.ca, ...options });
  const receiver = await startReceiver({ tls: true });
  return {
    platform,
    receiver,
    async close() {
      await receiver.close();
      await platform.close();
    },
  };
}

/** A dispatcher on the test platform (or any app's context); `deps` replaces some of the platform's (a log to read, say). */
export function dispatcherOf(
  platform: Pick<TestPlatform, 'app'>,
  options: WebhookDispatcherOptions = {},
  deps: Partial<WebhookDispatcherDeps> = {},
): WebhookDispatcher {
  return new WebhookDispatcher(
    { ...platform.app.platform, ...deps },
    { worker: 'test-worker', requestTimeoutMs: 2_000, ...options },
  );
}

const DISPATCHER_PROCESS = fileURLToPath(new URL('./dispatcher-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * A dispatcher in a process of its own (dispatcher-process.ts, configured by `env`), as `feira dispatch`
 * runs beside the API: resolves once it says it is ready, fails if it exits or is not ready within `startupMs`.
 */
export function spawnDispatcher(env: Record<string, string>, startupMs = 90_000): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', DISPATCHER_PROCESS], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.typecheck.json', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dispatcher process did not start in ${startupMs / 1000} s`)), startupMs);
    child.once('exit', (code) => reject(new Error(`dispatcher process exited early (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

/** Resolves once the process has ended (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}
