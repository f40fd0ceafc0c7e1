import { QUOTE_MAX_OPTION_ID_LENGTH, QUOTE_MAX_SKU_LENGTH, ZIPCODE_PATTERN } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';
import { eitherOf } from './methods/index.js';

// The shopper-facing endpoints of the shipping capability (spec-notes Q6):
// the product-page quote and the checkout that re-quotes and creates the order.

const CartItem = Type.Object(
  {
    sku: Type.String({ minLength: 1, maxLength: QUOTE_MAX_SKU_LENGTH }),
    quantity: Type.Integer({ minimum: 1, maximum: 100_000 }),
  },
  { additionalProperties: false },
);

const cartFields = {
  tenant_id: Type.String({ minLength: 1, maxLength: 64, description: 'The store (tenant) being bought from' }),
  zipcode: Type.String({ pattern: ZIPCODE_PATTERN, description: 'Destination postal code: exactly 8 digits' }),
  items: Type.Array(CartItem, { minItems: 1, maxItems: 100 }),
};

export const StorefrontQuoteBody = Type.Object(cartFields, { additionalProperties: false });

/** The quote preview's body (D61): the storefront quote's zipcode and cart; the store is in the path. */
export const PreviewBody = Type.Object({ zipcode: cartFields.zipcode, items: cartFields.items }, { additionalProperties: false });
export type StorefrontQuoteBody = Static<typeof StorefrontQuoteBody>;

export const CheckoutBody = Type.Object(
  {
    ...cartFields,
    choice: Type.String({
      minLength: 1,
      maxLength: QUOTE_MAX_OPTION_ID_LENGTH,
      description: '`fastest`, `cheapest`, or the id of an option shown in every package',
    }),
    customer: Type.Optional(
      Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 64 }), name: Type.String({ minLength: 1, maxLength: 200 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CheckoutBody = Static<typeof CheckoutBody>;

/** An option as the storefront shows it; `source` names one of `methods` (the app's quote methods). */
function shownOption(methods: readonly string[]) {
  return Type.Object({
    id: Type.String(),
    name: Type.String(),
    price: Type.Number(),
    delivery_days: Type.Integer(),
    type: Type.String(),
    origin: Type.Union([Type.Object({ distribution_center: Type.Object({ id: Type.String() }) }), Type.Null()]),
    source: Type.String({ description: `The method that priced the option: ${eitherOf(methods)} (spec-notes Q8)` }),
    labels: Type.Array(Type.Union([Type.Literal('fastest'), Type.Literal('cheapest')])),
  });
}

const UnavailableReasonBody = Type.Object({
  code: Type.String({
    description:
      'timeout, http_error, invalid_response, not_configured, no_freight_rate, or the seller code (invalid_zipcode, delivery_not_available, out_of_stock)',
  }),
  message: Type.String(),
  items: Type.Array(
    Type.Object({ sku: Type.Union([Type.String(), Type.Null()]), available_quantity: Type.Union([Type.Integer(), Type.Null()]) }),
  ),
});

/** The product-page quote's answer, for an app whose quote methods are `methods`. */
export function storefrontQuoteResult(methods: readonly string[]) {
  return Type.Object({
    session_id: Type.Union([Type.String(), Type.Null()]),
    available: Type.Boolean(),
    packages: Type.Array(
      Type.Object({
        items: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() })),
        options: Type.Array(shownOption(methods), { maxItems: 2 }),
      }),
    ),
    reason: Type.Union([UnavailableReasonBody, Type.Null()]),
  });
}
