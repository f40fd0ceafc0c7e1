import type { DeliveryOption, QuotePackageItem, QuoteRequest, QuoteResponse } from '@feira/contract';

/**
 * The request's items as the response must list them: same SKUs, same
 * quantities (spec "Shipping quote response", `packages[].items`).
 *
 * @example
 * ```ts
 * mirrorItems(request); // [{ sku: 'SKU-1', quantity: 2 }]
 * ```
 */
export function mirrorItems(request: QuoteRequest): QuotePackageItem[] {
  return request.items.map((item) => ({ sku: item.sku, quantity: item.quantity }));
}

/**
 * A one-package response carrying every item of the request and the given options.
 *
 * @example
 * ```ts
 * return singlePackageQuote(request, [
 *   { id: 'std', name: 'Standard', type: 'conventional', price: 19.9, delivery_days: 5 },
 *   { id: 'exp', name: 'Express', type: 'conventional', price: 39.9, delivery_days: 1 },
 * ]);
 * ```
 */
export function singlePackageQuote(request: QuoteRequest, deliveryOptions: DeliveryOption[]): QuoteResponse {
  return { packages: [{ items: mirrorItems(request), delivery_options: deliveryOptions }] };
}

/**
 * Centimetres to metres (spec "Unit conversion": divide by 100). The request
 * carries metres; a catalogue usually stores centimetres.
 *
 * @example
 * ```ts
 * centimetresToMetres(35); // 0.35
 * ```
 */
export function centimetresToMetres(centimetres: number): number {
  return centimetres / 100;
}

/**
 * Metres to centimetres, to compare request dimensions with a catalogue in centimetres.
 *
 * @example
 * ```ts
 * metresToCentimetres(0.35); // 35
 * ```
 */
export function metresToCentimetres(metres: number): number {
  return Math.round(metres * 100 * 1e6) / 1e6;
}

/**
 * Grams to kilograms (spec "Unit conversion": divide by 1000).
 *
 * @example
 * ```ts
 * gramsToKilograms(1250); // 1.25
 * ```
 */
export function gramsToKilograms(grams: number): number {
  return grams / 1000;
}

/**
 * Kilograms to grams.
 *
 * @example
 * ```ts
 * kilogramsToGrams(1.25); // 1250
 * ```
 */
export function kilogramsToGrams(kilograms: number): number {
  return Math.round(kilograms * 1000 * 1e6) / 1e6;
}

/**
 * Rounds a price to 2 decimal places, as the spec requires of every price
 * (a computed freight like 10 / 3 would otherwise be rejected).
 *
 * @example
 * ```ts
 * roundPrice(10 / 3); // 3.33
 * ```
 */
export function roundPrice(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}
