// Shared steps of the Chromium tests: a listening platform and a browser for a
// describe block, a page signed in as a seller or as the operator through the
// console's real forms, a store with a connected app subscribed to topics, the
// dispatcher run until nothing is due, and a delivery's signature checked as a
// subscriber checks it. Each test keeps its own locales, viewports and assertions.
import { createHmac } from 'node:crypto';
import type { Topic } from '@feira/contract';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { recordConsent } from '../../src/identity/consent-store.js';
import {
  chromiumLaunchOptions,
  type ListeningPlatform,
  listenPlatform,
  pollUntil,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  type TestPlatformDeps,
  testTls,
} from '../../src/testing.js';
import { type LoopbackReceiver, type ReceivedRequest, startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, SELLER_SCOPES, signup } from '../webhooks/webhook-kit.js';

/** What a describe block's tests drive: the platform on a real socket and the Chromium they open pages in. */
export interface PlatformInChromium {
  platform: ListeningPlatform;
  browser: Browser;
}

/**
 * For the describe block it is called in: before its tests, a listening
 * platform on `target` (built with `deps`: `outboundCa: testTls.ca` for one
 * that delivers to a loopback receiver) and a Chromium, handed to `opened` for
 * the block's own variables; after its tests, the browser closed, then the
 * platform. A block with servers of its own starts them in a `beforeAll` of its
 * own, which runs after this one, and closes them in an `afterAll` of its own,
 * which Vitest runs before this one (after-hooks run in reverse).
 */
export function platformInChromium(
  target: Parameters<typeof listenPlatform>[0],
  opened: (suite: PlatformInChromium) => void,
  deps: TestPlatformDeps = {},
): void {
  let platform: ListeningPlatform | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    platform = await listenPlatform(target, deps);
    browser = await chromium.launch(chromiumLaunchOptions());
    opened({ platform, browser });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });
}

/** What a describe block's webhook tests drive besides: the HTTPS receiver its subscriptions deliver to. */
export interface WebhooksInChromium extends PlatformInChromium {
  hooks: LoopbackReceiver;
}

/**
 * {@link platformInChromium} for webhook tests: the platform trusts the test
 * CA, and an HTTPS loopback receiver answering as `answer` says (200 `ok`
 * when not given) is started after the browser and closed before it.
 */
export function webhooksInChromium(
  target: Parameters<typeof listenPlatform>[0],
  opened: (suite: WebhooksInChromium) => void,
  answer?: LoopbackReceiver['answer'],
): void {
  let suite: PlatformInChromium | undefined;
  let hooks: LoopbackReceiver | undefined;
  platformInChromium(
    target,
    (started) => {
      suite = started;
    },
    { outboundCa: testTls.ca },
  );
  beforeAll(async () => {
    hooks = await startReceiver({ tls: true, answer });
    opened({ ...(suite as PlatformInChromium), hooks });
  });
  afterAll(() => hooks?.close());
}

/**
 * How a test looks at the console: a locale alone, or a browser context's
 * options (locale, viewport, color scheme, permissions, JavaScript, time zone)
 * with `timeout`, the context's default for actions and waits in ms
 * (Playwright's own when not given).
 */
export type ConsoleView = string | (BrowserContextOptions & { timeout?: number });

/** A page in a fresh browser context opened as `view` says. */
async function pageFor(browser: Browser, view: ConsoleView): Promise<Page> {
  const { timeout, ...options } = typeof view === 'string' ? { locale: view } : view;
  const context = await browser.newContext(options);
  if (timeout !== undefined) context.setDefaultTimeout(timeout);
  return context.newPage();
}

/** Signs a seller in on `page` through the real console login form (whatever the language); the page ends on their stores list. */
export async function signInOn(page: Page, url: string, seller: { login: string; password: string }): Promise<void> {
  await page.goto(`${url}/console`);
  await page.locator('#login').fill(seller.login);
  await page.locator('#password').fill(seller.password);
  await page.locator('form[action="/console/login"] button[type="submit"]').click();
  await page.locator('form[action="/console/logout"]').waitFor({ timeout: 10_000 });
}

