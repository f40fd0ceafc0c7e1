import { QUOTE_MAX_CENTRE_ID_LENGTH, ZIPCODE_PATTERN } from '@feira/contract';
import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { tenantExists } from '../accounts/index.js';
import { refuse, refuseField } from '../core/refusals.js';
import type { Database } from '../storage/database.js';
import type { SealedColumn } from '../storage/secret-reseal.js';
import {
  BUILT_IN_QUOTE_METHODS,
  type CommonSettingsBody,
  eitherOf,
  type QUOTE_METHOD_MODULES,
  type QuoteMethod,
  type QuoteMethodModule,
  type QuoteMethodRegistry,
  type SettingsDeps,
  type ShippingSettings,
  type ShippingSettingsRow,
} from './methods/index.js';

export type { QuoteMethod, ShippingSettings } from './methods/index.js';

/** The columns of the stored settings: the one list every reader selects (the quote path joins them to the cart). */
export const SHIPPING_SETTINGS_COLUMNS = [
  'method',
  'methods',
  'url',
  'distribution_center_ids',
  'distribution_center_zipcodes',
  'fallback',
  'gateway_id',
  'gateway_credential',
  'gateway_kind',
] as const satisfies readonly (keyof ShippingSettingsRow)[];

/** The methods whose failed calls the freight tables may back up (`fallback`). */
function backedUpNames(methods: QuoteMethodRegistry): QuoteMethod[] {
  return methods.modules.filter((module) => module.backedUp).map((module) => module.name);
}

/**
 * spec-notes Q1, Q8: the per-tenant quote settings, as the admin API reads
 * and writes them, for the methods of one registry. `method` names one
 * method; `methods` combines several (their options are merged before Q5).
 * Exactly one of the two. Each method adds the fields it owns.
 */
