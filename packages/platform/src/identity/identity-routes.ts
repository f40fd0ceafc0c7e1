import type { FastifyInstance } from 'fastify';

/** Routes of the identity capability; registered by buildApp. */
export async function identityRoutes(_app: FastifyInstance): Promise<void> {}
