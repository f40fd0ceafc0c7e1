import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuse } from '../core/refusals.js';
import { bearerTokenMatches } from './bearer-token.js';

/**
 * The guard of every admin route (the admin API, the record writes, shipping, webhooks):
 * `Authorization: Bearer <admin token>` (scheme case-insensitive), compared in constant time.
 */
export async function requireAdminToken(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (!bearerTokenMatches(request.headers.authorization, request.server.platform.config.adminToken)) {
    throw refuse('ADMIN_TOKEN_REQUIRED');
  }
}
