import type { QuoteRequest, QuoteRequestItem } from '@feira/contract';

/** The catalogue columns a quote needs (records/record-tables.ts: cents, centimetres, grams). */
export interface QuotableProduct {
  sku: string;
  price_cents: number;
  depth_cm: number;
  height_cm: number;
  width_cm: number;
  weight_g: number;
}

/**
 * Converts to the request's units in integer micro-units first, so 12.3 cm is
 * sent as 0.123 m and not 0.12300000000000001. A positive size never rounds to
 * 0 (the spec wants every dimension > 0).
 */
function scaled(value: number, divisor: number): number {
  const micro = Math.round((value / divisor) * 1e6);
  return Math.max(micro, value > 0 ? 1 : 0) / 1e6;
}

/**
 * Builds the shipping quote request from the catalogue (spec "Shipping quote
 * request"; spec-notes Q2): unit price in reais rounded to 2 decimals,
 * currency BRL, dimensions in metres (cm ÷ 100) and kilograms (g ÷ 1000).
 */
export function buildQuoteRequest(input: {
  sessionId: string;
  zipcode: string;
  lines: { product: QuotableProduct; quantity: number }[];
}): QuoteRequest {
  const items: QuoteRequestItem[] = input.lines.map(({ product, quantity }) => ({
    sku: product.sku,
    quantity,
    price: Math.round(product.price_cents) / 100,
    currency: 'BRL',
    dimensions: {
      depth: scaled(product.depth_cm, 100),
      height: scaled(product.height_cm, 100),
      width: scaled(product.width_cm, 100),
      weight: scaled(product.weight_g, 1000),
    },
  }));
  return { session_id: input.sessionId, zipcode: input.zipcode, items };
}
