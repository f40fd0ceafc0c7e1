import { createServer } from 'node:http';
import { type ListeningPlatform, listenPlatform, testDatabaseTargets } from '@feira/platform/testing';
import { authorizationUrl, createPkce, FeiraClient, handleCallback, OAuthCallbackError, OAuthError } from '@feira/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../src/test-support/listen.js';
import { consentAsSeller } from './support/seller-browser.js';

const REDIRECT_URI = 'https://integrator.example/callback';

/** A token endpoint on loopback that records what it is sent and answers a token set. */
async function tokenEndpoint() {
  const received: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          access_token: 'a',
          refresh_token: 'r',
          token_type: 'Bearer',
          expires_in: 7200,
          scope: 's',
          created_at: 1,
        }),
      );
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, close, received };
}

function callback(params: Record<string, string>, base = REDIRECT_URI): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.catch((e: unknown) => e);
  if (error instanceof OAuthCallbackError || error instanceof OAuthError) return error.code;
  throw error;
}

describe('handleCallback checks before it exchanges (RFC 9207 §2.4, RFC 6749 §10.12)', () => {
  let endpoint: Awaited<ReturnType<typeof tokenEndpoint>>;
  let oauth: { authUrl: string; clientId: string; clientSecret: string };
  beforeAll(async () => {
    endpoint = await tokenEndpoint();
    oauth = { authUrl: endpoint.url, clientId: 'client-1', clientSecret: 'secret-1' };
  });
  afterEach(() => {
    endpoint.received.length = 0;
  });
  afterAll(() => endpoint.close());

  it('RFC 9207 §2.4: an `iss` that is not the identity provider is iss_mismatch, and no code is sent to the token endpoint', async () => {
    const url = callback({ code: 'c1', state: 'st', iss: 'https://evil.example' });
    expect(await refusal(handleCallback(url, { ...oauth, state: 'st' }))).toBe('iss_mismatch');
    expect(endpoint.received).toHaveLength(0);
  });

  it('RFC 9207 §2.4: a callback without `iss` (the platform always sends it) is iss_missing', async () => {
    expect(await refusal(handleCallback(callback({ code: 'c1', state: 'st' }), { ...oauth, state: 'st' }))).toBe('iss_missing');
    expect(endpoint.received).toHaveLength(0);
  });

  it('RFC 6749 §10.12: a `state` other than the session’s, or none, is state_mismatch and sends nothing', async () => {
    const iss = oauth.authUrl;
    expect(await refusal(handleCallback(callback({ code: 'c1', state: 'other', iss }), { ...oauth, state: 'st' }))).toBe(
      'state_mismatch',
    );
    expect(await refusal(handleCallback(callback({ code: 'c1', iss }), { ...oauth, state: 'st' }))).toBe('state_mismatch');
    expect(endpoint.received).toHaveLength(0);
  });

  it('an error answer (the seller declined) is an OAuthError with its code, once iss and state check out', async () => {
    const url = callback({ error: 'access_denied', error_description: 'declined', state: 'st', iss: oauth.authUrl });
    expect(await refusal(handleCallback(url, { ...oauth, state: 'st' }))).toBe('access_denied');
    expect(await refusal(handleCallback(callback({ state: 'st', iss: oauth.authUrl }), { ...oauth, state: 'st' }))).toBe(
      'code_missing',
    );
    expect(endpoint.received).toHaveLength(0);
  });

  it('a good callback exchanges its code with the PKCE verifier and the redirect_uri without the answer parameters', async () => {
    const url = callback({ code: 'c1', state: 'st', iss: oauth.authUrl });
    const tokens = await handleCallback(url, { ...oauth, state: 'st', codeVerifier: 'v'.repeat(43) });
    expect(tokens.access_token).toBe('a');
    expect(endpoint.received).toEqual([
      {
        grant_type: 'authorization_code',
        client_id: 'client-1',
        client_secret: 'secret-1',
        redirect_uri: REDIRECT_URI,
        code: 'c1',
        code_verifier: 'v'.repeat(43),
      },
    ]);
  });

  it('the issuer option overrides the one read from authUrl (a trailing slash of authUrl is ignored)', async () => {
    const url = callback({ code: 'c1', state: 'st', iss: oauth.authUrl });
    await expect(handleCallback(url, { ...oauth, authUrl: `${oauth.authUrl}/`, state: 'st' })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    expect(await refusal(handleCallback(url, { ...oauth, issuer: 'https://idp.example', state: 'st' }))).toBe('iss_mismatch');
  });
});

describe.each(testDatabaseTargets())('handleCallback against the real platform on loopback ($dialect)', (target) => {
  let platform: ListeningPlatform;
  let oauth: { authUrl: string; clientId: string; clientSecret: string };
  let seller: { login: string; password: string; tenantIds: string[] };

  beforeAll(async () => {
    platform = await listenPlatform(target);
    oauth = { authUrl: platform.url, ...(await platform.createClient({ redirectUris: [REDIRECT_URI] })) };
    seller = await platform.createSeller({ tenants: 1 });
  });
  afterAll(async () => {
    await platform?.close();
  });

  async function consent(state: string) {
    const pkce = createPkce();
    const url = authorizationUrl({ ...oauth, redirectUri: REDIRECT_URI, scopes: ['open:order-order:read'], state, pkce });
    return { callback: await consentAsSeller(url, seller), pkce };
  }

  it('RFC 9207 / spec "Consent by redirect": the real callback (code, state, iss) is accepted and its tokens call the API', async () => {
    const { callback: url, pkce } = await consent('session-1');
    expect(url.searchParams.get('iss')).toBe(platform.url);
    const tokens = await handleCallback(url, { ...oauth, state: 'session-1', codeVerifier: pkce.codeVerifier });
    const api = new FeiraClient({ baseUrl: platform.url, accessToken: tokens.access_token });
    const first = await api.pages('/v1/orders').next();
    expect(first.value?.meta.page).toBeDefined();
  });

  it('RFC 9207 §2.4: the same real callback is refused when the client expects another issuer, and when its state is another session’s', async () => {
    const { callback: url, pkce } = await consent('session-2');
    expect(
      await refusal(
        handleCallback(url, {
          ...oauth,
          issuer: 'https://other-idp.example',
          state: 'session-2',
          codeVerifier: pkce.codeVerifier,
        }),
      ),
    ).toBe('iss_mismatch');
    expect(await refusal(handleCallback(url, { ...oauth, state: 'session-3', codeVerifier: pkce.codeVerifier }))).toBe(
      'state_mismatch',
    );
    // Neither refusal spent the code: the right session still gets its tokens.
    await expect(handleCallback(url, { ...oauth, state: 'session-2', codeVerifier: pkce.codeVerifier })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });
});
