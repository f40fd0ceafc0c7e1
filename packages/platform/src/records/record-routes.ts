import type { FastifyInstance } from 'fastify';

/** Routes of the records capability; registered by buildApp. */
export async function recordRoutes(_app: FastifyInstance): Promise<void> {}
