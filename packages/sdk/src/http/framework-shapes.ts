// The few members of Express and Fastify the adapters use. The SDK types them
// structurally so it never imports either framework at runtime (or at all).
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the Express adapters read from a request (an Express `Request` fits).
 *
 * @example
 * ```ts
 * app.post('/hooks', (req: ExpressLikeRequest, res: ExpressLikeResponse, next: ExpressLikeNext) => next());
 * ```
 */
export interface ExpressLikeRequest extends IncomingMessage {
  /** Set by a body parser, if one ran before the adapter. */
  body?: unknown;
}

/**
 * What the Express adapters write to (an Express `Response` fits).
 *
 * @example
 * ```ts
 * const handler = (req: ExpressLikeRequest, res: ExpressLikeResponse) => res.end();
 * ```
 */
export type ExpressLikeResponse = ServerResponse;

/**
 * Express's `next`.
 *
 * @example
 * ```ts
 * const next: ExpressLikeNext = (error) => console.error(error);
 * ```
 */
export type ExpressLikeNext = (error?: unknown) => void;

/**
 * What the Fastify adapters read from a request (a `FastifyRequest` fits).
 *
 * @example
 * ```ts
 * const body = (request as FastifyLikeRequest).body;
 * ```
 */
export interface FastifyLikeRequest {
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * What the Fastify adapters write to (a `FastifyReply` fits).
 *
 * @example
 * ```ts
 * (reply as FastifyLikeReply).code(200).send('ok');
 * ```
 */
export interface FastifyLikeReply {
  code(statusCode: number): FastifyLikeReply;
  header(name: string, value: string): FastifyLikeReply;
  send(payload?: unknown): FastifyLikeReply;
}

type FastifyLikeHandler = (request: FastifyLikeRequest, reply: FastifyLikeReply) => Promise<unknown>;

/**
 * The members of a Fastify instance a plugin of this SDK calls (a `FastifyInstance` fits).
 *
 * @example
 * ```ts
 * await fastifyWebhookPlugin(app as unknown as FastifyLikeInstance, { path: '/hooks', secrets, onMessage });
 * ```
 */
export interface FastifyLikeInstance {
  removeContentTypeParser(contentType: string | string[]): unknown;
  addContentTypeParser(
    contentType: string | string[],
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): unknown;
  post(path: string, handler: FastifyLikeHandler): unknown;
}
