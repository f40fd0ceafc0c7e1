import { Type } from '@sinclair/typebox';
import { DEFAULT_GATEWAY_BASE_URLS } from '../../core/config.js';
import { refuseField } from '../../core/refusals.js';
import { callSellerQuote, type QuoteCallResult } from '../quote-caller.js';
import { quoteTargetOf } from '../quote-url.js';
import { gatewayUserAgent } from './gateways/gateway-adapter.js';
import { GATEWAY_ADAPTERS, GATEWAY_KINDS, type GatewayOrigin, gatewayAdapterOf, SELLER_API_CONTRACT } from './gateways/index.js';
import { callAnswer, type QuoteMethodModule } from './quote-method.js';

const settingsFields = {
  gateway: Type.Optional(
    Type.Object(
      {
        kind: Type.Optional(
          Type.Union(
            GATEWAY_KINDS.map((kind) => Type.Literal(kind)),
            {
              description: `${SELLER_API_CONTRACT} (the default): an operator-registered gateway (\`id\`) that speaks the seller-API quote contract; ${GATEWAY_ADAPTERS.map((adapter) => `${adapter.kind}: ${adapter.label}'s own API, the store's token as credential, origin the first distribution centre with a zipcode`).join('; ')}`,
            },
          ),
        ),
        id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description: `An operator-registered gateway (kind ${SELLER_API_CONTRACT} only)`,
          }),
        ),
        credential: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 4096,
            pattern: '^[\\x20-\\x7e]+$',
            description:
              'seller_api_contract: the Authorization header of every call; melhor_envio: the API token (sent as Bearer); frenet: the token header. Write-only (never returned, never logged). Required when first set',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
};

/** The origin of a gateway quote: the first distribution centre with a zipcode (D59). */
function originOf(centres: readonly { id: string; zipcode?: string }[]): GatewayOrigin | undefined {
  const centre = centres.find((c) => c.zipcode !== undefined);
  return centre?.zipcode ? { zipcode: centre.zipcode, centreId: centre.id } : undefined;
}

const failed = (detail: string, gatewayKind: string): QuoteCallResult => ({
  outcome: 'http_error',
  latencyMs: 0,
  httpStatus: null,
  detail,
  gatewayKind,
});

/**
 * spec-notes Q8, D57: a freight gateway is a kind plus the store's
 * credential. `seller_api_contract` is an operator-registered URL that speaks
 * the seller-API contract (the credential is the `Authorization` header); the
 * other kinds are gateways with an API of their own (gateways/), reached at
 * their base URL setting. Every kind is called with the seller API's deadline,
 * validation, log and fallback; the log row carries the kind.
 */
