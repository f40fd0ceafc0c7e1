import { QUOTE_MAX_CENTRE_ID_LENGTH } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../core/clock.js';
import { outboundPolicyOf, type PlatformConfig } from '../core/config.js';
import { invalidParameter, notFound } from '../core/platform-error.js';
import type { Database } from '../storage/database.js';
import { checkQuoteUrl } from './quote-url.js';

/** SPEC-DECISIONS Q1: the per-tenant quote settings, as the admin API reads and writes them. */
export const ShippingSettingsBody = Type.Object(
  {
    method: Type.Literal('seller_api', {
      description: 'Only quotation via the seller API is specified (spec "What the service does", rule 3)',
    }),
    url: Type.String({ minLength: 1, description: 'The seller quote URL, called exactly as given (query string included)' }),
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
  method: 'seller_api';
  url: string;
  distributionCenterIds: string[];
}

export function presentShippingSettings(settings: ShippingSettings): ShippingSettingsBody {
  return {
    method: settings.method,
    url: settings.url,
    distribution_centers: settings.distributionCenterIds.map((id) => ({ id })),
  };
}

export async function findShippingSettings(database: Database, tenantId: string): Promise<ShippingSettings | undefined> {
  const row = await database.db.selectFrom('shipping_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!row) return undefined;
  return {
    tenantId: row.tenant_id,
    method: 'seller_api',
    url: row.url,
    distributionCenterIds: JSON.parse(row.distribution_center_ids) as string[],
  };
}

/**
 * Validates and stores a tenant's quote settings (SPEC-DECISIONS Q1). The URL
 * rules depend on the mode (strict: HTTPS, no port, public address; sandbox:
 * also http, ports and loopback). Bad settings throw a 422 naming the field;
 * an unknown tenant a 404. `feira start` calls this to point the demo stores at
 * the demo seller.
 */
export async function configureShippingSettings(
  deps: { database: Database; clock: Clock; config: Pick<PlatformConfig, 'mode'> },
  tenantId: string,
  input: ShippingSettingsBody,
): Promise<ShippingSettings> {
  const ids = (input.distribution_centers ?? []).map((centre) => centre.id);
  ids.forEach((id, i) => {
    if (id.length === 0 || id.length > QUOTE_MAX_CENTRE_ID_LENGTH) {
      throw invalidParameter(`distribution_centers.${i}.id`, 'body', `must be 1 to ${QUOTE_MAX_CENTRE_ID_LENGTH} characters`);
    }
    if (ids.indexOf(id) !== i) throw invalidParameter(`distribution_centers.${i}.id`, 'body', 'appears twice');
  });
  await checkQuoteUrl(input.url, outboundPolicyOf(deps.config));
  const tenant = await deps.database.db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw notFound('Tenant');
  const now = deps.clock.now().toISOString();
  const centres = JSON.stringify(ids);
  await deps.database.db
    .insertInto('shipping_settings')
    .values({
      tenant_id: tenantId,
      method: input.method,
      url: input.url,
      distribution_center_ids: centres,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .column('tenant_id')
        .doUpdateSet({ method: input.method, url: input.url, distribution_center_ids: centres, updated_at: now }),
    )
    .execute();
  return { tenantId, method: 'seller_api', url: input.url, distributionCenterIds: ids };
}
