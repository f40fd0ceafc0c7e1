import { hash } from 'node:crypto';
import compress from '@fastify/compress';
import etag from '@fastify/etag';
import type { FastifyInstance, FastifyReply } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/** Answers smaller than this go out as they are: below it a compressed body saves less than its headers cost (D47). */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * The HTTP conventions every answer follows (docs/decisions.md D47): a weak ETag
 * and `304 Not Modified` for an `If-None-Match` that matches (@fastify/etag), and
 * gzip or brotli by `Accept-Encoding` (@fastify/compress). Registered before any
 * route: the ETag is the hash of the body as sent unencoded (etag's hook belongs to
 * the app, compress's to each route, and Fastify runs the app's first), so a
 * gzip and a brotli answer share it; weak, because their bytes differ (RFC 9110 §8.8.1).
 * An answer that already has a Content-Encoding (the console's pre-compressed
 * assets) is never encoded twice. Request bodies are not decompressed.
 * The 304 is this module's (D109): `If-None-Match` as RFC 9110 §13.1.2 reads it
 * (`*`, a list, weak comparison), and the 304 carries the `Vary: Accept-Encoding`
 * its 200 would (§15.4.5), which the compression hook never sees on an empty body.
 */
export async function installHttpConventions(app: FastifyInstance): Promise<void> {
  await app.register(etag, {
    weak: true,
    hashFn: (payload) => hash('sha1', payload, 'base64url'),
    replyWith304: false,
  });
  // After etag's hook (both the app's, in this order), before compression's (each route's).
  // A callback hook, not an async one: on the read path it is one header lookup and no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const condition = request.headers['if-none-match'];
    if (condition === undefined || reply.statusCode !== 200 || (request.method !== 'GET' && request.method !== 'HEAD'))
      return done(null, payload);
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string' || !noneMatchFails(condition, etag)) return done(null, payload);
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
    if (size >= COMPRESSION_THRESHOLD_BYTES) addVary(reply, 'accept-encoding');
    reply.code(304);
    done(null, '');
  });
  await app.register(compress, {
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // gzip first when a client takes both (browsers do): brotli at its plugin quality costs more CPU for a few
    // percent fewer bytes on a list page (D47); a client that takes only br gets br.
    encodings: ['gzip', 'br'],
  });
}

/** The opaque part of an entity tag, for the weak comparison (RFC 9110 §8.8.3.2): `W/"x"` and `"x"` match. */
function opaque(tag: string): string {
  return tag.trim().replace(/^W\//, '');
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` is false (so a GET is answered 304) when it is `*` and a current
 * representation exists, or when one of its listed tags matches the current one by weak comparison.
 */
function noneMatchFails(condition: string, etag: string): boolean {
  if (condition.trim() === '*') return true;
  const current = opaque(etag);
  return condition.split(',').some((tag) => opaque(tag) === current);
}

function addVary(reply: FastifyReply, field: string): void {
  const existing = reply.getHeader('vary');
  const fields = String(existing ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.includes('*') || fields.some((f) => f.toLowerCase() === field)) return;
  reply.header('vary', [...fields, field].join(', '));
}

/**
 * Which methods each real path answers, for the `405 Method Not Allowed` with `Allow`
 * a wrong method gets instead of 404 (RFC 9110 §15.5.6): a second router (find-my-way,
 * Fastify's own) holds every route as it is registered, and the not-found handler asks
 * it. Only a request that found no route pays for the lookup.
 */
export class RouteMethods {
  readonly #router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true });
  readonly #methods = new Set<HTTPMethod>();

  /** Collects the routes registered from now on (call before any route). */
  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      // The CORS plugin's catch-all preflight route answers every path: it says nothing about which methods a path has.
      if (route.url === '*' || route.url === '/*') return;
      for (const name of [route.method].flat()) {
        const method = name.toUpperCase() as HTTPMethod;
        if (this.#router.hasRoute(method, route.url)) continue;
        this.#router.on(method, route.url, () => undefined);
        this.#methods.add(method);
      }
    });
  }

  /**
   * The methods the path answers, for `Allow`; empty when no route has the path at all. OPTIONS is one of
   * them on every path that has a route (D109): the not-found handler answers it, and a CORS preflight too.
   */
  allowed(url: string): string[] {
    const path = url.split('?')[0] ?? url;
    const allowed = [...this.#methods].filter((method) => method !== 'OPTIONS' && this.#router.find(method, path) !== null);
    if (allowed.length === 0) return [];
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    allowed.push('OPTIONS');
    return allowed.sort();
  }
}
