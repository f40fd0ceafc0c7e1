import {
  checkQuoteRequest,
  type DeliveryOption,
  pickShownOptions,
  type QuoteOutcome,
  type QuotePackage,
  type QuoteRequest,
  type ShownPackage,
} from '@feira/contract';
import type { CompiledQuery, InferResult } from 'kysely';
import { tenantExists } from '../accounts/index.js';
import { refuse, refuseField } from '../core/refusals.js';
import type { Database } from '../storage/database.js';
import type { MethodAnswer, QuoteMethod, SourcedOption } from './methods/index.js';
import type { QuoteCallResult } from './quote-caller.js';
import type { QuotePurpose } from './quote-log/quote-call-rows.js';
import { recordQuoteCall } from './quote-log/quote-log.js';
import { answerOf, isBackedUp, mergeAnswers } from './quote-methods.js';
import type { QuoteMetrics } from './quote-metrics.js';
import { buildQuoteRequest, type QuotableProduct } from './quote-request-builder.js';
import type { ShippingServices } from './shipping-services.js';
import { findShippingSettings, SHIPPING_SETTINGS_COLUMNS, type ShippingSettings, settingsFromRow } from './shipping-settings.js';

/**
 * Why the shopper sees no shipping: a call outcome other than `ok`, a store
 * without quote settings, or no freight-table row for the zipcode and package.
 */
type UnavailableCode = Exclude<QuoteOutcome, 'ok'> | 'not_configured' | 'no_freight_rate';

export interface UnavailableReason {
  code: UnavailableCode;
  message: string;
  /** Per-SKU stock the seller reported (out_of_stock, delivery_not_available); empty otherwise. */
  items: { sku: string | null; available_quantity: number | null }[];
}

/** What the shopper is told for outcomes the platform decides; the seller's own codes carry the seller's message. */
const PLATFORM_MESSAGES: Record<
  Exclude<UnavailableCode, 'invalid_zipcode' | 'delivery_not_available' | 'out_of_stock'>,
  string
> = {
  timeout: 'Shipping is unavailable: the seller did not answer in time',
  http_error: 'Shipping is unavailable: the seller could not be reached',
  invalid_response: 'Shipping is unavailable: the seller sent a quote that cannot be used',
  not_configured: 'Shipping is unavailable: this store has no shipping quote method',
  no_freight_rate: 'Shipping is unavailable: no freight rate covers this zipcode and package',
};

export interface CartLine {
  sku: string;
  quantity: number;
}

export interface CatalogueLine {
  product: QuotableProduct & { id: string; title: string };
  quantity: number;
}

export type CartQuote =
  | { available: true; sessionId: string; request: QuoteRequest; lines: CatalogueLine[]; packages: ShownPackage[] }
  | {
      available: false;
      sessionId: string | null;
      request: QuoteRequest | null;
      lines: CatalogueLine[];
      reason: UnavailableReason;
    };

/**
 * Looks the cart up in the tenant's catalogue. An SKU named twice or unknown
 * to the store → 422 naming `items.<i>.sku`. The tenant must exist (callers check).
 */
async function loadCart(platform: ShippingServices, tenantId: string, cart: CartLine[]): Promise<CatalogueLine[]> {
  cart.forEach((line, i) => {
    if (cart.findIndex((other) => other.sku === line.sku) !== i)
      throw refuseField('SHIPPING_VALUE_REPEATED', `items.${i}.sku`, 'body');
  });
  const products = await platform.database.db
    .selectFrom('products')
    .select(['id', 'sku', 'title', 'price_cents', 'depth_cm', 'height_cm', 'width_cm', 'weight_g'])
    .where('tenant_id', '=', tenantId)
    .where(
      'sku',
      'in',
      cart.map((line) => line.sku),
    )
    .execute();
  const bySku = new Map(products.map((p) => [p.sku, p]));
  return cart.map((line, i) => {
    const product = bySku.get(line.sku);
    if (!product) throw refuseField('SHIPPING_SKU_UNKNOWN', `items.${i}.sku`, 'body');
    return { product, quantity: line.quantity };
  });
}

/** The product columns a quote reads. */
const PRODUCT_COLUMNS = ['id', 'sku', 'title', 'price_cents', 'depth_cm', 'height_cm', 'width_cm', 'weight_g'] as const;

function buildQuotableCartQuery(database: Database, tenantId: string, skus: string[]) {
  return database.db
    .selectFrom('products')
    .innerJoin('shipping_settings', 'shipping_settings.tenant_id', 'products.tenant_id')
    .select(PRODUCT_COLUMNS.map((column) => `products.${column}` as const))
    .select(SHIPPING_SETTINGS_COLUMNS.map((column) => `shipping_settings.${column}` as const))
    .where('products.tenant_id', '=', tenantId)
    .where('products.sku', 'in', skus);
}

type QuotableCartRow = InferResult<ReturnType<typeof buildQuotableCartQuery>>[number];

