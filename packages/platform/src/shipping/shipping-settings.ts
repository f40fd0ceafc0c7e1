import { QUOTE_MAX_CENTRE_ID_LENGTH } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../core/clock.js';
import type { PlatformConfig } from '../core/config.js';
import { invalidParameter, notFound } from '../core/platform-error.js';
import type { SecretBox } from '../core/secret-box.js';
import { outboundPolicyOf } from '../outbound/address-policy.js';
import type { Database } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { checkQuoteUrl } from './quote-url.js';

/** spec-notes Q8: the four quote methods a store may combine. */
export const QUOTE_METHODS = ['seller_api', 'freight_table', 'marketplace_delivery', 'gateway'] as const;
export type QuoteMethod = (typeof QUOTE_METHODS)[number];

const QuoteMethodName = Type.Union(
  QUOTE_METHODS.map((method) => Type.Literal(method)),
  {
    description:
      'seller_api: the seller quote URL; freight_table: the store freight tables; marketplace_delivery: the operator delivery-service tables (opting in); gateway: an operator-registered freight gateway',
  },
);

/**
 * spec-notes Q1, Q8: the per-tenant quote settings, as the admin API reads
 * and writes them. `method` names one method; `methods` combines several (their
 * options are merged before Q5). Exactly one of the two.
 */
export const ShippingSettingsBody = Type.Object(
  {
    method: Type.Optional(QuoteMethodName),
    methods: Type.Optional(
      Type.Array(QuoteMethodName, {
        minItems: 1,
        maxItems: QUOTE_METHODS.length,
        uniqueItems: true,
        description: 'Several methods combined',
      }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'seller_api: the seller quote URL, called exactly as given (query string included)',
      }),
    ),
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
    fallback: Type.Optional(
      Type.Union([Type.Literal('freight_table'), Type.Null()], {
        description:
          'Backup rates: the store freight tables answer when a seller_api or gateway call ends timeout, http_error or invalid_response',
      }),
    ),
    distribution_centers: Type.Array(
      Type.Object({ id: Type.String({ minLength: 1, maxLength: QUOTE_MAX_CENTRE_ID_LENGTH }) }, { additionalProperties: false }),
      { maxItems: 100, default: [] },
    ),
  },
  { additionalProperties: false, $id: 'ShippingSettings' },
);
export type ShippingSettingsBody = Static<typeof ShippingSettingsBody>;

/** A tenant's stored settings. */
export interface ShippingSettings {
  tenantId: string;
  methods: QuoteMethod[];
  /** seller_api's URL; null without that method. */
  url: string | null;
  distributionCenterIds: string[];
  fallback: 'freight_table' | null;
  /** The gateway and the store's sealed credential (method `gateway`). */
  gateway: { id: string; sealedCredential: string } | null;
}

/** The columns settings are read from (the quote path selects them joined to the cart). */
export type ShippingSettingsColumns = Pick<
  Schema['shipping_settings'],
  'method' | 'methods' | 'url' | 'distribution_center_ids' | 'fallback' | 'gateway_id' | 'gateway_credential'
>;

export const SHIPPING_SETTINGS_COLUMNS = [
  'method',
  'methods',
  'url',
  'distribution_center_ids',
  'fallback',
  'gateway_id',
  'gateway_credential',
] as const;

export function settingsFromRow(tenantId: string, row: ShippingSettingsColumns): ShippingSettings {
  const methods = row.methods === null ? [row.method as QuoteMethod] : (JSON.parse(row.methods) as QuoteMethod[]);
  return {
    tenantId,
    methods,
    url: methods.includes('seller_api') ? row.url : null,
    distributionCenterIds: JSON.parse(row.distribution_center_ids) as string[],
    fallback: row.fallback === 'freight_table' ? 'freight_table' : null,
    gateway: row.gateway_id && row.gateway_credential ? { id: row.gateway_id, sealedCredential: row.gateway_credential } : null,
  };
}

export function presentShippingSettings(settings: ShippingSettings): ShippingSettingsBody {
  return {
    ...(settings.methods.length === 1 ? { method: settings.methods[0] } : { methods: settings.methods }),
    ...(settings.url !== null && { url: settings.url }),
    ...(settings.gateway && { gateway: { id: settings.gateway.id } }),
    ...(settings.fallback && { fallback: settings.fallback }),
    distribution_centers: settings.distributionCenterIds.map((id) => ({ id })),
  };
}

