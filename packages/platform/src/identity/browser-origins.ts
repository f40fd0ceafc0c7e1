import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { originOfClient, originRegistered } from '../accounts/index.js';

/**
 * The calling page's origin when a browser sends one that is not the platform's own
 * (a cross-origin call, the only kind CORS governs); undefined for servers, which
 * send no Origin, and for the platform's own pages.
 */
function crossOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return undefined;
  const { publicUrl, authUrl } = request.server.platform.config;
  if (origin === new URL(publicUrl).origin || origin === new URL(authUrl).origin) return undefined;
  return origin;
}

/**
 * D45: a browser page may use an app's tokens only from that app's own origins (its
 * redirect URIs' origins). A preflight names no app, so CORS answers for any registered
 * origin; the request itself is then checked against the app its token or client_id names.
 * Returns false when a cross-origin call comes from an origin the app did not register.
 */
export async function originAllowedForClient(request: FastifyRequest, clientId: string): Promise<boolean> {
  const origin = crossOrigin(request);
  if (origin === undefined) return true;
  return originOfClient(request.server.platform.database.db, clientId, origin);
}

/** Paths a browser app calls with its tokens: the platform APIs, the token and revocation endpoints, UserInfo. */
const BROWSER_API_PATH = /^\/(?:v1|seller|storefront)\/|^\/oauth\/(?:token|revoke)$|^\/userinfo$/;

/** What a registered origin may do across origins: no cookies (bearer tokens only), the headers an app reads back. */
const API_CORS: FastifyCorsOptions = {
  origin: true,
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  exposedHeaders: ['etag', 'retry-after', 'www-authenticate', 'x-request-id', 'location', 'ratelimit-policy', 'ratelimit'],
  maxAge: 600,
};

/**
 * CORS (@fastify/cors) for browser apps, D45. The identity documents (`/.well-known/*`) are
 * public: any origin reads them. The APIs, the token and revocation endpoints and UserInfo
 * answer an origin some client app registered (its redirect URIs' origins): a preflight
 * names no app, so it is the union; the request itself is then held to the origins of the
 * app its token or client_id names (admittedAccessToken, refuseOriginOfAnotherApp). Cookies
 * never cross (no credentials), so the console and the login pages are never readable
 * from another origin. A request without Origin (a server) costs one header check.
 * Called on the root instance itself (not registered as a child), so its hook covers every route.
 */
export async function browserCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => {
      const origin = crossOrigin(request);
      if (origin === undefined) return callback(null, { origin: false });
      const path = request.url.split('?')[0] ?? '';
      if (path.startsWith('/.well-known/')) return callback(null, { origin: '*', methods: ['GET', 'HEAD'], maxAge: 600 });
      if (!BROWSER_API_PATH.test(path)) return callback(null, { origin: false });
      originRegistered(request.server.platform.database.db, origin).then(
        (registered) => callback(null, registered ? API_CORS : { origin: false }),
        (error: Error) => callback(error),
      );
    },
  });
}
