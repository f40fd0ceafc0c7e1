import type { FastifyInstance } from 'fastify';
import { refuse } from '../core/refusals.js';
import { bearerTokenMatches } from './bearer-token.js';

/** `GET /metrics`: the platform's Prometheus metrics, behind the metrics token when one is set. */
export async function metricsRoute(app: FastifyInstance): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const { config, metrics } = request.server.platform;
    // With --metrics-token (docs/security.md, metrics disclosure), Prometheus must send it as a bearer token.
    if (config.metricsToken !== undefined && !bearerTokenMatches(request.headers.authorization, config.metricsToken))
      throw refuse('HTTP_METRICS_TOKEN_REQUIRED');
    reply.header('content-type', metrics.contentType);
    return metrics.metrics();
  });
}