export async function findShippingSettings(database: Database, tenantId: string): Promise<ShippingSettings | undefined> {
  const row = await database.db
    .selectFrom('shipping_settings')
    .select(SHIPPING_SETTINGS_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? settingsFromRow(tenantId, row) : undefined;
}

/**
 * Validates and stores a tenant's quote settings (spec-notes Q1, Q8). The URL
 * rules depend on the mode (strict: HTTPS, no port, public address; sandbox:
 * also http, ports and loopback). Bad settings throw a 422 naming the field;
 * an unknown tenant a 404. `feira start` calls this to point the demo stores at
 * the demo seller.
 */
export async function configureShippingSettings(
  deps: { database: Database; clock: Clock; config: Pick<PlatformConfig, 'mode'>; box?: SecretBox },
  tenantId: string,
  input: ShippingSettingsBody,
): Promise<ShippingSettings> {
  if (input.method !== undefined && input.methods !== undefined)
    throw invalidParameter('methods', 'body', 'give either method or methods, not both');
  const methods: QuoteMethod[] = input.methods ?? (input.method ? [input.method] : []);
  if (methods.length === 0) throw invalidParameter('method', 'body', 'is required (or methods)', 'MISSING_PARAMETER');
  const ids = (input.distribution_centers ?? []).map((centre) => centre.id);
  ids.forEach((id, i) => {
    if (id.length === 0 || id.length > QUOTE_MAX_CENTRE_ID_LENGTH) {
      throw invalidParameter(`distribution_centers.${i}.id`, 'body', `must be 1 to ${QUOTE_MAX_CENTRE_ID_LENGTH} characters`);
    }
    if (ids.indexOf(id) !== i) throw invalidParameter(`distribution_centers.${i}.id`, 'body', 'appears twice');
  });
  const sellerApi = methods.includes('seller_api');
  if (sellerApi) {
    if (input.url === undefined)
      throw invalidParameter('url', 'body', 'is required by the seller_api method', 'MISSING_PARAMETER');
    await checkQuoteUrl(input.url, outboundPolicyOf(deps.config));
  } else if (input.url !== undefined) {
    throw invalidParameter('url', 'body', 'is only for the seller_api method');
  }
  if (input.fallback && !sellerApi && !methods.includes('gateway'))
    throw invalidParameter('fallback', 'body', 'backs up a seller_api or gateway method; the store has neither');
  if (input.fallback && methods.includes('freight_table'))
    throw invalidParameter('fallback', 'body', 'freight_table is already one of the methods: its options are always merged');

  const { db } = deps.database;
  const tenant = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw notFound('Tenant');

  let gateway: ShippingSettings['gateway'] = null;
  if (methods.includes('gateway')) {
    if (!input.gateway) throw invalidParameter('gateway', 'body', 'is required by the gateway method', 'MISSING_PARAMETER');
    const registered = await db
      .selectFrom('shipping_gateways')
      .select('id')
      .where('id', '=', input.gateway.id)
      .executeTakeFirst();
    if (!registered) throw invalidParameter('gateway.id', 'body', 'is not a registered gateway');
    if (!deps.box) throw new Error('configureShippingSettings: a gateway credential needs the secret box');
    let sealed = input.gateway.credential === undefined ? undefined : deps.box.seal(input.gateway.credential);
    if (sealed === undefined) {
      // The credential is write-only: omitting it keeps the one stored for this same gateway.
      const stored = await db
        .selectFrom('shipping_settings')
        .select(['gateway_id', 'gateway_credential'])
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      if (stored?.gateway_id !== input.gateway.id || !stored.gateway_credential)
        throw invalidParameter('gateway.credential', 'body', 'is required when the gateway is first set', 'MISSING_PARAMETER');
      sealed = stored.gateway_credential;
    }
    gateway = { id: input.gateway.id, sealedCredential: sealed };
  } else if (input.gateway) {
    throw invalidParameter('gateway', 'body', 'is only for the gateway method');
  }

  const now = deps.clock.now().toISOString();
  const fields = {
    method: methods[0] as QuoteMethod,
    methods: JSON.stringify(methods),
    url: input.url ?? '',
    distribution_center_ids: JSON.stringify(ids),
    fallback: input.fallback ?? null,
    gateway_id: gateway?.id ?? null,
    gateway_credential: gateway?.sealedCredential ?? null,
    updated_at: now,
  };
  await db
    .insertInto('shipping_settings')
    .values({ tenant_id: tenantId, ...fields, created_at: now })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(fields))
    .execute();
  return {
    tenantId,
    methods,
    url: sellerApi ? (input.url as string) : null,
    distributionCenterIds: ids,
    fallback: input.fallback ?? null,
    gateway,
  };
}
