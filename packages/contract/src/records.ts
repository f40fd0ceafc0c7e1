import { type Static, Type } from '@sinclair/typebox';

/**
 * The four business records as the platform API returns them, and the
 * bodies the admin API accepts to write them. Every record has `id` (UUID),
 * `created_at` and `updated_at` (ISO 8601 UTC). Money is a decimal with 2
 * places in the API (integer cents at rest). Dotted filter names map to nested
 * objects (`customer.id`, `dimensions.weight`).
 */

export const ORDER_STATUSES = ['new', 'approved', 'invoiced', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const TICKET_STATUSES = ['open', 'answered', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TRANSACTION_TYPES = ['sale', 'refund', 'fee', 'payout'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** Spec "Limits": SKU length, 50 characters maximum. */
export const SKU_MAX_LENGTH = 50;

const literalUnion = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));
const timestamps = {
  id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'UUID' }),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  updated_at: Type.String({ description: 'ISO 8601 UTC' }),
};
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. BRL' });
const Money = (description: string) => Type.Number({ description: `${description}; decimal, 2 places` });
const Customer = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
});

export const ProductDimensions = Type.Object({
  depth: Type.Number({ exclusiveMinimum: 0, description: 'centimetres' }),
  height: Type.Number({ exclusiveMinimum: 0, description: 'centimetres' }),
  width: Type.Number({ exclusiveMinimum: 0, description: 'centimetres' }),
  weight: Type.Number({ exclusiveMinimum: 0, description: 'grams' }),
});

export const Product = Type.Object({
  ...timestamps,
  sku: Type.String({ maxLength: SKU_MAX_LENGTH, description: 'Unique per tenant' }),
  title: Type.String(),
  price: Money('Unit price'),
  stock: Type.Integer({ minimum: 0 }),
  dimensions: ProductDimensions,
});
export type Product = Static<typeof Product>;

export const OrderItem = Type.Object({
  sku: Type.String({ minLength: 1, maxLength: SKU_MAX_LENGTH }),
  quantity: Type.Integer({ minimum: 1 }),
  price: Money('Unit price'),
});
export type OrderItem = Static<typeof OrderItem>;

/**
 * The largest amount the platform accepts or stores, in currency units:
 * 10^11 (10^13 cents), so every amount and every total is an exact integer
 * number of cents in a double and in a 64-bit column (spec-notes R1).
 */
export const MAX_MONEY_AMOUNT = 1e11;

/**
 * The delivery option chosen at checkout (spec-notes Q6), as the seller's
 * quote endpoint returned it; `origin.distribution_center.id` is filterable.
 * Extra fields are kept as given.
 */
export const OrderShipping = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 32, description: 'Delivery option id' }),
    name: Type.Optional(Type.String()),
    type: Type.Optional(Type.String()),
    price: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_MONEY_AMOUNT,
        description: 'Shipping price; at most 2 decimal places; part of the order total',
      }),
    ),
    delivery_days: Type.Optional(Type.Integer({ minimum: 0 })),
    origin: Type.Optional(
      Type.Object({ distribution_center: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }) }),
    ),
  },
  { additionalProperties: true },
);
export type OrderShipping = Static<typeof OrderShipping>;

export const Order = Type.Object({
  ...timestamps,
  code: Type.String(),
  status: literalUnion(ORDER_STATUSES),
  customer: Customer,
  total_amount: Money('Order total'),
  currency: Currency,
  items: Type.Array(OrderItem),
  shipping: Type.Union([OrderShipping, Type.Null()]),
});
export type Order = Static<typeof Order>;

export const Ticket = Type.Object({
  ...timestamps,
  subject: Type.String(),
  status: literalUnion(TICKET_STATUSES),
  order_id: Type.Union([Type.String(), Type.Null()]),
  customer: Customer,
});
export type Ticket = Static<typeof Ticket>;

