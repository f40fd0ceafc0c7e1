import type { FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { bearerTokenMatches } from './bearer-token.js';

/**
 * The guard of every admin route (the admin API, the record writes, shipping, webhooks):
 * `Authorization: Bearer <admin token>` (scheme case-insensitive), compared in constant time.
 */
export async function requireAdminToken(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (!bearerTokenMatches(request.headers.authorization, request.server.platform.config.adminToken)) {
    throw new PlatformError('UNAUTHORIZED', {
      message: 'A valid admin token is required',
      headers: { 'www-authenticate': 'Bearer realm="feira-admin"' },
    });
  }
}
