import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

/** Signs a seller in on `page` through the real console login form (whatever the language); the page ends on their stores list. */
export async function signInOn(page: Page, url: string, seller: { login: string; password: string }): Promise<void> {
  await page.goto(`${url}/console`);
  await page.locator('#login').fill(seller.login);
  await page.locator('#password').fill(seller.password);
  await page.locator('form[action="/console/login"] button[type="submit"]').click();
  await page.locator('form[action="/console/logout"]').waitFor({ timeout: 10_000 });
}

/**
 * A seller signed in to the console in a fresh browser context (`locale`, or
 * the context's options: viewport, permissions, JavaScript), through the real
 * login form: the page is on their stores list.
 */
export async function signInToConsole(
  browser: Browser,
  url: string,
  seller: { login: string; password: string },
  context: string | BrowserContextOptions = 'en-US',
): Promise<Page> {
  const page = await (await browser.newContext(typeof context === 'string' ? { locale: context } : context)).newPage();
  await signInOn(page, url, seller);
  return page;
}
