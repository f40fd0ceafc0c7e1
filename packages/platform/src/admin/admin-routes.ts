import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { requireAdminToken } from '../http/admin-auth.js';
import type { SealedColumn } from '../storage/secret-reseal.js';
import { clientRoutes } from './client-routes.js';
import { clockRoutes } from './clock-routes.js';
import { keyRoutes } from './key-routes.js';
import { sellerRoutes } from './seller-routes.js';

/**
 * The admin API's resources of the admin capability, one Fastify plugin file
 * each (the other capabilities register their own admin routes: records,
 * webhook deliveries, shipping). A new resource is its file and a line here.
 */
const ADMIN_RESOURCES: readonly FastifyPluginAsync[] = [sellerRoutes, clientRoutes, clockRoutes];

/**
 * The admin API: sellers with their stores, client applications, the sandbox clock, the keys (with the
 * sealed columns the composition names). Bearer admin token on every route.
 */
export async function adminRoutes(app: FastifyInstance, options: { sealedColumns: readonly SealedColumn[] }): Promise<void> {
  // onRequest, before the body is even parsed: an anonymous caller learns nothing about the schemas.
  app.addHook('onRequest', requireAdminToken);
  for (const resource of ADMIN_RESOURCES) await app.register(resource);
  await app.register(keyRoutes, { sealedColumns: options.sealedColumns });
}
