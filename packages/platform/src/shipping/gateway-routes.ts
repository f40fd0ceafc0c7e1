import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { refuse } from '../core/refusals.js';
import { requireAdminToken } from '../http/admin-auth.js';
import { errorResponse } from '../http/openapi-document.js';
import { outboundPolicyOf } from '../outbound/address-policy.js';
import { checkQuoteUrl } from './quote-url.js';

const adminSecurity = [{ adminToken: [] }];

const GatewayParams = Type.Object({
  gateway_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
});

const ShippingGatewayBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    url: Type.String({
      minLength: 1,
      description:
        'Speaks the seller-API quote contract; the rules of a seller quote URL apply (strict mode: HTTPS, no port, public address)',
    }),
  },
  { additionalProperties: false, $id: 'ShippingGatewayInput' },
);

const ShippingGateway = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    url: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'ShippingGateway' },
);

/**
 * Freight gateways the operator registers (spec-notes Q8): third parties that
 * answer quotes in the seller-API contract. A store picks one with method
 * `gateway` and its own credential (shipping settings).
 */
export async function gatewayRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const platform = app.shipping;
  app.addSchema(ShippingGatewayBody);
  app.addSchema(ShippingGateway);

  app.put(
    '/admin/v1/shipping-gateways/:gateway_id',
    {
      preHandler: requireAdminToken,
      schema: {
        operationId: 'putShippingGateway',
        tags: ['shipping'],
        summary: 'Register or update a freight gateway (spec-notes Q8)',
        security: adminSecurity,
        params: GatewayParams,
        body: Type.Ref(ShippingGatewayBody),
        response: { 200: Type.Ref(ShippingGateway) },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof ShippingGatewayBody>;
      await checkQuoteUrl(body.url, outboundPolicyOf(platform.config));
      const now = platform.clock.now().toISOString();
      await platform.database.db
        .insertInto('shipping_gateways')
        .values({ id: request.params.gateway_id, name: body.name, url: body.url, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: body.name, url: body.url, updated_at: now }))
        .execute();
      return platform.database.db
        .selectFrom('shipping_gateways')
        .selectAll()
        .where('id', '=', request.params.gateway_id)
        .executeTakeFirstOrThrow();
    },
  );

  app.get(
    '/admin/v1/shipping-gateways/:gateway_id',
    {
      preHandler: requireAdminToken,
      schema: {
        operationId: 'getShippingGateway',
        tags: ['shipping'],
        summary: 'A registered freight gateway',
        security: adminSecurity,
        params: GatewayParams,
        response: { 200: Type.Ref(ShippingGateway), 404: errorResponse('No such gateway') },
      },
    },
    async (request) => {
      const gateway = await platform.database.db
        .selectFrom('shipping_gateways')
        .selectAll()
        .where('id', '=', request.params.gateway_id)
        .executeTakeFirst();
      if (!gateway) throw refuse('SHIPPING_GATEWAY_NOT_FOUND');
      return gateway;
    },
  );
}
