import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdminToken } from '../http/admin-auth.js';
import { errorResponse } from '../http/openapi-document.js';
import { TenantParams } from '../http/route-params.js';
import { sellerStoreGuard } from './freight/freight-routes.js';
import { previewStoreQuote, quotePreviewResult } from './quote-preview.js';
import { PreviewBody, storefrontQuoteResult } from './storefront-schemas.js';

const SUMMARY = 'Quote preview: what a shopper would see for a zipcode and a cart, with every method raw, merged and shown (D61)';
const DESCRIPTION =
  "Runs the store's quote exactly as the storefront does (the same calls, deadline, validation, backup rates and Q5 choice), logged with purpose `preview`, and answers `shown` (the storefront quote's answer for the same zipcode and cart), each method's raw options with whether they were merged, the backup rates if asked, and why the two shown are those.";

function previewSchema(app: FastifyInstance, operationId: string, security: Array<Record<string, string[]>>) {
  return {
    tags: ['shipping'],
    operationId,
    summary: SUMMARY,
    description: DESCRIPTION,
    security,
    params: TenantParams,
    body: PreviewBody,
    response: {
      200: quotePreviewResult(storefrontQuoteResult(app.shipping.quoteMethods.names)),
      401: errorResponse('No credential'),
      404: errorResponse('No such store'),
      422: errorResponse('A bad zipcode or cart line'),
    },
  };
}

async function previewRoute(
  instance: FastifyInstance,
  url: string,
  operationId: string,
  guard: typeof requireAdminToken,
  security: Array<Record<string, string[]>>,
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.post(url, { preHandler: guard, schema: previewSchema(instance, operationId, security) }, (request) =>
    previewStoreQuote(app.shipping, {
      tenantId: request.params.tenant_id,
      zipcode: request.body.zipcode,
      items: request.body.items,
    }),
  );
}

/** The operator's preview of any store (admin token). */
export async function adminPreviewRoutes(instance: FastifyInstance): Promise<void> {
  await previewRoute(instance, '/admin/v1/tenants/:tenant_id/shipping/preview', 'adminPreviewShippingQuote', requireAdminToken, [
    { adminToken: [] },
  ]);
}

/** The seller's preview of one of their stores, with the console session (registered among the console's routes). */
export async function sellerPreviewRoutes(instance: FastifyInstance): Promise<void> {
  await previewRoute(instance, '/seller/v1/stores/:tenant_id/shipping/preview', 'sellerPreviewShippingQuote', sellerStoreGuard, [
    { consoleSession: [] },
  ]);
}
