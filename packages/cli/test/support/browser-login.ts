import type { Browser } from 'playwright-core';

/** Logs in on the sandbox's pages as a seller would: sign in, tick every store, allow. Resolves on the CLI's "Logged in" page. */
export async function approveInBrowser(
  browser: Browser,
  loginUrl: string,
  seller: { sellerLogin: string; sellerPassword: string },
): Promise<void> {
  // The sandbox's HTTPS certificate comes from its data folder's local CA, which a reader's browser trusts after
  // `npx feira trust`; this throwaway profile is told to accept it instead (the TLS itself is proved elsewhere:
  // sandbox-https-interop.test.ts, with Node trusting only that CA).
  const context = await browser.newContext({ ignoreHTTPSErrors: loginUrl.startsWith('https:') });
  try {
    const page = await context.newPage();
    await page.goto(loginUrl);
    await page.locator('input[name="login"]').fill(seller.sellerLogin);
    await page.locator('input[name="password"]').fill(seller.sellerPassword);
    await page.locator('button[type="submit"]', { hasText: 'Sign in' }).click();
    for (const box of await page.locator('input[name="tenant"]').all()) await box.check();
    await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();
    await page.locator('button[name="decision"][value="approve"]').click();
    await page.getByText('Logged in to Feira').waitFor();
  } finally {
    await context.close();
  }
}

/** The login URL `feira login` prints when it cannot open a browser. */
export const PRINTED_LOGIN_URL = /^\s+(https?:\/\/127\.0\.0\.1:\d+\/login\?\S+)$/m;
