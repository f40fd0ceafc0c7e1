import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumLaunchOptions } from '@feira/platform/testing';
import pg from 'pg';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeiraProcess, runFeira } from './feira-process.js';
import { approveInBrowser, PRINTED_LOGIN_URL } from './support/browser-login.js';

// The README's quick start, then its "Running on PostgreSQL" step in the same
// folder, then a plain start again: each database keeps its own demo in the
// data folder (D70), and a login made against the other database is noticed
// by the commands that use it.

const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;
const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;

describe.runIf(pgUrl)('one data folder, two databases', { timeout: 400_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-two-databases-'));
  const dataDir = join(dir, '.feira');
  const running: FeiraProcess[] = [];
  const feira = (...args: string[]) => {
    const p = runFeira([...args, '--data-dir', dataDir]);
    running.push(p);
    return p;
  };
  const name = `feira_folder_${randomBytes(6).toString('hex')}`;
  const pgAdmin = new pg.Client({ connectionString: pgUrl });
  let postgresUrl: string;
  let browser: Browser;
  // One port for every start, as `npm start` always takes 8080: only the database changes.
  let port = '0';

  beforeAll(async () => {
    await pgAdmin.connect();
    await pgAdmin.query(`create database ${name}`);
    const url = new URL(pgUrl as string);
    url.pathname = `/${name}`;
    postgresUrl = url.toString();
    browser = await chromium.launch(chromiumLaunchOptions());
    port = await new Promise<string>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(String(free)));
      });
    });
  }, 120_000);

  afterAll(async () => {
    for (const p of running) await p.stop('SIGKILL');
    await browser?.close();
    await pgAdmin.query(`drop database if exists ${name} with (force)`);
    await pgAdmin.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const demoFile = () => JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));

  async function loginThroughBrowser(): Promise<void> {
    const login = feira('login');
    const url = (await login.waitFor(PRINTED_LOGIN_URL))[1] as string;
    await approveInBrowser(browser, url, demoFile());
    expect(await login.exited).toBe(0);
  }

  /** The demo seller signs in again: consent was given before, so the browser goes straight back to the CLI. */
  async function signInAgain(): Promise<void> {
    const login = feira('login');
    const url = (await login.waitFor(PRINTED_LOGIN_URL))[1] as string;
    const demo = demoFile();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('input[name="login"]').fill(demo.sellerLogin);
      await page.locator('input[name="password"]').fill(demo.sellerPassword);
      await page.locator('button[type="submit"]', { hasText: 'Sign in' }).click();
      for (const box of await page.locator('input[name="tenant"]').all()) await box.check();
      await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();
      await page.getByText('Logged in to Feira').waitFor();
    } finally {
      await context.close();
    }
    expect(await login.exited).toBe(0);
  }

  it('D70: start on SQLite, on PostgreSQL in the same folder, on SQLite again: the demo and its login still work; a login against the other database says run npx feira login', async () => {
    // 1. npm start: SQLite in the data folder, the demo planted; feira login.
    const first = feira('start', '--port', port, '--log-level', 'silent');
    await first.waitFor(LISTENING, 120_000);
    expect(first.stdout()).toContain('Demo seller (created now)');
    const sqliteDemo = demoFile();
    await loginThroughBrowser();
    expect(await first.stop('SIGTERM')).toBe(0);

    // 2. npm start -- --database postgres://… in the same folder: its own demo.
    const second = feira('start', '--port', port, '--log-level', 'silent', '--database', postgresUrl);
    await second.waitFor(LISTENING, 120_000);
    expect(second.stdout()).toContain('Demo seller (created now)');
    const postgresDemo = demoFile();
    expect(postgresDemo.clientId).not.toBe(sqliteDemo.clientId);
    // The login was made against SQLite: each command that uses it says so instead of a 401.
    for (const args of [['token'], ['listen', '--forward-to', 'http://127.0.0.1:9/hooks']]) {
      const stale = feira(...args);
      expect(await stale.exited).toBe(1);
      expect(stale.stderr()).toMatch(
        /the stored login was made against the database sqlite:.*, and the sandbox now runs on postgres:/,
      );
      expect(stale.stderr()).toContain('run npx feira login');
    }
    expect(await second.stop('SIGTERM')).toBe(0);

    // 3. npm start again: the SQLite demo is back, its credentials printed, no "No demo".
    const third = feira('start', '--port', port, '--log-level', 'silent');
    await third.waitFor(LISTENING, 120_000);
    expect(third.stdout()).not.toContain('No demo');
    expect(third.stdout()).toContain(`client_id     ${sqliteDemo.clientId}`);
    expect(third.stdout()).toContain(`password     ${sqliteDemo.sellerPassword}`);
    expect(demoFile().clientId).toBe(sqliteDemo.clientId);
    // The login made against SQLite in step 1 works again.
    const token = feira('token');
    expect(await token.exited, token.stderr()).toBe(0);
    expect(token.stdout().trim()).toMatch(/^eyJ/);
    // And the demo seller signs in through the browser as on the first day (the consent given then still stands).
    await signInAgain();
    expect(await third.stop('SIGTERM')).toBe(0);

    // PostgreSQL again: its own demo is recalled too, and the SQLite login is noticed.
    const fourth = feira('start', '--port', port, '--log-level', 'silent', '--database', postgresUrl);
    await fourth.waitFor(LISTENING, 120_000);
    expect(fourth.stdout()).toContain(`client_id     ${postgresDemo.clientId}`);
    const stale = feira('token');
    expect(await stale.exited).toBe(1);
    expect(stale.stderr()).toContain('run npx feira login');
    expect(await fourth.stop('SIGTERM')).toBe(0);
  });
});
