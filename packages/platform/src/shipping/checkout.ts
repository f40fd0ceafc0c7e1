import { type DeliveryOption, type ShownPackage, toCents } from '@feira/contract';
import type { PlatformContext } from '../app.js';
import { appendEvent } from '../records/outbox.js';
import { type CartQuote, type CatalogueLine, presentCartQuote, quoteCart, type UnavailableReason } from './cart-quote.js';
import type { QuoteMetrics } from './quote-metrics.js';
import type { CheckoutBody } from './storefront-schemas.js';

/** The order's `shipping` JSON: the chosen option with its origin, plus the quote it came from. */
export interface CheckoutShipping {
  id: string;
  name: string;
  type: string;
  /** Total shipping price over every package. */
  price: number;
  /** The slowest package decides when the order is complete. */
  delivery_days: number;
  /** The first package's origin (spec rule 5: the platform records the origin when the order is integrated). */
  origin: { distribution_center: { id: string } } | null;
  quote_session_id: string;
  zipcode: string;
  /** Every package with the option chosen for it and that option's origin. */
  packages: { items: { sku: string; quantity: number }[]; option: DeliveryOption }[];
}

export interface CheckoutOrder {
  id: string;
  code: string;
  status: string;
  customer: { id: string; name: string };
  total_amount: number;
  currency: string;
  items: { sku: string; quantity: number; price: number }[];
  shipping: CheckoutShipping;
  created_at: string;
  updated_at: string;
}

export type CheckoutResult =
  | { ok: true; order: CheckoutOrder }
  | { ok: false; kind: 'unavailable'; reason: UnavailableReason; sessionId: string | null }
  | { ok: false; kind: 'choice'; quote: ReturnType<typeof presentCartQuote> };

/** The option `choice` names in one package: `fastest`, `cheapest`, or a shown option's id. */
function chosenOption(pkg: ShownPackage, choice: string): DeliveryOption | undefined {
  if (choice === 'fastest') return pkg.fastest;
  if (choice === 'cheapest') return pkg.cheapest;
  return pkg.options.find((option) => option.id === choice);
}

/** The read path of an order: its webhook `data.resource` (SPEC-DECISIONS W7; records issue). */
const orderPath = (id: string) => `/v1/orders/${id}`;

/**
 * The checkout of SPEC-DECISIONS Q6: the automatic second quote of the
 * purchase, then, when shipping is available and the choice is among the
 * options shown, the order (items, total, chosen option with its origin) and
 * its `order` CREATION event in one transaction (SPEC-DECISIONS W6).
 */
export async function checkout(platform: PlatformContext, metrics: QuoteMetrics, input: CheckoutBody): Promise<CheckoutResult> {
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
    price: shippingCents / 100,
    delivery_days: Math.max(...options.map((option) => option.delivery_days)),
    origin: first.origin ? { distribution_center: { id: first.origin.distribution_center.id } } : null,
    quote_session_id: quote.sessionId,
    zipcode: input.zipcode,
    packages: quote.packages.map((pkg, i) => ({ items: pkg.items, option: options[i] as DeliveryOption })),
  };
  const order = await insertCheckoutOrder(platform, input, quote.lines, shipping, shippingCents);
  return { ok: true, order };
}

/**
 * Inserts the order row and its outbox event in one transaction. Items are
 * stored as the records capability stores them (`price_cents`), so the order
 * reads back through `GET /v1/orders/{id}` like any other.
 */
async function insertCheckoutOrder(
  platform: PlatformContext,
  input: CheckoutBody,
  lines: CatalogueLine[],
  shipping: CheckoutShipping,
  shippingCents: number,
): Promise<CheckoutOrder> {
  const { clock, random } = platform;
  const now = clock.now().toISOString();
  const id = random.uuid();
  const customer = input.customer ?? { id: `guest-${random.uuid()}`, name: 'Guest shopper' };
  const items = lines.map((line) => ({ sku: line.product.sku, quantity: line.quantity, price_cents: line.product.price_cents }));
  const itemsCents = items.reduce((sum, item) => sum + item.price_cents * item.quantity, 0);
  const order: CheckoutOrder = {
    id,
    code: `FE-${random.bytes(5).toString('hex').toUpperCase()}`,
    status: 'new',
    customer,
    total_amount: (itemsCents + shippingCents) / 100,
    currency: 'BRL',
    items: items.map((item) => ({ sku: item.sku, quantity: item.quantity, price: item.price_cents / 100 })),
    shipping,
    created_at: now,
    updated_at: now,
  };
  await platform.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        id,
        tenant_id: input.tenant_id,
        code: order.code,
        status: order.status,
        customer_id: customer.id,
        customer_name: customer.name,
        total_amount_cents: itemsCents + shippingCents,
        currency: order.currency,
        items: JSON.stringify(items),
        shipping: JSON.stringify(shipping),
        shipping_distribution_center_id: shipping.origin?.distribution_center.id ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await appendEvent(
      trx,
      { tenantId: input.tenant_id, topic: 'order', status: 'CREATION', recordId: id, resource: orderPath(id) },
      platform,
    );
  });
  return order;
}
