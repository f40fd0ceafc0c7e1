import type { Browser, Page } from 'playwright-core';

/**
 * A seller signed in to the console in a fresh browser context, through the
 * real login form (whatever the language): the page is on their stores list.
 */
export async function signInToConsole(
  browser: Browser,
  url: string,
  seller: { login: string; password: string },
  locale = 'en-US',
): Promise<Page> {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  await page.goto(`${url}/console`);
  await page.locator('#login').fill(seller.login);
  await page.locator('#password').fill(seller.password);
  await page.locator('form[action="/console/login"] button[type="submit"]').click();
  await page.locator('form[action="/console/logout"]').waitFor({ timeout: 10_000 });
  return page;
}
