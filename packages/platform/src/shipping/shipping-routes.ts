import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { tenantExists } from '../accounts/index.js';
import { refuse, refuseField } from '../core/refusals.js';
import { requireAdminToken } from '../http/admin-auth.js';
import { documentedList, documentedObject, errorResponse } from '../http/openapi-document.js';
import { TenantParams } from '../http/route-params.js';
import { listRoute } from '../lists/list-route.js';
import { presentCartQuote, quoteCart } from './cart-quote.js';
import { checkout } from './checkout.js';
import { freightRoutes } from './freight/freight-routes.js';
import { gatewayRoutes } from './gateway-routes.js';
import type { QuoteMethodRegistry } from './methods/index.js';
import { adminPreviewRoutes } from './preview-routes.js';
import { quoteCallList, quoteCallsOf } from './quote-log/quote-log-list.js';
import { type QuoteMetrics, quoteMetrics } from './quote-metrics.js';
import type { ShippingServices } from './shipping-services.js';
import {
  configureShippingSettings,
  findShippingSettings,
  presentShippingSettings,
  type ShippingSettingsBody,
  shippingSettingsSchema,
} from './shipping-settings.js';
import { CheckoutBody, StorefrontQuoteBody, storefrontQuoteResult } from './storefront-schemas.js';

const adminSecurity = [{ adminToken: [] }];

/**
 * Routes of the shipping capability (spec "Seller-implemented shipping-quote
 * endpoint"; spec-notes Q1–Q7): the seller's quote settings and the quote
 * log in the admin API, the product-page quote and the checkout on the storefront.
 */
export async function shippingRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const platform = app.shipping;
  const metrics = quoteMetrics(platform.metrics);
  const { quoteLog, quoteMethods } = platform;
  quoteLog.onError((error, rows) =>
    app.log.error({ err: error, quoteCallIds: rows.map((row) => row.id) }, 'quote log rows could not be written'),
  );
  quoteLog.store.onTrouble((error, message) => app.log.error({ err: error }, message));
  // spec-notes Q7: calls still buffered are written before the database goes away.
  app.addHook('onClose', async () => {
    await quoteLog.close();
  });

  await app.register(freightRoutes);
  await app.register(gatewayRoutes);
  await app.register(adminPreviewRoutes);

  instance.put<{ Params: TenantParams; Body: ShippingSettingsBody }>(
    '/admin/v1/tenants/:tenant_id/shipping',
    setMethodOptions(quoteMethods),
    setShippingMethod(platform),
  );
  instance.get<{ Params: TenantParams }>(
    '/admin/v1/tenants/:tenant_id/shipping',
    getMethodOptions(),
    getShippingMethod(platform),
  );
  quoteCallListRoute(instance, platform);
  instance.post<{ Body: StorefrontQuoteBody }>(
    '/storefront/v1/quotes',
    storefrontQuoteOptions(quoteMethods),
    storefrontQuote(platform, metrics),
  );
  instance.post<{ Body: CheckoutBody }>('/storefront/v1/checkouts', checkoutOptions(), createCheckout(platform, metrics));
}

/** PUT of a store's quote methods. */
function setMethodOptions(quoteMethods: QuoteMethodRegistry): RouteShorthandOptions {
  return {
    preHandler: requireAdminToken,
    schema: {
      tags: ['shipping'],
      operationId: 'adminSetShippingMethod',
      // The methods as the registry in use names them, so a method added there is described by itself.
      summary: `Set the store quote methods (spec-notes Q1, Q8): ${quoteMethods.names
        .map((name) => (name === 'seller_api' ? 'seller_api with its URL' : name))
        .join(', ')}; several with \`methods\`; backup rates with \`fallback\``,
      security: adminSecurity,
      params: TenantParams,
      body: shippingSettingsSchema(quoteMethods),
      response: { 200: documentedObject('The store quote method as stored'), 404: errorResponse('No such store') },
    },
  };
}

/** Sets a store's quote methods. */
function setShippingMethod(platform: ShippingServices) {
  const { quoteMethods } = platform;
  return async function setShippingMethod(request: FastifyRequest<{ Params: TenantParams; Body: ShippingSettingsBody }>) {
    const settings = await configureShippingSettings(platform, request.params.tenant_id, request.body as ShippingSettingsBody);
    return presentShippingSettings(settings, quoteMethods);
  };
}

/** GET of a store's quote methods. */
function getMethodOptions(): RouteShorthandOptions {
  return {
    preHandler: requireAdminToken,
    schema: {
      operationId: 'adminGetShippingMethod',
      tags: ['shipping'],
      summary: 'Read the store quote method',
      security: adminSecurity,
      params: TenantParams,
      response: { 200: documentedObject('The store quote method'), 404: errorResponse('No such store, or no method set') },
    },
  };
}