export const Transaction = Type.Object({
  ...timestamps,
  type: literalUnion(TRANSACTION_TYPES),
  amount: Money('Signed amount'),
  currency: Currency,
  order_id: Type.Union([Type.String(), Type.Null()]),
});
export type Transaction = Static<typeof Transaction>;

// ---------------------------------------------------------------------------
// Admin write bodies (POST creates, PATCH changes the fields given).

/** A price or a total: never negative (a negative price would flow into quotes and checkout). */
const MoneyInput = (description: string) =>
  Type.Number({ minimum: 0, maximum: MAX_MONEY_AMOUNT, description: `${description}; at most 2 decimal places` });
/** A signed amount (a refund or a fee is a negative transaction). */
const SignedMoneyInput = (description: string) =>
  Type.Number({
    minimum: -MAX_MONEY_AMOUNT,
    maximum: MAX_MONEY_AMOUNT,
    description: `${description}; at most 2 decimal places`,
  });
/** The largest quantity of one order line. */
export const MAX_ORDER_ITEM_QUANTITY = 1_000_000;
const OrderItemInput = Type.Object({
  sku: Type.String({ minLength: 1, maxLength: SKU_MAX_LENGTH }),
  quantity: Type.Integer({ minimum: 1, maximum: MAX_ORDER_ITEM_QUANTITY }),
  price: MoneyInput('Unit price'),
});

export const ProductInput = Type.Object(
  {
    sku: Type.String({ minLength: 1, maxLength: SKU_MAX_LENGTH }),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    price: MoneyInput('Unit price'),
    stock: Type.Integer({ minimum: 0, maximum: 1e9 }),
    dimensions: ProductDimensions,
  },
  { additionalProperties: false },
);
export type ProductInput = Static<typeof ProductInput>;
export const ProductPatch = Type.Partial(ProductInput, { additionalProperties: false, minProperties: 1 });
export type ProductPatch = Static<typeof ProductPatch>;

export const OrderInput = Type.Object(
  {
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Defaults to a generated code' })),
    status: Type.Optional(literalUnion(ORDER_STATUSES)),
    customer: Customer,
    total_amount: Type.Optional(MoneyInput('Defaults to the sum of the items (price × quantity) plus shipping.price')),
    currency: Type.Optional(Currency),
    items: Type.Array(OrderItemInput, { minItems: 1, maxItems: 500 }),
    shipping: Type.Optional(Type.Union([OrderShipping, Type.Null()])),
  },
  { additionalProperties: false },
);
export type OrderInput = Static<typeof OrderInput>;
export const OrderPatch = Type.Partial(
  Type.Object({
    status: literalUnion(ORDER_STATUSES),
    customer: Customer,
    total_amount: MoneyInput('Order total; when left out, a patch of items or shipping recomputes it as on create'),
    currency: Currency,
    items: Type.Array(OrderItemInput, { minItems: 1, maxItems: 500 }),
    shipping: Type.Union([OrderShipping, Type.Null()]),
  }),
  { additionalProperties: false, minProperties: 1 },
);
export type OrderPatch = Static<typeof OrderPatch>;

export const TicketInput = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 500 }),
    status: Type.Optional(literalUnion(TICKET_STATUSES)),
    order_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    customer: Customer,
  },
  { additionalProperties: false },
);
export type TicketInput = Static<typeof TicketInput>;
export const TicketPatch = Type.Partial(TicketInput, { additionalProperties: false, minProperties: 1 });
export type TicketPatch = Static<typeof TicketPatch>;

export const TransactionInput = Type.Object(
  {
    type: literalUnion(TRANSACTION_TYPES),
    amount: SignedMoneyInput('Signed amount'),
    currency: Type.Optional(Currency),
    order_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type TransactionInput = Static<typeof TransactionInput>;
export const TransactionPatch = Type.Partial(TransactionInput, { additionalProperties: false, minProperties: 1 });
export type TransactionPatch = Static<typeof TransactionPatch>;
