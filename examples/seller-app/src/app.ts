import { randomBytes } from 'node:crypto';
import {
  authorizationUrl,
  createPkce,
  createQuoteHandler,
  exchangeCode,
  FeiraClient,
  fastifyQuotePlugin,
  fastifyWebhookPlugin,
  TokenManager,
  type TokenStore,
  type WebhookMessage,
  type WebhookSignupResponse,
} from '@feira/sdk';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { FileTokenStore } from './file-token-store.js';
import { quoteFreight } from './quote.js';

export interface SellerAppConfig {
  /** The platform ({base_url} and {auth_url}: one address in the sandbox). */
  platformUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where the platform delivers webhooks: this app's `/hooks`, over HTTPS (v1). */
  webhookUrl: string;
  /** Where tokens are kept. */
  tokenFile: string;
  /** This app's OAuth callback; default `<this app's own origin>/callback`. */
  redirectUri?: string;
  /** Extra Fastify options (e.g. `https: { key, cert }`). */
  fastify?: FastifyServerOptions & { https?: { key: string; cert: string } };
  tokenStore?: TokenStore;
}

/** One processed webhook, as shown at GET /events. */
export interface ProcessedEvent {
  topic: string;
  status: string;
  tenantId: string;
  resource: string;
  /** The record as read through the API after the webhook (null for a deletion). */
  record: unknown;
}

const SCOPES = ['open:ticket:read', 'open:order-order:read', 'open:webhook:write'];

/**
 * The seller and the store ids a token was granted for (its `sub` and `tenants`
 * claims). Read without verification: the token came straight from the token
 * endpoint, in answer to our own request.
 */
function grantOf(accessToken: string): { sellerId: string; tenants: string[] } {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    sub?: string;
    tenants?: string[];
  };
  return { sellerId: payload.sub ?? 'unknown', tenants: payload.tenants ?? [] };
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

export async function buildSellerApp(config: SellerAppConfig): Promise<FastifyInstance> {
  const app = Fastify(config.fastify ?? {});
  const oauth = { authUrl: config.platformUrl, clientId: config.clientId, clientSecret: config.clientSecret };
  const tokens = new TokenManager({ ...oauth, store: config.tokenStore ?? new FileTokenStore(config.tokenFile) });
  // In memory for the example; a real app keeps these in its database.
  const pendingLogins = new Map<string, { codeVerifier: string; redirectUri: string }>();
  const stores = new Map<string, { tokenKey: string; secrets: string[] }>();
  const events: ProcessedEvent[] = [];
  // One token set per grant, however many stores it covers: a refresh token is
  // rotated on use (spec-notes I5), so two copies refreshed apart would be reuse.
  const apiFor = (tenantId: string) => {
    const tokenKey = stores.get(tenantId)?.tokenKey ?? `unknown:${tenantId}`;
    return new FeiraClient({ baseUrl: config.platformUrl, accessToken: () => tokens.accessToken(tokenKey), tenantId });
  };

  app.get('/', async (_request, reply) => {
    const connected = [...stores.keys()].map((id) => `<li>${id}</li>`).join('');
    return reply
      .type('text/html')
      .send(page('Seller app', `<p><a id="connect" href="/connect">Connect your store</a></p><ul id="stores">${connected}</ul>`));
  });

  app.get('/connect', async (request, reply) => {
    const state = randomBytes(16).toString('hex');
    const pkce = createPkce();
    const redirectUri = config.redirectUri ?? `${request.protocol}://${request.host}/callback`;
    pendingLogins.set(state, { codeVerifier: pkce.codeVerifier, redirectUri });
    return reply.redirect(authorizationUrl({ ...oauth, redirectUri, scopes: SCOPES, state, chooseTenants: true, pkce }));
  });

  app.get('/callback', async (request, reply) => {
    const { code, state, error } = request.query as Record<string, string | undefined>;
    const pending = state ? pendingLogins.get(state) : undefined;
    if (error || !code || !pending)
      return reply
        .code(400)
        .type('text/html')
        .send(page('Not connected', `<p>${error ?? 'unknown or missing state'}</p>`));
    pendingLogins.delete(state!);
    const tokenSet = await exchangeCode({ ...oauth, code, redirectUri: pending.redirectUri, codeVerifier: pending.codeVerifier });
    const grant = grantOf(tokenSet.access_token);
    const tokenKey = `seller:${grant.sellerId}`;
    await tokens.save(tokenKey, tokenSet);
    for (const tenantId of grant.tenants) {
      stores.set(tenantId, { tokenKey, secrets: [] });
      // Onboarding: subscribe this app's receiver; the whsec_ secrets are shown only now (spec "Signature" rule 6).
      const signup = await apiFor(tenantId).request<WebhookSignupResponse>('PUT', '/v1/onboarding/signup', {
        body: { webhook: config.webhookUrl },
      });
      stores.set(tenantId, {
        tokenKey,
        secrets: signup.subscriptions.flatMap((s) => (s.parameters.secret ? [s.parameters.secret] : [])),
      });
    }
    return reply
      .type('text/html')
      .send(page('Connected', `<p id="connected">${stores.size} store(s) connected.</p><p><a href="/">Back</a></p>`));
  });

  await app.register(fastifyWebhookPlugin, {
    path: '/hooks',
    secrets: () => [...stores.values()].flatMap((s) => s.secrets),
    onMessage: async (message: WebhookMessage) => {
      // The message only signals the change: read the record (spec "Events" rule 1).
      const record = message.data.status === 'DELETION' ? null : await apiFor(message.tenant_id).get(message.data.resource);
      events.push({
        topic: message.topic,
        status: message.data.status,
        tenantId: message.tenant_id,
        resource: message.data.resource,
        record,
      });
    },
  });

  await app.register(fastifyQuotePlugin, { path: '/quote', handler: createQuoteHandler(quoteFreight) });

  app.get('/events', async () => events);
  return app;
}