/** Compiled forms of the query per database and cart size: building it with Kysely showed in the quote profile. */
const compiledQuotableCart = new WeakMap<Database, Map<number, CompiledQuery<QuotableCartRow>>>();

/**
 * The query for a cart of `size` SKUs, compiled once and given new parameters
 * each time. The first compile uses marker values and checks they come out
 * as the parameters, in order (tenant, then SKUs); if not, every call compiles.
 */
function quotableCartQuery(database: Database, size: number, tenantId: string, skus: string[]): CompiledQuery<QuotableCartRow> {
  let bySize = compiledQuotableCart.get(database);
  if (!bySize) {
    bySize = new Map();
    compiledQuotableCart.set(database, bySize);
  }
  const parameters = [tenantId, ...skus];
  const cached = bySize.get(size);
  if (cached) return { ...cached, parameters };
  const markers = Array.from({ length: size + 1 }, (_, i) => `\u0000quote-cart-${i}`);
  const compiled = buildQuotableCartQuery(database, markers[0] as string, markers.slice(1)).compile();
  const reusable = compiled.parameters.length === markers.length && compiled.parameters.every((p, i) => p === markers[i]);
  // Carts are bounded by the request schema; a few sizes in practice.
  if (reusable && bySize.size < 64) bySize.set(size, compiled);
  return reusable ? { ...compiled, parameters } : buildQuotableCartQuery(database, tenantId, skus).compile();
}

/**
 * The common case in one query: the store's quote settings joined to the
 * cart's products. Undefined when anything is unusual (no settings, an SKU
 * unknown or named twice): the long way then finds out which and says so.
 * Measured on the `quote` benchmark: one query instead of two per quote.
 */
async function loadQuotableCart(
  platform: ShippingServices,
  tenantId: string,
  cart: CartLine[],
): Promise<{ settings: ShippingSettings; lines: CatalogueLine[] } | undefined> {
  const skus = cart.map((line) => line.sku);
  const { rows } = await platform.database.db.executeQuery(quotableCartQuery(platform.database, skus.length, tenantId, skus));
  // Fewer rows than lines: an SKU unknown or named twice (SKUs are unique per tenant).
  const first = rows[0];
  if (!first || rows.length !== cart.length) return undefined;
  const bySku = new Map(rows.map((row) => [row.sku, row]));
  const lines: CatalogueLine[] = [];
  for (const line of cart) {
    const row = bySku.get(line.sku);
    if (!row) return undefined;
    const product = {
      id: row.id,
      sku: row.sku,
      title: row.title,
      price_cents: row.price_cents,
      depth_cm: row.depth_cm,
      height_cm: row.height_cm,
      width_cm: row.width_cm,
      weight_g: row.weight_g,
    };
    lines.push({ product, quantity: line.quantity });
  }
  return { settings: settingsFromRow(platform.quoteMethods, tenantId, first), lines };
}

/** The settings (if any) and the cart, with a 404 for an unknown tenant and a 422 naming a bad line. */
async function loadCartTheLongWay(
  platform: ShippingServices,
  input: { tenantId: string; items: CartLine[] },
): Promise<{ settings: ShippingSettings | undefined; lines: CatalogueLine[] }> {
  // Settings exist only for an existing tenant (foreign key), so the tenant is
  // looked up separately only when there are none.
  const settings = await findShippingSettings(platform.database, input.tenantId, platform.quoteMethods);
  if (!settings) {
    if (!(await tenantExists(platform.database.db, input.tenantId))) throw refuse('SHIPPING_TENANT_NOT_FOUND');
  }
  return { settings, lines: await loadCart(platform, input.tenantId, input.items) };
}

/**
 * One quote of a purchase (spec-notes Q6): builds the request from the
 * catalogue, calls the seller once, logs the call (Q7) and picks the options
 * shown (Q5). Shipping being unavailable is a normal result, not an error.
 */
export async function quoteCart(
  platform: ShippingServices,
  metrics: QuoteMetrics,
  input: { tenantId: string; zipcode: string; items: CartLine[]; purpose: QuotePurpose },
): Promise<CartQuote> {
  return (await tracedCartQuote(platform, metrics, input)).quote;
}

/** A quote with how it was reached: each method's answer, the backup rates asked, the options merged before Q5. */
export interface TracedCartQuote {
  quote: CartQuote;
  /** The store's methods' answers, in the store's order (empty when the store has no settings). */
  answers: MethodAnswer[];
  /** The freight tables' answer when backup rates were asked (spec-notes Q8). */
  fallback: MethodAnswer | undefined;
  /** The packages after merging, before Q5 picked two options (undefined: nobody gave options). */
  merged: QuotePackage[] | undefined;
}

/**
 * `quoteCart` with its working shown (the quote preview, D61): the same code
 * path, so what the preview shows is what the storefront would.
 */
