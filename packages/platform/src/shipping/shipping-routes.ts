import type { FastifyInstance } from 'fastify';

/** Routes of the shipping capability; registered by buildApp. */
export async function shippingRoutes(_app: FastifyInstance): Promise<void> {}
