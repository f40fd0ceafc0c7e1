import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, TEST_ADMIN_TOKEN } from '../../src/testing.js';
import { axeViolations } from './axe.js';
import { platformInChromium, signInOperator } from './browser-kit.js';

/**
 * The operator's signing-key page in Chromium (docs/deploy.md "Rotating
 * keys"): the keys and their states as the admin API lists them, and a rotate
 * button that asks first, publishes a new key in the JWKS, and refuses a
 * second rotation while the new key waits to sign. At 375 px, light and dark,
 * in both languages, with axe finding nothing of any impact.
 */
describe.each(testDatabaseTargets())('signing-key page in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  const operator = (locale: string, colorScheme: 'light' | 'dark') =>
    signInOperator(browser, platform.url, { locale, colorScheme, viewport: { width: 375, height: 800 } });

  const listed = async () => {
    const response = await fetch(`${platform.url}/admin/v1/signing-keys`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    return ((await response.json()) as { data: Array<{ kid: string; state: string }> }).data;
  };
  const published = async () => {
    const response = await fetch(`${platform.url}/.well-known/jwks.json`);
    return ((await response.json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
  };
  /** Nothing on the page scrolls sideways. */
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  it('lists the keys with their states in pt-BR (light), reached from the operator navigation; axe finds nothing', async () => {
    const [current] = await listed();
    const page = await operator('pt-BR', 'light');
    await page
      .getByRole('navigation', { name: 'Seções da operação' })
      .getByRole('link', { name: 'Chaves de assinatura' })
      .click();
    await page.getByRole('heading', { name: 'Chaves de assinatura', level: 1 }).waitFor({ timeout: 10_000 });
    const row = page.getByRole('row', { name: new RegExp(current?.kid as string) });
    await expect(row.textContent()).resolves.toContain('Atual: assina os tokens novos');
    expect(await axeViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.context().close();
  }, 120_000);

  it('rotates in English (dark) after a confirmation: cancel changes nothing; the new key is in the JWKS at once and waits to sign; a second rotation is refused; a form without its CSRF token changes nothing', async () => {
    const before = await listed();
    const page = await operator('en-US', 'dark');
    await page.goto(`${platform.url}/console/operator/keys`);
    await page.getByRole('heading', { name: 'Signing keys', level: 1 }).waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);

    const rotate = page.getByRole('button', { name: 'Rotate the signing key' });
    await rotate.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ timeout: 10_000 });
    await expect(dialog.getByRole('heading').textContent()).resolves.toBe('Rotate the signing key?');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await listed()).toEqual(before);

    await rotate.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByRole('status').waitFor({ timeout: 10_000 });
    const after = await listed();
    expect(after).toHaveLength(before.length + 1);
    const added = after.find((key) => !before.some((old) => old.kid === key.kid));
    expect(added?.state).toBe('next');
    await expect(page.getByRole('status').textContent()).resolves.toContain(`Key ${added?.kid} was published`);
    await expect(page.getByRole('row', { name: new RegExp(added?.kid as string) }).textContent()).resolves.toContain(
      'Next: published, not signing yet',
    );
    // Published before it signs: an app that fetches the JWKS now already finds it.
    expect(await published()).toContain(added?.kid);
    expect(await axeViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // One rotation at a time: the key waiting to sign must reach every process first.
    await page.getByRole('button', { name: 'Rotate the signing key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('alert').textContent()).resolves.toContain(`Nothing was rotated: key ${added?.kid}`);
    expect(await listed()).toHaveLength(after.length);

    // Another site's form, without the session's CSRF token: sent back, nothing rotated.
    const forged = await page.request.post(`${platform.url}/console/operator/keys/rotate`, {
      form: { confirmed: '1' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(303);
    expect(await listed()).toHaveLength(after.length);
    await page.context().close();
  }, 120_000);

  it('without JavaScript the button asks on a page of its own (pt-BR, dark) before anything rotates', async () => {
    const before = await listed();
    const page = await signInOperator(browser, platform.url, {
      locale: 'pt-BR',
      colorScheme: 'dark',
      javaScriptEnabled: false,
      viewport: { width: 375, height: 800 },
    });
    await page.goto(`${platform.url}/console/operator/keys`);
    await page.getByRole('button', { name: 'Trocar a chave de assinatura' }).click();
    await page.getByRole('heading', { name: 'Trocar a chave de assinatura?' }).waitFor({ timeout: 10_000 });
    expect(await listed()).toEqual(before);
    await page.getByRole('link', { name: 'Cancelar' }).click();
    await page.getByRole('heading', { name: 'Chaves de assinatura', level: 1 }).waitFor({ timeout: 10_000 });
    expect(await listed()).toEqual(before);
    await page.context().close();
  }, 120_000);

  it('a signed-out visitor gets the operator sign-in, not the keys, and cannot rotate', async () => {
    const before = await listed();
    const page = await fetch(`${platform.url}/console/operator/keys`);
    expect(page.status).toBe(401);
    expect(await page.text()).not.toContain(before[0]?.kid);
    const post = await fetch(`${platform.url}/console/operator/keys/rotate`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirmed=1',
      redirect: 'manual',
    });
    expect(post.status).toBe(401);
    expect(await listed()).toEqual(before);
  });
});
