import { type FreightOption, freightOptions, freightTablesOf } from '../freight/freight-lookup.js';
import type { MethodAnswer, MethodInput, QuoteMethodModule, QuoteMethodServices } from './quote-method.js';

/** Options of the freight tables of `owner` (a store, or the marketplace) as one package of the whole cart. */
export async function freightTableAnswer(
  services: QuoteMethodServices,
  method: FreightOption['source'],
  owner: string,
  input: MethodInput,
): Promise<MethodAnswer> {
  const tables = await freightTablesOf(services.database, [owner]);
  const options = await freightOptions(
    services.database,
    tables,
    { zipcode: input.request.zipcode, lines: input.lines, source: () => method },
    services.freightBands,
  );
  if (options.length === 0) return { method, kind: 'no_rate' };
  const wholeCart = input.request.items.map((item) => ({ sku: item.sku, quantity: item.quantity }));
  return { method, kind: 'options', packages: [{ items: wholeCart, delivery_options: options }] };
}

/** spec-notes Q8, Q9: the store's own freight tables (also the backup rates of `fallback`). */
export const freightTableMethod: QuoteMethodModule<Record<never, never>> = {
  name: 'freight_table',
  description: 'the store freight tables',
  labelKey: 'shipping.method.freight_table',
  settingsFields: {},
  backedUp: false,
  answer: (services, input) => freightTableAnswer(services, 'freight_table', input.tenantId, input),
};
