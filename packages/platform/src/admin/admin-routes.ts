import type { FastifyInstance } from 'fastify';

/** Routes of the admin capability; registered by buildApp. */
export async function adminRoutes(_app: FastifyInstance): Promise<void> {}
