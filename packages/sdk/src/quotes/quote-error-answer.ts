import { QUOTE_ERROR_CODES, type QuoteErrorBody, type QuoteErrorCode, type QuoteRequest } from '@feira/contract';

/**
 * One SKU's stock in an error answer. The spec types `available_quantity` as a
 * string; numbers are converted.
 *
 * @example
 * ```ts
 * const stock: QuoteStock = { sku: 'SKU-1', available_quantity: 0 };
 * ```
 */
export interface QuoteStock {
  sku: string;
  available_quantity: number | string;
}

/**
 * A quote error answer (HTTP 400 with the spec's error body). Return it, or throw
 * it, from your quote function; build it with `quoteErrors`.
 *
 * @example
 * ```ts
 * throw quoteErrors.invalidZipcode();
 * ```
 */
export class QuoteErrorAnswer extends Error {
  override readonly name = 'QuoteErrorAnswer';
  readonly status = 400;
  readonly body: QuoteErrorBody;

  constructor(code: QuoteErrorCode, items?: readonly QuoteStock[]) {
    super(QUOTE_ERROR_CODES[code].message);
    this.body = {
      message: QUOTE_ERROR_CODES[code].message,
      code,
      ...(items ? { items: items.map((i) => ({ sku: i.sku, available_quantity: String(i.available_quantity) })) } : {}),
    };
  }

  get code(): QuoteErrorCode {
    return this.body.code as QuoteErrorCode;
  }
}

/**
 * Builders for the three error codes of the spec ("Errors / Shipping quote"), with
 * the message the spec shows for each. Return the most specific one.
 *
 * @example
 * ```ts
 * import { createQuoteHandler, quoteErrors } from '@feira/sdk';
 *
 * const handler = createQuoteHandler(async (request) => {
 *   if (request.zipcode.startsWith('00')) return quoteErrors.invalidZipcode();
 *   if (!(await coversRegion(request.zipcode))) return quoteErrors.deliveryNotAvailable(request);
 *   return quoteErrors.outOfStock([{ sku: request.items[0]!.sku, available_quantity: 0 }]);
 * });
 * ```
 */
export const quoteErrors = {
  /** `invalid_zipcode`: the postal code does not exist or is malformed. */
  invalidZipcode: (): QuoteErrorAnswer => new QuoteErrorAnswer('invalid_zipcode'),
  /**
   * `delivery_not_available`: the region is outside coverage. `items[]` is
   * required: pass your stock per SKU, or the request (each SKU is then reported
   * with the quantity asked, i.e. stock is not the reason).
   */
  deliveryNotAvailable: (stock: readonly QuoteStock[] | QuoteRequest): QuoteErrorAnswer =>
    new QuoteErrorAnswer('delivery_not_available', stockOf(stock)),
  /** `out_of_stock`: a SKU has no (or not enough) stock; `items[]` says how much is available. */
  outOfStock: (stock: readonly QuoteStock[]): QuoteErrorAnswer => new QuoteErrorAnswer('out_of_stock', stock),
};

function stockOf(stock: readonly QuoteStock[] | QuoteRequest): readonly QuoteStock[] {
  if (!('items' in stock)) return stock;
  return stock.items.map((item) => ({ sku: item.sku, available_quantity: item.quantity }));
}