/**
 * A seller signed in to the console in a fresh browser context opened as
 * `view` says, through the real login form: the page is on their stores list.
 */
export async function signInToConsole(
  browser: Browser,
  url: string,
  seller: { login: string; password: string },
  view: ConsoleView = 'en-US',
): Promise<Page> {
  const page = await pageFor(browser, view);
  await signInOn(page, url, seller);
  return page;
}

/** Signs the operator in on `page` with the admin token, through the operator's sign-in form; the page ends on the operator's home. */
export async function signInOperatorOn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console/operator`);
  await page.locator('#admin-token').fill(TEST_ADMIN_TOKEN);
  await page.locator('form[action="/console/operator/login"] button[type="submit"]').click();
  await page.locator('#seller-name').waitFor({ timeout: 10_000 });
}

/** The operator signed in to the console in a fresh browser context opened as `view` says: the page is on the operator's home. */
export async function signInOperator(browser: Browser, url: string, view: ConsoleView = 'en-US'): Promise<Page> {
  const page = await pageFor(browser, view);
  await signInOperatorOn(page, url);
  return page;
}

/**
 * An app (named `name`) connected to the seller's first store: the seller has
 * consented to `consented` for it there, as the consent screen records it.
 */
export async function connectedApp(
  platform: TestPlatform,
  seller: { sellerId: string; tenantIds: string[] },
  { name = 'Acme Integrações', consented = SELLER_SCOPES }: { name?: string; consented?: readonly string[] } = {},
): Promise<{ clientId: string; clientSecret: string }> {
  const app = await platform.createClient({ name });
  await recordConsent(
    platform.database.db,
    { clientId: app.clientId, sellerId: seller.sellerId, tenants: [seller.tenantIds[0] as string] },
    [...consented],
    platform.clock,
  );
  return app;
}

/** A subscription as the signup answers it. */
export interface SignedUpSubscription {
  id: string;
  topic: string;
  parameters: { secret: string };
}

/**
 * A new seller (with `tenants` stores) whose first store has an app connected
 * (see {@link connectedApp}; `consented: null` for an app the seller never
 * consented to, whose token is only minted) that signed up through the real v1
 * API for `topics`, delivered to `webhook`; the signup must be answered 200.
 */
export async function storeWithSubscribedApp(
  platform: TestPlatform,
  webhook: string,
  topics: Topic[] = ['sac_ticket'],
  { tenants = 1, name, consented }: { tenants?: number; name?: string; consented?: readonly string[] | null } = {},
) {
  const seller = await platform.createSeller({ tenants });
  const tenantId = seller.tenantIds[0] as string;
  const app =
    consented === null
      ? await platform.createClient({ name: name ?? 'Acme Integrações' })
      : await connectedApp(platform, seller, { name, consented });
  const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
  const signed = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', webhook, topics);
  expect(signed.statusCode).toBe(200);
  const { subscriptions } = signed.json() as { subscriptions: SignedUpSubscription[] };
  return { seller, tenantId, app, token, subscriptions };
}

/** Runs the dispatcher until nothing of the store is due now (every delivery attempted). */
export async function deliverAll(platform: TestPlatform, tenantId: string): Promise<void> {
  await pollUntil(
    'every due delivery attempted',
    async () => {
      await dispatcherOf(platform).runOnce();
      const due = await platform.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', platform.clock.now().toISOString())
        .execute();
      return due.length === 0 ? true : undefined;
    },
    { deadlineMs: 30_000 },
  );
}

/**
 * True when one `sha256=` entry of the request's `X-Signature-256` is the HMAC
 * of `<timestamp>.<body>` under `secret` (spec "Signature"), as every
 * delivery's and every operational alert's is.
 */
export function signedWith(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-timestamp']);
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(request.raw).digest('hex');
  return String(request.headers['x-signature-256'] ?? '')
    .split(',')
    .some((entry) => entry.trim() === `sha256=${digest}`);
}