export const gatewayMethod: QuoteMethodModule<typeof settingsFields> = {
  name: 'gateway',
  description: `a freight gateway: ${GATEWAY_KINDS.join(', ')}`,
  labelKey: 'shipping.method.gateway',
  settingsFields,
  backedUp: true,
  async writeSettings({ body, chosen, deps, tenantId }) {
    if (!chosen) {
      if (body.gateway) throw refuseField('SHIPPING_GATEWAY_NOT_TAKEN', 'gateway', 'body');
      return { gateway_id: null, gateway_credential: null, gateway_kind: null };
    }
    if (!body.gateway) throw refuseField('SHIPPING_GATEWAY_REQUIRED', 'gateway', 'body');
    const kind = body.gateway.kind ?? SELLER_API_CONTRACT;
    const { db } = deps.database;
    let gatewayId: string | null = null;
    if (kind === SELLER_API_CONTRACT) {
      if (body.gateway.id === undefined)
        throw refuseField('SHIPPING_GATEWAY_ID_REQUIRED', 'gateway.id', 'body', { contract: SELLER_API_CONTRACT });
      const registered = await db
        .selectFrom('shipping_gateways')
        .select('id')
        .where('id', '=', body.gateway.id)
        .executeTakeFirst();
      if (!registered) throw refuseField('SHIPPING_GATEWAY_UNKNOWN', 'gateway.id', 'body');
      gatewayId = body.gateway.id;
    } else {
      if (body.gateway.id !== undefined)
        throw refuseField('SHIPPING_GATEWAY_ID_NOT_TAKEN', 'gateway.id', 'body', { contract: SELLER_API_CONTRACT });
      if (!originOf(body.distribution_centers ?? []))
        throw refuseField('SHIPPING_GATEWAY_ORIGIN_REQUIRED', 'distribution_centers', 'body', { kind });
    }
    if (!deps.box) throw new Error('configureShippingSettings: a gateway credential needs the secret box');
    let sealed = body.gateway.credential === undefined ? undefined : deps.box.seal(body.gateway.credential);
    if (sealed === undefined) {
      // The credential is write-only: omitting it keeps the one stored for this same gateway (kind and id).
      const stored = await db
        .selectFrom('shipping_settings')
        .select(['gateway_id', 'gateway_credential', 'gateway_kind'])
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      const sameGateway = stored && (stored.gateway_kind ?? SELLER_API_CONTRACT) === kind && stored.gateway_id === gatewayId;
      if (!sameGateway || !stored.gateway_credential)
        throw refuseField('SHIPPING_GATEWAY_CREDENTIAL_REQUIRED', 'gateway.credential', 'body');
      sealed = stored.gateway_credential;
    }
    return { gateway_id: gatewayId, gateway_credential: sealed, gateway_kind: kind === SELLER_API_CONTRACT ? null : kind };
  },
  readSettings: (row) => ({
    gateway: row.gateway_credential
      ? { kind: row.gateway_kind ?? SELLER_API_CONTRACT, id: row.gateway_id, sealedCredential: row.gateway_credential }
      : null,
  }),
  presentSettings: (settings) =>
    settings.gateway
      ? { gateway: settings.gateway.kind === SELLER_API_CONTRACT ? { id: settings.gateway.id } : { kind: settings.gateway.kind } }
      : {},
  async answer(services, input) {
    const configured = input.settings.gateway;
    if (!configured)
      return { method: 'gateway', kind: 'call_failed', call: failed('the store has no gateway', SELLER_API_CONTRACT) };
    const credential = services.box.open(configured.sealedCredential);
    const adapter = gatewayAdapterOf(configured.kind);
    if (!adapter) {
      const gateway = configured.id
        ? await services.database.db
            .selectFrom('shipping_gateways')
            .select('url')
            .where('id', '=', configured.id)
            .executeTakeFirst()
        : undefined;
      if (!gateway)
        return { method: 'gateway', kind: 'call_failed', call: failed('the gateway is no longer registered', configured.kind) };
      const call = await callSellerQuote(services.outbound, quoteTargetOf(gateway.url), input.request, {
        distributionCenterIds: input.settings.distributionCenterIds,
        authorization: credential,
      });
      return callAnswer('gateway', { ...call, gatewayKind: configured.kind });
    }
    const origin = originOf(input.settings.distributionCenters);
    if (!origin)
      return { method: 'gateway', kind: 'call_failed', call: failed('no distribution centre has a zipcode', configured.kind) };
    const base = services.config.gateways?.[adapter.baseUrlSetting] ?? DEFAULT_GATEWAY_BASE_URLS[adapter.baseUrlSetting];
    const call = await callSellerQuote(
      services.outbound,
      quoteTargetOf(`${base.replace(/\/+$/, '')}${adapter.path}`),
      input.request,
      {
        distributionCenterIds: input.settings.distributionCenterIds,
        protocol: adapter.protocol(credential, origin, gatewayUserAgent(services.config.gatewayContactEmail)),
        // D107: the operator's deadline for a gateway's own API, within GATEWAY_TIMEOUT_BOUNDS_MS.
        ...(services.config.gatewayTimeoutMs !== undefined ? { timeoutMs: services.config.gatewayTimeoutMs } : {}),
      },
    );
    return callAnswer('gateway', { ...call, gatewayKind: adapter.kind });
  },
};
