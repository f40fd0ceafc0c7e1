import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { TEST_ADMIN_TOKEN } from '../../src/testing.js';

/**
 * A browser-like session over `app.inject`: cookies kept between requests,
 * the page's CSRF token read from its forms, forms posted URL-encoded. For
 * console tests that need no rendering (Chromium tests use test/browser/browser-kit.ts).
 */
export class ConsoleSession {
  readonly cookies = new Map<string, string>();
  csrf = '';
  constructor(
    private readonly app: FastifyInstance,
    private readonly headers: Record<string, string> = {},
  ) {}

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{ name: string; value: string }>) this.cookies.set(cookie.name, cookie.value);
    const token = /name="csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'GET',
        url,
        cookies: Object.fromEntries(this.cookies),
        headers: { ...this.headers, ...headers },
      }),
    );
  }

  async post(url: string, form: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        cookies: Object.fromEntries(this.cookies),
        headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: this.csrf, ...form }).toString(),
      }),
    );
  }
}

/** A seller signed in through the console's own form. */
export async function sellerSession(
  app: FastifyInstance,
  seller: { login: string; password: string },
  headers: Record<string, string> = {},
): Promise<ConsoleSession> {
  const session = new ConsoleSession(app, headers);
  await session.get('/console');
  const signedIn = await session.post('/console/login', { login: seller.login, password: seller.password });
  if (signedIn.statusCode !== 303) throw new Error(`sign-in answered ${signedIn.statusCode}`);
  return session;
}

/** The operator signed in with the admin token. */
export async function operatorSession(app: FastifyInstance, headers: Record<string, string> = {}): Promise<ConsoleSession> {
  const session = new ConsoleSession(app, headers);
  await session.get('/console/operator');
  const signedIn = await session.post('/console/operator/login', { token: TEST_ADMIN_TOKEN });
  if (signedIn.statusCode !== 303) throw new Error(`operator sign-in answered ${signedIn.statusCode}`);
  return session;
}
