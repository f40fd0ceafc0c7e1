import type { DeliveryOption, QuotePackage, QuoteRequest, QuoteSellerError } from '@feira/contract';
import { freightOptions, freightTablesOf } from './freight/freight-lookup.js';
import type { FreightLine } from './freight/freight-pricing.js';
import { MARKETPLACE_OWNER } from './freight/freight-table-store.js';
import { callSellerQuote, type QuoteCallResult } from './quote-caller.js';
import { quoteTargetOf } from './quote-url.js';
import type { ShippingServices } from './shipping-services.js';
import type { QuoteMethod, ShippingSettings } from './shipping-settings.js';

/** An option with the method that priced it (carried into the order, spec-notes Q8). */
export type SourcedOption = DeliveryOption & { source: QuoteMethod };

/** What one method gave for a quote. */
export type MethodAnswer =
  | {
      method: QuoteMethod;
      kind: 'options';
      packages: { items: QuotePackage['items']; delivery_options: SourcedOption[] }[];
      /** The call that gave them (seller API, gateway), for the log. */
      call?: QuoteCallResult;
    }
  /** A freight-table method without a row for this zipcode, weight and volume. */
  | { method: QuoteMethod; kind: 'no_rate' }
  /** A seller-API or gateway call that did not end `ok`: the logged result. */
  | { method: 'seller_api' | 'gateway'; kind: 'call_failed'; call: QuoteCallResult }
  /** The seller (or gateway) answered a business error: out_of_stock, delivery_not_available, invalid_zipcode. */
  | { method: 'seller_api' | 'gateway'; kind: 'business_error'; call: QuoteCallResult; error: QuoteSellerError };

/** A call made by a method, for the quote log (spec-notes Q7). */
export interface MethodCall {
  method: 'seller_api' | 'gateway';
  result: QuoteCallResult;
}

export interface MethodInput {
  tenantId: string;
  settings: ShippingSettings;
  request: QuoteRequest;
  lines: readonly FreightLine[];
}

/** spec-notes Q8: a failed call is backed up by the freight tables; a business error is the seller's answer and stands. */
export function isBackedUp(answer: MethodAnswer): boolean {
  return answer.kind === 'call_failed' && ['timeout', 'http_error', 'invalid_response'].includes(answer.call.outcome);
}

function wholeCart(request: QuoteRequest): QuotePackage['items'] {
  return request.items.map((item) => ({ sku: item.sku, quantity: item.quantity }));
}

/** Options of freight tables (the store's or the marketplace's) as one package of the whole cart. */
export async function tableAnswer(
  platform: ShippingServices,
  method: 'freight_table' | 'marketplace_delivery',
  input: MethodInput,
): Promise<MethodAnswer> {
  const owner = method === 'freight_table' ? input.tenantId : MARKETPLACE_OWNER;
  const tables = await freightTablesOf(platform.database, [owner]);
  const options = await freightOptions(
    platform.database,
    tables,
    { zipcode: input.request.zipcode, lines: input.lines, source: () => method },
    platform.freightBands,
  );
  if (options.length === 0) return { method, kind: 'no_rate' };
  return { method, kind: 'options', packages: [{ items: wholeCart(input.request), delivery_options: options }] };
}

function callAnswer(method: 'seller_api' | 'gateway', call: QuoteCallResult): MethodAnswer {
  if (call.outcome === 'ok' && call.response) {
    return {
      method,
      kind: 'options',
      call,
      packages: call.response.packages.map((pkg) => ({
        items: pkg.items,
        delivery_options: pkg.delivery_options.map((option) => ({ ...option, source: method })),
      })),
    };
  }
  if (call.sellerError) return { method, kind: 'business_error', call, error: call.sellerError };
  return { method, kind: 'call_failed', call };
}

/** spec-notes Q1/Q3/Q4: the seller's own endpoint. */
async function sellerApiAnswer(platform: ShippingServices, input: MethodInput): Promise<MethodAnswer> {
  const call = await callSellerQuote(platform.outbound, quoteTargetOf(input.settings.url as string), input.request, {
    distributionCenterIds: input.settings.distributionCenterIds,
  });
  return callAnswer('seller_api', call);
}

/**
 * spec-notes Q8: an operator-registered gateway speaks the seller-API
 * contract; it is called with the same deadline, validation and log, and with
 * the store's credential in `Authorization`.
 */
async function gatewayAnswer(platform: ShippingServices, input: MethodInput): Promise<MethodAnswer> {
  const configured = input.settings.gateway;
  const gateway = configured
    ? await platform.database.db.selectFrom('shipping_gateways').select('url').where('id', '=', configured.id).executeTakeFirst()
    : undefined;
  if (!configured || !gateway) {
    return {
      method: 'gateway',
      kind: 'call_failed',
      call: { outcome: 'http_error', latencyMs: 0, httpStatus: null, detail: 'the gateway is no longer registered' },
    };
  }
  const call = await callSellerQuote(platform.outbound, quoteTargetOf(gateway.url), input.request, {
    distributionCenterIds: input.settings.distributionCenterIds,
    authorization: platform.box.open(configured.sealedCredential),
  });
  return callAnswer('gateway', call);
}

/** Runs one configured method (a new method is one function here plus one line). */
export function answerOf(platform: ShippingServices, method: QuoteMethod, input: MethodInput): Promise<MethodAnswer> {
  switch (method) {
    case 'seller_api':
      return sellerApiAnswer(platform, input);
    case 'gateway':
      return gatewayAnswer(platform, input);
    case 'freight_table':
    case 'marketplace_delivery':
      return tableAnswer(platform, method, input);
  }
}

/** `sku:quantity` pairs of a package, sorted: two packages hold the same items when their keys are equal. */
function itemsKey(items: QuotePackage['items']): string {
  return items
    .map((item) => `${item.sku}\u0000${item.quantity}`)
    .sort()
    .join('\u0001');
}

/**
 * spec-notes Q8: the options of every method that answered, merged before Q5.
 * Packages are matched by their items; the split of the first method (in the
 * store's order) that gave options decides the packages, and a method that split
 * the cart otherwise adds nothing. Within a package an option id already
 * offered by an earlier method is left out (the shopper chooses by id).
 */
export function mergeAnswers(answers: readonly MethodAnswer[]): QuotePackage[] | undefined {
  const withOptions = answers.filter((answer) => answer.kind === 'options');
  const base = withOptions[0];
  if (!base) return undefined;
  const packages = base.packages.map((pkg) => ({ items: pkg.items, delivery_options: [...pkg.delivery_options] }));
  const byItems = new Map(packages.map((pkg) => [itemsKey(pkg.items), pkg]));
  for (const answer of withOptions.slice(1)) {
    const targets = answer.packages.map((pkg) => byItems.get(itemsKey(pkg.items)));
    if (targets.some((target) => target === undefined)) continue;
    answer.packages.forEach((pkg, i) => {
      const target = targets[i] as (typeof packages)[number];
      for (const option of pkg.delivery_options) {
        if (!target.delivery_options.some((existing) => existing.id === option.id)) target.delivery_options.push(option);
      }
    });
  }
  return packages;
}