export function shippingSettingsSchema(methods: QuoteMethodRegistry) {
  const methodName = Type.Union(
    methods.names.map((name) => Type.Literal(name)),
    { description: methods.modules.map((module) => `${module.name}: ${module.description}`).join('; ') },
  );
  const fields: TProperties = {};
  for (const module of methods.modules) Object.assign(fields, module.settingsFields);
  return Type.Object(
    {
      method: Type.Optional(methodName),
      methods: Type.Optional(
        Type.Array(methodName, {
          minItems: 1,
          maxItems: methods.names.length,
          uniqueItems: true,
          description: 'Several methods combined',
        }),
      ),
      ...fields,
      fallback: Type.Optional(
        Type.Union([Type.Literal('freight_table'), Type.Null()], {
          description: `Backup rates: the store freight tables answer when a ${eitherOf(backedUpNames(methods))} call ends timeout, http_error or invalid_response`,
        }),
      ),
      distribution_centers: Type.Array(
        Type.Object(
          {
            id: Type.String({ minLength: 1, maxLength: QUOTE_MAX_CENTRE_ID_LENGTH }),
            zipcode: Type.Optional(
              Type.String({
                pattern: ZIPCODE_PATTERN,
                description: "The centre's CEP, 8 digits: where a gateway quote ships from (D59)",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100, default: [] },
      ),
    },
    { additionalProperties: false, $id: 'ShippingSettings' },
  );
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type FieldsOf<M> = M extends QuoteMethodModule<infer Fields> ? Static<TObject<Fields>> : never;

/** The settings body of the platform's methods (a registry with more methods accepts their fields too). */
export type ShippingSettingsBody = CommonSettingsBody &
  UnionToIntersection<FieldsOf<(typeof QUOTE_METHOD_MODULES)[number]>> &
  Record<string, unknown>;

export function settingsFromRow(methods: QuoteMethodRegistry, tenantId: string, row: ShippingSettingsRow): ShippingSettings {
  const chosen = row.methods === null ? [row.method] : (JSON.parse(row.methods) as QuoteMethod[]);
  const ids = JSON.parse(row.distribution_center_ids) as string[];
  const zipcodes: Record<string, string> = row.distribution_center_zipcodes ? JSON.parse(row.distribution_center_zipcodes) : {};
  const settings: ShippingSettings = {
    tenantId,
    methods: chosen,
    url: null,
    distributionCenterIds: ids,
    distributionCenters: ids.map((id) => (Object.hasOwn(zipcodes, id) ? { id, zipcode: zipcodes[id] as string } : { id })),
    fallback: row.fallback === 'freight_table' ? 'freight_table' : null,
    gateway: null,
  };
  for (const module of methods.modules) Object.assign(settings, module.readSettings?.(row, chosen.includes(module.name)));
  return settings;
}

export function presentShippingSettings(
  settings: ShippingSettings,
  methods: QuoteMethodRegistry = BUILT_IN_QUOTE_METHODS,
): ShippingSettingsBody {
  return {
    ...(settings.methods.length === 1 ? { method: settings.methods[0] } : { methods: settings.methods }),
    ...Object.assign({}, ...methods.modules.map((module) => module.presentSettings?.(settings))),
    ...(settings.fallback && { fallback: settings.fallback }),
    distribution_centers: settings.distributionCenters.map((centre) => ({ ...centre })),
  };
}

export async function findShippingSettings(
  database: Database,
  tenantId: string,
  methods: QuoteMethodRegistry = BUILT_IN_QUOTE_METHODS,
): Promise<ShippingSettings | undefined> {
  const row = await database.db
    .selectFrom('shipping_settings')
    .select(SHIPPING_SETTINGS_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? settingsFromRow(methods, tenantId, row) : undefined;
}

/**
 * Validates and stores a tenant's quote settings (spec-notes Q1, Q8). The URL
 * rules depend on the mode (strict: HTTPS, no port, public address; sandbox:
 * also http, ports and loopback). Bad settings throw a 422 naming the field;
 * an unknown tenant a 404. `feira start` calls this to point the demo stores at
 * the demo seller.
 */
export async function configureShippingSettings(
  deps: SettingsDeps & { quoteMethods?: QuoteMethodRegistry },
  tenantId: string,
  input: ShippingSettingsBody,
): Promise<ShippingSettings> {
  const registry = deps.quoteMethods ?? BUILT_IN_QUOTE_METHODS;
  if (input.method !== undefined && input.methods !== undefined)
    throw refuseField('SHIPPING_METHOD_AND_METHODS', 'methods', 'body');
  const methods: QuoteMethod[] = input.methods ?? (input.method ? [input.method] : []);
  if (methods.length === 0) throw refuseField('SHIPPING_METHOD_REQUIRED', 'method', 'body');
  const centres = input.distribution_centers ?? [];
  const ids = centres.map((centre) => centre.id);
  const zipcodes = Object.fromEntries(centres.flatMap((centre) => (centre.zipcode ? [[centre.id, centre.zipcode]] : [])));
  centres.forEach((centre, i) => {
    if (centre.zipcode !== undefined && !new RegExp(ZIPCODE_PATTERN).test(centre.zipcode))
      throw refuseField('SHIPPING_ZIPCODE_INVALID', `distribution_centers.${i}.zipcode`, 'body');
  });
  ids.forEach((id, i) => {
    if (id.length === 0 || id.length > QUOTE_MAX_CENTRE_ID_LENGTH) {
      throw refuseField('SHIPPING_CENTRE_ID_LENGTH', `distribution_centers.${i}.id`, 'body', { max: QUOTE_MAX_CENTRE_ID_LENGTH });
    }
    if (ids.indexOf(id) !== i) throw refuseField('SHIPPING_VALUE_REPEATED', `distribution_centers.${i}.id`, 'body');
  });
  // The schema names only registered methods; a caller without it (the demo) is checked here.
  methods.forEach((method, i) => {
    if (!registry.find(method)) throw refuseField('SHIPPING_METHOD_UNKNOWN', input.methods ? `methods.${i}` : 'method', 'body');
  });
  const contexts = registry.modules.map((module) => ({
    module,
    context: { body: input, chosen: methods.includes(module.name), deps, tenantId },
  }));
  for (const { module, context } of contexts) await module.checkSettings?.(context);
  const backedUp = backedUpNames(registry);
  if (input.fallback && !methods.some((method) => backedUp.includes(method)))
    throw refuseField(
      backedUp.length > 2 ? 'SHIPPING_FALLBACK_BACKS_UP_NONE' : 'SHIPPING_FALLBACK_BACKS_UP_NEITHER',
      'fallback',
      'body',
      { methods: eitherOf(backedUp) },
    );
  if (input.fallback && methods.includes(input.fallback))
    throw refuseField('SHIPPING_FALLBACK_IS_A_METHOD', 'fallback', 'body', { fallback: input.fallback });

  const { db } = deps.database;
  if (!(await tenantExists(db, tenantId))) throw refuse('SHIPPING_TENANT_NOT_FOUND');

  const methodColumns: Partial<ShippingSettingsRow> = {};
  for (const { module, context } of contexts) Object.assign(methodColumns, await module.writeSettings?.(context));
  const now = deps.clock.now().toISOString();
  const row: ShippingSettingsRow = {
    method: methods[0] as QuoteMethod,
    methods: JSON.stringify(methods),
    distribution_center_ids: JSON.stringify(ids),
    distribution_center_zipcodes: Object.keys(zipcodes).length > 0 ? JSON.stringify(zipcodes) : null,
    fallback: input.fallback ?? null,
    // Each column belongs to one built-in method, which writes it whether chosen or not.
    ...(methodColumns as Pick<ShippingSettingsRow, 'url' | 'gateway_id' | 'gateway_credential' | 'gateway_kind'>),
  };
  const fields = { ...row, updated_at: now };
  await db
    .insertInto('shipping_settings')
    .values({ tenant_id: tenantId, ...fields, created_at: now })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(fields))
    .execute();
  return settingsFromRow(registry, tenantId, row);
}

const schemaOfRegistry = new WeakMap<QuoteMethodRegistry, ReturnType<typeof shippingSettingsSchema>>();

/**
 * Stores settings that did not come through the admin route's validator (the
 * console's forms): the same schema that route declares, then
 * {@link configureShippingSettings}. The first schema refusal is a 422 naming
 * the field as the API would (`distribution_centers.0.id`).
 */
export async function saveShippingSettings(
  deps: SettingsDeps & { quoteMethods: QuoteMethodRegistry },
  tenantId: string,
  input: ShippingSettingsBody,
): Promise<ShippingSettings> {
  let schema = schemaOfRegistry.get(deps.quoteMethods);
  if (!schema) {
    schema = shippingSettingsSchema(deps.quoteMethods);
    schemaOfRegistry.set(deps.quoteMethods, schema);
  }
  const error = Value.Errors(schema, input).First();
  if (error)
    throw refuseField('SHIPPING_SETTINGS_INVALID', error.path.slice(1).replace(/\//g, '.') || 'body', 'body', {
      problem: error.message,
    });
  return configureShippingSettings(deps, tenantId, input);
}

/** The sealed values shipping keeps: each store's gateway credential. */
export const shippingSealedColumns: readonly SealedColumn[] = [
  { table: 'shipping_settings', key: 'tenant_id', column: 'gateway_credential' },
];
