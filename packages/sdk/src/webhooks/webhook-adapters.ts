import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  ExpressLikeNext,
  ExpressLikeRequest,
  ExpressLikeResponse,
  FastifyLikeInstance,
  FastifyLikeReply,
  FastifyLikeRequest,
} from '../http/framework-shapes.js';
import { BodyTooLargeError, DEFAULT_MAX_BODY_BYTES, readRawBody } from '../http/read-raw-body.js';
import { type ReceiverResponse, receiveWebhook, type WebhookReceiverOptions } from './webhook-receiver.js';

function sendJson(res: ServerResponse, answer: ReceiverResponse): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const TOO_LARGE: ReceiverResponse = { status: 413, body: { error: 'ERR_PAYLOAD_TOO_LARGE', message: 'The body is too large.' } };

async function answerFromStream(req: IncomingMessage, options: WebhookReceiverOptions): Promise<ReceiverResponse> {
  try {
    const rawBody = await readRawBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    return await receiveWebhook(rawBody, req.headers, options);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return TOO_LARGE;
    throw error;
  }
}

/**
 * A `node:http` request handler that reads the raw body, verifies the delivery
 * and calls `onMessage`. Answers 200 on success, 401 for a bad signature or
 * timestamp, 400 for a bad body, 500 when `onMessage` throws (the platform retries).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createWebhookHandler } from '@feira/sdk';
 *
 * createServer(createWebhookHandler({
 *   secrets: process.env.FEIRA_WEBHOOK_SECRET!,
 *   onMessage: async (message) => console.log(message.topic, message.data.resource),
 * })).listen(3000);
 * ```
 */
export function createWebhookHandler(
  options: WebhookReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    sendJson(res, await answerFromStream(req, options));
  };
}

/**
 * Express middleware that verifies a delivery and answers it. Mount it on its
 * route before any JSON body parser, or after `express.raw({ type: 'application/json' })`:
 * the signature covers the raw bytes, which `express.json()` throws away.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { expressWebhookHandler } from '@feira/sdk';
 *
 * const app = express();
 * app.post('/hooks', expressWebhookHandler({
 *   secrets: process.env.FEIRA_WEBHOOK_SECRET!,
 *   onMessage: async (message) => console.log(message.topic),
 * }));
 * ```
 */
export function expressWebhookHandler(
  options: WebhookReceiverOptions,
): (req: ExpressLikeRequest, res: ExpressLikeResponse, next: ExpressLikeNext) => Promise<void> {
  return async (req, res, next) => {
    try {
      const body = req.body;
      if (Buffer.isBuffer(body) || typeof body === 'string') {
        // express.raw() has its own limit (100 kB by default); ours still applies.
        const tooLarge = Buffer.byteLength(body) > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        sendJson(res, tooLarge ? TOO_LARGE : await receiveWebhook(body, req.headers, options));
      } else if (body !== undefined && req.readableEnded) {
        next(
          new Error(
            'expressWebhookHandler: the body was already parsed, so its raw bytes are lost. Mount the handler before express.json(), or use express.raw({ type: "application/json" }) on this route.',
          ),
        );
      } else {
        sendJson(res, await answerFromStream(req, options));
      }
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Options of the Fastify webhook plugin.
 *
 * @example
 * ```ts
 * const options: FastifyWebhookPluginOptions = { path: '/hooks', secrets: 'whsec_…', onMessage: () => {} };
 * ```
 */
export interface FastifyWebhookPluginOptions extends WebhookReceiverOptions {
  /** Route that receives deliveries (POST). */
  path: string;
}

/**
 * A Fastify plugin adding `POST <path>` that receives webhooks. Inside its own
 * encapsulated scope it parses JSON bodies as raw buffers, so the rest of your
 * app keeps Fastify's normal JSON parsing.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { fastifyWebhookPlugin } from '@feira/sdk';
 *
 * const app = Fastify();
 * await app.register(fastifyWebhookPlugin, {
 *   path: '/hooks',
 *   secrets: process.env.FEIRA_WEBHOOK_SECRET!,
 *   onMessage: async (message) => app.log.info({ topic: message.topic }, 'webhook'),
 * });
 * ```
 */
export async function fastifyWebhookPlugin(instance: FastifyLikeInstance, options: FastifyWebhookPluginOptions): Promise<void> {
  const bodyLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  instance.removeContentTypeParser(['application/json', 'text/plain']);
  instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
  instance.post(options.path, async (request: FastifyLikeRequest, reply: FastifyLikeReply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const answer = await receiveWebhook(raw, request.headers, options);
    return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
  });
}
