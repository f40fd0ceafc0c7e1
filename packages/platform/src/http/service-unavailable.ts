import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Random } from '../core/random.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../storage/database-errors.js';

/**
 * Every 503 the platform sends says when to come back (`Retry-After`, RFC 9110
 * §10.2.3 and §15.6.4), in the platform error shape: a client or load balancer
 * that honours it retries once instead of hammering. The 503s are: starting up
 * (the socket is bound before the app is ready), shutting down (the app closing
 * while a connection still routes to it), the database unavailable
 * (error-handler.ts, oauth-error.ts) and readiness (health-routes.ts); any other
 * 503 gets the default here (service-unavailable.test.ts enumerates them).
 */

/** Seconds a client waits before retrying a process that is starting up or shutting down (a restart's span). */
export const RESTART_RETRY_AFTER_SECONDS = 5;
/** What a 503 that named no wait of its own says. */
export const DEFAULT_RETRY_AFTER_SECONDS = DATABASE_RETRY_AFTER_SECONDS;

/** The answer of a bound socket whose app is not ready yet (platform.ts), before Fastify has a request to reply to. */
export function answerStartingUp(random: Pick<Random, 'uuid'>) {
  return (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': String(RESTART_RETRY_AFTER_SECONDS),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    res.end(JSON.stringify({ message: 'Starting up', slug: 'SERVICE_UNAVAILABLE', details: [], request_id: random.uuid() }));
  };
}

/**
 * A closing app answers what still reaches it with a 503 in the platform shape
 * and Retry-After (Fastify's own would have neither: the app sets
 * `return503OnClosing: false`), and a 503 from anywhere gets a Retry-After if it
 * named none.
 */
export function installUnavailableAnswers(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    return reply
      .code(503)
      .header('retry-after', String(RESTART_RETRY_AFTER_SECONDS))
      .header('connection', 'close')
      .send({ message: 'Shutting down', slug: 'SERVICE_UNAVAILABLE', details: [], request_id: String(request.id) });
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after'))
      reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
    return payload;
  });
}