export async function tracedCartQuote(
  platform: ShippingServices,
  metrics: QuoteMetrics,
  input: { tenantId: string; zipcode: string; items: CartLine[]; purpose: QuotePurpose },
): Promise<TracedCartQuote> {
  const found = (await loadQuotableCart(platform, input.tenantId, input.items)) ?? (await loadCartTheLongWay(platform, input));
  if (!found.settings) {
    const quote: CartQuote = {
      available: false,
      sessionId: null,
      request: null,
      lines: found.lines,
      reason: unavailable('not_configured'),
    };
    return { quote, answers: [], fallback: undefined, merged: undefined };
  }
  const { settings, lines } = found;
  const sessionId = platform.random.uuid();
  const request = buildQuoteRequest({ sessionId, zipcode: input.zipcode, lines });
  // The catalogue is validated when written; this guards against a product that
  // still cannot be quoted (a zero price or size) so we never send a bad request.
  const problems = checkQuoteRequest(request);
  const first = problems[0];
  if (first) {
    const index = /^items\[(\d+)\]/.exec(first.path)?.[1] ?? '0';
    throw refuseField('SHIPPING_ITEM_NOT_QUOTABLE', `items.${index}.sku`, 'body', { problem: first.message });
  }

  const answers = await Promise.all(
    settings.methods.map((method) => answerOf(platform, method, { tenantId: input.tenantId, settings, request, lines })),
  );
  // spec-notes Q8, backup rates: a failed call of a method that may be backed up, never a business error.
  const businessError = answers.find((answer) => answer.kind === 'business_error');
  const backedUp = (answer: MethodAnswer) => isBackedUp(platform.quoteMethods, answer);
  let fallback: MethodAnswer | undefined;
  if (settings.fallback && !businessError && answers.some(backedUp)) {
    fallback = await answerOf(platform, settings.fallback, { tenantId: input.tenantId, settings, request, lines });
  }
  const fallbackUsed = fallback?.kind === 'options';
  const logDeps = { quoteLog: platform.quoteLog, clock: platform.clock, random: platform.random, metrics };
  for (const answer of answers) {
    const result = callResultOf(answer);
    if (!result) continue;
    recordQuoteCall(logDeps, {
      tenantId: input.tenantId,
      sessionId,
      purpose: input.purpose,
      result,
      fallbackUsed: fallbackUsed && backedUp(answer),
    });
  }

  const traced = (quote: CartQuote, merged?: QuotePackage[]): TracedCartQuote => ({ quote, answers, fallback, merged });
  if (businessError?.kind === 'business_error') {
    const { error } = businessError;
    return traced({
      available: false,
      sessionId,
      request,
      lines,
      reason: { code: error.code, message: error.message, items: error.items },
    });
  }
  const merged = mergeAnswers(fallback ? [...answers, fallback] : answers);
  if (merged)
    return traced({ available: true, sessionId, request, lines, packages: pickShownOptions({ packages: merged }) }, merged);
  const failed = answers.find((answer) => answer.kind === 'call_failed');
  const reason =
    failed?.kind === 'call_failed'
      ? unavailable(failed.call.outcome as Exclude<UnavailableCode, 'not_configured'>)
      : unavailable('no_freight_rate');
  return traced({ available: false, sessionId, request, lines, reason });
}

/** The logged call behind an answer (methods that call an endpoint), if any. */
function callResultOf(answer: MethodAnswer): QuoteCallResult | undefined {
  if (answer.kind === 'call_failed' || answer.kind === 'business_error') return answer.call;
  return answer.kind === 'options' ? answer.call : undefined;
}

function unavailable(code: UnavailableCode): UnavailableReason {
  const message =
    code in PLATFORM_MESSAGES ? PLATFORM_MESSAGES[code as keyof typeof PLATFORM_MESSAGES] : 'Shipping is unavailable';
  return { code, message, items: [] };
}

/** The method that priced an option (spec-notes Q8); options carry it from their method's module (methods/). */
export function sourceOf(option: DeliveryOption): QuoteMethod {
  return (option as Partial<SourcedOption>).source ?? 'seller_api';
}

/** An option as the storefront shows it: the seller's fields plus which of the two it is. */
function presentOption(option: DeliveryOption, shown: ShownPackage) {
  const labels: ('fastest' | 'cheapest')[] = [];
  if (option === shown.fastest) labels.push('fastest');
  if (option === shown.cheapest) labels.push('cheapest');
  return {
    id: option.id,
    name: option.name,
    price: option.price,
    delivery_days: option.delivery_days,
    type: option.type,
    origin: option.origin ? { distribution_center: { id: option.origin.distribution_center.id } } : null,
    source: sourceOf(option),
    labels,
  };
}

export function presentCartQuote(quote: CartQuote) {
  return {
    session_id: quote.sessionId,
    available: quote.available,
    packages: quote.available
      ? quote.packages.map((pkg) => ({
          items: pkg.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
          options: pkg.options.map((option) => presentOption(option, pkg)),
        }))
      : [],
    reason: quote.available ? null : quote.reason,
  };
}
