import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../core/hashing.js';
import { PlatformError } from '../core/platform-error.js';

/** preHandler for every admin route: `Authorization: Bearer <admin token>`, compared in constant time. */
export async function requireAdminToken(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  if (!token || !constantTimeEqual(token, request.server.platform.config.adminToken)) {
    throw new PlatformError('UNAUTHORIZED', {
      message: 'A valid admin token is required',
      headers: { 'www-authenticate': 'Bearer realm="feira-admin"' },
    });
  }
}
