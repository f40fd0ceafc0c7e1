import { type DeliveryOption, type Order, type ShownPackage, toCents } from '@feira/contract';
import { insertOrder, sumOfLinesCents } from '../records/index.js';
import {
  type CartQuote,
  type CatalogueLine,
  presentCartQuote,
  quoteCart,
  sourceOf,
  type UnavailableReason,
} from './cart-quote.js';
import type { QuoteMetrics } from './quote-metrics.js';
import type { ShippingServices } from './shipping-services.js';
import type { QuoteMethod } from './shipping-settings.js';
import type { CheckoutBody } from './storefront-schemas.js';

/** The order's `shipping` JSON: the chosen option with its origin, plus the quote it came from. */
interface CheckoutShipping {
  id: string;
  name: string;
  type: string;
  /** The method that priced the first package's option (spec-notes Q8); each package's option carries its own. */
  source: QuoteMethod;
  /** Total shipping price over every package. */
  price: number;
  /** The slowest package decides when the order is complete. */
  delivery_days: number;
  /** The first package's origin (spec rule 5: the platform records the origin when the order is integrated). */
  origin?: { distribution_center: { id: string } };
  quote_session_id: string;
  zipcode: string;
  /** Every package with the option chosen for it and that option's origin. */
  packages: { items: { sku: string; quantity: number }[]; option: DeliveryOption }[];
}

export type CheckoutResult =
  | { ok: true; order: Order }
  | { ok: false; kind: 'unavailable'; reason: UnavailableReason; sessionId: string | null }
  | { ok: false; kind: 'choice'; quote: ReturnType<typeof presentCartQuote> };

/** The option `choice` names in one package: `fastest`, `cheapest`, or a shown option's id. */
function chosenOption(pkg: ShownPackage, choice: string): DeliveryOption | undefined {
  if (choice === 'fastest') return pkg.fastest;
  if (choice === 'cheapest') return pkg.cheapest;
  return pkg.options.find((option) => option.id === choice);
}

/**
 * The checkout of spec-notes Q6: the automatic second quote of the
 * purchase, then, when shipping is available and the choice is among the
 * options shown, the order (items, total, chosen option with its origin) and
 * its `order` CREATION event in one transaction (spec-notes W6).
 */
export async function checkout(platform: ShippingServices, metrics: QuoteMetrics, input: CheckoutBody): Promise<CheckoutResult> {
  const quote: CartQuote = await quoteCart(platform, metrics, {
    tenantId: input.tenant_id,
    zipcode: input.zipcode,
    items: input.items,
    purpose: 'checkout',
  });
  if (!quote.available) return { ok: false, kind: 'unavailable', reason: quote.reason, sessionId: quote.sessionId };

  const chosen = quote.packages.map((pkg) => chosenOption(pkg, input.choice));
  if (chosen.some((option) => option === undefined)) return { ok: false, kind: 'choice', quote: presentCartQuote(quote) };
  const options = chosen as DeliveryOption[];
  const first = options[0] as DeliveryOption;
  const shippingCents = options.reduce((sum, option) => sum + toCents(option.price), 0);
  const shipping: CheckoutShipping = {
    id: first.id,
    name: first.name,
    type: first.type,
    source: sourceOf(first),
    price: shippingCents / 100,
    delivery_days: Math.max(...options.map((option) => option.delivery_days)),
    ...(first.origin && { origin: { distribution_center: { id: first.origin.distribution_center.id } } }),
    quote_session_id: quote.sessionId,
    zipcode: input.zipcode,
    packages: quote.packages.map((pkg, i) => ({ items: pkg.items, option: options[i] as DeliveryOption })),
  };
  const order = await insertCheckoutOrder(platform, input, quote.lines, shipping, shippingCents);
  return { ok: true, order };
}

/**
 * Creates the order and its `order` CREATION event in one transaction through
 * the records capability (`insertOrder`), so the order reads back through
 * `GET /v1/orders/{id}` like any other and its webhook goes out (Q6, W6).
 */
async function insertCheckoutOrder(
  platform: ShippingServices,
  input: CheckoutBody,
  lines: CatalogueLine[],
  shipping: CheckoutShipping,
  shippingCents: number,
): Promise<Order> {
  // spec-notes R1: the one checked sum (records/money.ts); an overflow names the cart line the shopper sent.
  const totalCents = sumOfLinesCents(
    lines.map((line) => ({ priceCents: line.product.price_cents, quantity: line.quantity })),
    (i) => `items.${i}.quantity`,
    shippingCents,
  );
  return insertOrder(
    platform.database.db,
    input.tenant_id,
    {
      customer: input.customer ?? { id: `guest-${platform.random.uuid()}`, name: 'Guest shopper' },
      total_amount: totalCents / 100,
      currency: 'BRL',
      items: lines.map((line) => ({ sku: line.product.sku, quantity: line.quantity, price: line.product.price_cents / 100 })),
      shipping,
    },
    platform,
  );
}
