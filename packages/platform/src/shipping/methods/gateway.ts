import { Type } from '@sinclair/typebox';
import { invalidParameter } from '../../core/platform-error.js';
import { callSellerQuote } from '../quote-caller.js';
import { quoteTargetOf } from '../quote-url.js';
import { callAnswer, type QuoteMethodModule } from './quote-method.js';

const settingsFields = {
  gateway: Type.Optional(
    Type.Object(
      {
        id: Type.String({ minLength: 1, maxLength: 64, description: 'An operator-registered gateway' }),
        credential: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 4096,
            description:
              'Sent as the Authorization header of every gateway call; write-only (never returned). Required when first set',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
};

/**
 * spec-notes Q8: an operator-registered gateway speaks the seller-API
 * contract; it is called with the same deadline, validation and log, and with
 * the store's credential in `Authorization`.
 */
export const gatewayMethod: QuoteMethodModule<typeof settingsFields> = {
  name: 'gateway',
  description: 'an operator-registered freight gateway',
  labelKey: 'shipping.method.gateway',
  settingsFields,
  backedUp: true,
  async writeSettings({ body, chosen, deps, tenantId }) {
    if (!chosen) {
      if (body.gateway) throw invalidParameter('gateway', 'body', 'is only for the gateway method');
      return { gateway_id: null, gateway_credential: null };
    }
    if (!body.gateway) throw invalidParameter('gateway', 'body', 'is required by the gateway method', 'MISSING_PARAMETER');
    const { db } = deps.database;
    const registered = await db.selectFrom('shipping_gateways').select('id').where('id', '=', body.gateway.id).executeTakeFirst();
    if (!registered) throw invalidParameter('gateway.id', 'body', 'is not a registered gateway');
    if (!deps.box) throw new Error('configureShippingSettings: a gateway credential needs the secret box');
    let sealed = body.gateway.credential === undefined ? undefined : deps.box.seal(body.gateway.credential);
    if (sealed === undefined) {
      // The credential is write-only: omitting it keeps the one stored for this same gateway.
      const stored = await db
        .selectFrom('shipping_settings')
        .select(['gateway_id', 'gateway_credential'])
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      if (stored?.gateway_id !== body.gateway.id || !stored.gateway_credential)
        throw invalidParameter('gateway.credential', 'body', 'is required when the gateway is first set', 'MISSING_PARAMETER');
      sealed = stored.gateway_credential;
    }
    return { gateway_id: body.gateway.id, gateway_credential: sealed };
  },
  readSettings: (row) => ({
    gateway: row.gateway_id && row.gateway_credential ? { id: row.gateway_id, sealedCredential: row.gateway_credential } : null,
  }),
  presentSettings: (settings) => (settings.gateway ? { gateway: { id: settings.gateway.id } } : {}),
  async answer(services, input) {
    const configured = input.settings.gateway;
    const gateway = configured
      ? await services.database.db
          .selectFrom('shipping_gateways')
          .select('url')
          .where('id', '=', configured.id)
          .executeTakeFirst()
      : undefined;
    if (!configured || !gateway) {
      return {
        method: 'gateway',
        kind: 'call_failed',
        call: { outcome: 'http_error', latencyMs: 0, httpStatus: null, detail: 'the gateway is no longer registered' },
      };
    }
    const call = await callSellerQuote(services.outbound, quoteTargetOf(gateway.url), input.request, {
      distributionCenterIds: input.settings.distributionCenterIds,
      authorization: services.box.open(configured.sealedCredential),
    });
    return callAnswer('gateway', call);
  },
};
