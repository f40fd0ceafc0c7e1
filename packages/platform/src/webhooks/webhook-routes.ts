import type { FastifyInstance } from 'fastify';
import { deliveryAdminRoutes } from './delivery-admin-routes.js';
import { signupRoutes } from './signup-routes.js';
import { registerBacklogGauges, webhookMetrics } from './webhook-metrics.js';

/** Routes of the webhooks capability; registered by buildApp. */
export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  const { metrics, database, clock } = app.platform;
  // Created here too, so /metrics shows the series before the first delivery of an in-process dispatcher.
  webhookMetrics(metrics);
  registerBacklogGauges(metrics, database, () => clock.now());
  await app.register(signupRoutes);
  await app.register(deliveryAdminRoutes);
}
