import type { FastifyInstance } from 'fastify';

/** Routes of the webhooks capability; registered by buildApp. */
export async function webhookRoutes(_app: FastifyInstance): Promise<void> {}
