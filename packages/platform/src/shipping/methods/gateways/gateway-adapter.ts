import type { DeliveryOption, QuoteRequest, QuoteResponse } from '@feira/contract';
import type { GatewayBaseUrls } from '../../../core/config.js';
import type { QuoteProtocol } from '../../quote-caller.js';

/** Where a gateway quote ships from: the store's distribution centre with a zipcode (D59). */
export interface GatewayOrigin {
  zipcode: string;
  /** The centre's id, carried as every option's origin (spec-notes Q4). */
  centreId: string;
}

/**
 * One freight gateway's API (D57): where it is, how a quote is asked and how
 * its answer becomes a seller-API quote response. The `gateway` method calls
 * it with the seller API's deadline, validation, log and fallback.
 */
export interface GatewayAdapter {
  /** `melhor_envio`, `frenet`: the store's `gateway.kind` and the quote log's `gateway_kind`. */
  readonly kind: string;
  /** The brand, for descriptions and the console. */
  readonly label: string;
  /** Its base URL among the platform's settings. */
  readonly baseUrlSetting: keyof GatewayBaseUrls;
  /** The quote path under the base URL. */
  readonly path: string;
  /** The wire protocol for one store: its credential and origin, and the User-Agent the platform sends as. */
  protocol(credential: string, origin: GatewayOrigin, userAgent: string): QuoteProtocol;
}

/**
 * The User-Agent of a call to a gateway's own API: the application and the operator's technical contact,
 * the form Melhor Envio requires on every request (`Aplicação (email para contato técnico)`).
 */
export function gatewayUserAgent(contactEmail: string | undefined): string {
  return contactEmail ? `Feira (${contactEmail})` : 'Feira';
}

/** Metres (the platform's unit, spec-notes Q2) to centimetres with two decimals. */
export function centimetres(metres: number): number {
  return Math.round(metres * 10_000) / 100;
}

/** A money amount a gateway sends as text or number (`"23.45"`, `23.45`), rounded to cents; undefined when it is none. */
export function moneyOf(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? Math.round(number * 100) / 100 : undefined;
}

/** A whole number of days sent as text or number; undefined when it is none. */
export function daysOf(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(number) ? number : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a field, trimmed; undefined when it is not text. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * The options a gateway priced, as one package holding the whole cart (its
 * services each carry the cart), or why there are none: every service the
 * gateway marked as an error is left out (D58), and so is a malformed one (no
 * id, price or delivery time: D107), named in `skipped` so the quote log says
 * why it is missing while the others are offered.
 */
export function wholeCartResponse(
  request: QuoteRequest,
  options: DeliveryOption[],
  refused: string[],
  label: string,
  malformed: string[] = [],
): { response: QuoteResponse; skipped?: string } | { invalid: string } {
  if (options.length === 0) {
    const reasons = [...refused, ...malformed];
    const why = reasons.length > 0 ? `: ${reasons.slice(0, 10).join('; ')}` : '';
    return { invalid: `gateway.no-service: ${label} priced no service for this shipment${why}` };
  }
  return {
    response: {
      packages: [{ delivery_options: options, items: request.items.map((item) => ({ sku: item.sku, quantity: item.quantity })) }],
    },
    ...(malformed.length > 0
      ? { skipped: `gateway.service-skipped: ${label} services left out: ${malformed.slice(0, 10).join('; ')}` }
      : {}),
  };
}

/** A delivery option from a gateway service: its id within the 32 characters of the contract, the carrier in the name. */
export function gatewayOption(
  fields: { id: string; carrier: string | undefined; service: string; price: number; days: number },
  origin: GatewayOrigin,
): DeliveryOption {
  const name =
    fields.carrier && !fields.service.startsWith(fields.carrier) ? `${fields.carrier} ${fields.service}` : fields.service;
  return {
    id: fields.id.slice(0, 32),
    name,
    price: fields.price,
    delivery_days: fields.days,
    type: 'conventional',
    origin: { distribution_center: { id: origin.centreId } },
  };
}