/** A store's quote methods as stored. */
function getShippingMethod(platform: ShippingServices) {
  const { quoteMethods } = platform;
  return async function getShippingMethod(request: FastifyRequest<{ Params: TenantParams }>) {
    const settings = await findShippingSettings(platform.database, request.params.tenant_id, quoteMethods);
    if (!settings) throw refuse('SHIPPING_SETTINGS_NOT_FOUND');
    return presentShippingSettings(settings, quoteMethods);
  };
}

/** The quote log of a store, with the list conventions (spec-notes Q7). */
function quoteCallListRoute(instance: FastifyInstance, platform: ShippingServices): void {
  const { quoteLog } = platform;
  listRoute(instance, {
    url: '/admin/v1/tenants/:tenant_id/shipping/quote-calls',
    list: quoteCallList,
    preHandler: requireAdminToken,
    schema: {
      tags: ['shipping'],
      operationId: 'adminListQuoteCalls',
      summary: 'The quote log (spec-notes Q7): every call with session id, latency and outcome, list conventions',
      security: adminSecurity,
      params: TenantParams,
      response: { 200: documentedList('Quote calls (list conventions)'), 404: errorResponse('No such store') },
    },
    base: async (request) => {
      const tenantId = request.params.tenant_id;
      if (!(await tenantExists(platform.database.db, tenantId))) throw refuse('SHIPPING_TENANT_NOT_FOUND');
      return quoteCallsOf(quoteLog, [tenantId]);
    },
  });
}

/** POST of a product-page quote. */
function storefrontQuoteOptions(quoteMethods: QuoteMethodRegistry): RouteShorthandOptions {
  return {
    schema: {
      tags: ['storefront'],
      operationId: 'createStorefrontQuote',
      summary: 'Product-page quote: the options shown (fastest, cheapest) or why shipping is unavailable',
      body: StorefrontQuoteBody,
      response: { 200: storefrontQuoteResult(quoteMethods.names), 404: errorResponse('No such store') },
    },
  };
}

/** A product page's quote: the options shown, or why shipping is unavailable. */
function storefrontQuote(platform: ShippingServices, metrics: QuoteMetrics) {
  return async function storefrontQuote(request: FastifyRequest<{ Body: StorefrontQuoteBody }>) {
    const quote = await quoteCart(platform, metrics, {
      tenantId: request.body.tenant_id,
      zipcode: request.body.zipcode,
      items: request.body.items,
      purpose: 'storefront',
    });
    return presentCartQuote(quote);
  };
}

/** POST of a checkout. */
function checkoutOptions(): RouteShorthandOptions {
  return {
    schema: {
      tags: ['storefront'],
      operationId: 'createCheckout',
      summary: 'Checkout: re-quotes (the second quote of the purchase) and creates the order with the chosen option',
      body: CheckoutBody,
      response: {
        201: documentedObject('The order created, as `{ "order": Order }`'),
        404: errorResponse('No such store'),
        // The platform error shape plus `reason` or the current `quote`: an open object, so the serializer strips nothing.
        409: documentedObject(
          'Shipping unavailable, or the chosen option is no longer offered: the platform error shape with the reason or the current quote',
        ),
      },
    },
  };
}

/** A checkout: quotes again and creates the order with the chosen option, or answers 409 with why not. */
function createCheckout(platform: ShippingServices, metrics: QuoteMetrics) {
  return async function createCheckout(request: FastifyRequest<{ Body: CheckoutBody }>, reply: FastifyReply) {
    const result = await checkout(platform, metrics, request.body);
    if (result.ok) return reply.code(201).send({ order: result.order });
    // Shipping unavailable or the choice no longer offered: 409 in the platform
    // error shape, with the reason (or the current quote) for the storefront to show.
    if (result.kind === 'unavailable') {
      const refusal = refuseField('SHIPPING_CHECKOUT_UNAVAILABLE', 'shipping', 'body', { reason: result.reason.message });
      return reply.code(refusal.statusCode).send({
        message: refusal.message,
        slug: refusal.slug,
        details: refusal.details,
        request_id: String(request.id),
        session_id: result.sessionId,
        reason: result.reason,
      });
    }
    const refusal = refuseField('SHIPPING_CHOICE_NOT_OFFERED', 'choice', 'body');
    return reply.code(refusal.statusCode).send({
      message: refusal.message,
      slug: refusal.slug,
      details: refusal.details,
      request_id: String(request.id),
      quote: result.quote,
    });
  };
}
