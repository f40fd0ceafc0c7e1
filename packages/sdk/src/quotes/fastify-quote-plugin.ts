import type { FastifyLikeInstance, FastifyLikeReply, FastifyLikeRequest } from '../http/framework-shapes.js';
import { DEFAULT_MAX_BODY_BYTES } from '../http/read-raw-body.js';
import type { QuoteHandler } from './quote-handler.js';

/**
 * Options of `fastifyQuotePlugin`.
 *
 * @example
 * ```ts
 * const options: FastifyQuotePluginOptions = { path: '/quote', handler: createQuoteHandler(quote) };
 * ```
 */
export interface FastifyQuotePluginOptions {
  /** Route the platform calls (POST). */
  path: string;
  handler: QuoteHandler;
  /** Largest accepted request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

/**
 * A Fastify plugin adding `POST <path>` as your quote endpoint. Inside its own
 * scope it reads bodies raw, so a malformed body gets the spec's 400 error body
 * rather than Fastify's own.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createQuoteHandler, fastifyQuotePlugin, singlePackageQuote } from '@feira/sdk';
 *
 * const app = Fastify();
 * const handler = createQuoteHandler(async (request) =>
 *   singlePackageQuote(request, [{ id: 'std', name: 'Standard', type: 'conventional', price: 15, delivery_days: 3 }]),
 * );
 * await app.register(fastifyQuotePlugin, { path: '/quote', handler });
 * ```
 */
export async function fastifyQuotePlugin(instance: FastifyLikeInstance, options: FastifyQuotePluginOptions): Promise<void> {
  instance.removeContentTypeParser(['application/json', 'text/plain']);
  instance.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES },
    (_r, body, done) => done(null, body),
  );
  instance.post(options.path, async (request: FastifyLikeRequest, reply: FastifyLikeReply) => {
    const answer = await options.handler.handle(request.body ?? Buffer.alloc(0));
    return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
  });
}
