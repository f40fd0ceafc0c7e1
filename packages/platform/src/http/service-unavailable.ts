import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Random } from '../core/random.js';
import { refuse } from '../core/refusals.js';

/**
 * Every 503 the platform sends says when to come back (`Retry-After`, RFC 9110
 * §10.2.3 and §15.6.4), in the platform error shape: a client or load balancer
 * that honours it retries once instead of hammering. The 503s are: starting up
 * (the socket is bound before the app is ready), shutting down (the app closing
 * while a connection still routes to it), the database unavailable
 * (error-handler.ts, oauth-error.ts) and readiness (health-routes.ts); any other
 * 503 thrown as a PlatformError gets the database's wait in the error handler
 * (service-unavailable.test.ts enumerates the sources).
 */

/** Seconds a client waits before retrying a process that is starting up or shutting down (a restart's span). */
const RESTART_RETRY_AFTER_SECONDS = 5;

/** The raw answer of a socket whose app cannot serve yet or any more, before or after Fastify has a request to reply to. */
export function answerUnavailable(code: 'HTTP_STARTING_UP' | 'HTTP_SHUTTING_DOWN', random: Pick<Random, 'uuid'>) {
  const { message, slug, headers } = refuse(code, { retryAfter: RESTART_RETRY_AFTER_SECONDS });
  return (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      ...headers,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    res.end(JSON.stringify({ message, slug, details: [], request_id: random.uuid() }));
  };
}

/** The answer of a bound socket whose app is not ready yet (platform.ts). */
export function answerStartingUp(random: Pick<Random, 'uuid'>) {
  return answerUnavailable('HTTP_STARTING_UP', random);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** True once the app has begun to close: createPlatform's server then answers "Shutting down" itself. */
    shuttingDown: boolean;
  }
}

/**
 * A closing app answers what still reaches it with a 503 in the platform shape
 * and Retry-After (Fastify's own would have neither: the app sets
 * `return503OnClosing: false`). Nothing runs per request while the app serves:
 * at preClose the server of `app.listen` gets the shutting-down answer as its
 * request listener, and createPlatform's server reads `shuttingDown`. A 503
 * thrown anywhere gets a Retry-After in the error handler if it named none.
 */
export function installUnavailableAnswers(app: FastifyInstance, random: Pick<Random, 'uuid'>): void {
  app.decorate('shuttingDown', false);
  app.addHook('preClose', (done) => {
    app.shuttingDown = true;
    app.server.removeAllListeners('request');
    app.server.on('request', answerUnavailable('HTTP_SHUTTING_DOWN', random));
    done();
  });
}
