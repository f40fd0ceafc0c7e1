import type { DeliveryOption, QuotePackage } from '@feira/contract';
import { type TSchema, Type } from '@sinclair/typebox';
import { type CartLine, presentCartQuote, type TracedCartQuote, tracedCartQuote } from './cart-quote.js';
import type { MethodAnswer } from './methods/index.js';
import { quoteMetrics } from './quote-metrics.js';
import type { ShippingServices } from './shipping-services.js';

/** Why a method's option is not among the merged ones (spec-notes Q8). */
type LeftOutReason = 'duplicate_id' | 'package_split';

function itemsKey(items: QuotePackage['items']): string {
  return items
    .map((item) => `${item.sku}\u0000${item.quantity}`)
    .sort()
    .join('\u0001');
}

function presentRawOption(option: DeliveryOption) {
  return {
    id: option.id,
    name: option.name,
    price: option.price,
    delivery_days: option.delivery_days,
    type: option.type,
    origin: option.origin ? { distribution_center: { id: option.origin.distribution_center.id } } : null,
  };
}

/** One method's answer as the preview shows it: the call, its raw options, and which of them were merged. */
function presentAnswer(answer: MethodAnswer, merged: readonly QuotePackage[] | undefined) {
  const call = answer.kind === 'no_rate' ? undefined : answer.call;
  const mergedKeys = new Set((merged ?? []).map((pkg) => itemsKey(pkg.items)));
  const packages =
    answer.kind === 'options'
      ? answer.packages.map((pkg) => ({
          items: pkg.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
          options: pkg.delivery_options.map((option) => {
            // mergeAnswers keeps the option objects it takes, so "merged" is identity.
            const taken = (merged ?? []).some((target) => target.delivery_options.includes(option));
            const leftOut: LeftOutReason | null = taken
              ? null
              : mergedKeys.has(itemsKey(pkg.items))
                ? 'duplicate_id'
                : 'package_split';
            return { ...presentRawOption(option), merged: taken, left_out_because: leftOut };
          }),
        }))
      : [];
  return {
    method: answer.method,
    result: answer.kind,
    gateway_kind: call?.gatewayKind ?? null,
    call: call ? { outcome: call.outcome, latency_ms: call.latencyMs, http_status: call.httpStatus, detail: call.detail } : null,
    packages,
  };
}

/**
 * The quote preview (D61): what a shopper would see for this zipcode and
 * cart (`shown`, exactly the storefront quote's answer), each method's raw
 * options, which were merged (and why others were not), the backup rates if
 * they were asked, and why the two shown are those two (spec-notes Q5).
 */
function presentQuotePreview(traced: TracedCartQuote) {
  const { quote, answers, fallback, merged } = traced;
  const shown = presentCartQuote(quote);
  return {
    session_id: quote.sessionId,
    zipcode: quote.request?.zipcode ?? null,
    methods: answers.map((answer) => presentAnswer(answer, merged)),
    fallback: fallback ? { used: fallback.kind === 'options', ...presentAnswer(fallback, merged) } : null,
    merged: (merged ?? []).map((pkg) => ({
      items: pkg.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
      options: pkg.delivery_options.map((option) => ({
        ...presentRawOption(option),
        source: (option as DeliveryOption & { source?: string }).source ?? 'seller_api',
      })),
    })),
    shown,
    choice: quote.available
      ? quote.packages.map((pkg) => ({
          fastest: pkg.fastest.id,
          cheapest: pkg.cheapest.id,
          same_option: pkg.fastest === pkg.cheapest,
          rule: 'spec-notes Q5: the fastest is the fewest delivery_days (ties: the lower price); the cheapest is the lowest price (ties: the fewer days); one option when they are the same',
        }))
      : [],
  };
}

export type QuotePreview = ReturnType<typeof presentQuotePreview>;

/**
 * Previews a store's quote (D61): the storefront's own path (calls, deadline,
 * validation, backup rates, Q5), its calls logged with purpose `preview`.
 * An unknown store is a 404 and a bad cart line a 422, as on the storefront.
 */
export async function previewStoreQuote(
  services: ShippingServices,
  input: { tenantId: string; zipcode: string; items: CartLine[] },
): Promise<QuotePreview> {
  const traced = await tracedCartQuote(services, quoteMetrics(services.metrics), { ...input, purpose: 'preview' });
  return presentQuotePreview(traced);
}

const RawOption = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: Type.Number(),
  delivery_days: Type.Integer(),
  type: Type.String(),
  origin: Type.Union([Type.Object({ distribution_center: Type.Object({ id: Type.String() }) }), Type.Null()]),
});

const PackageItems = Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() }));

const MethodAnswerBody = Type.Object({
  method: Type.String({ description: 'The quote method (spec-notes Q8)' }),
  result: Type.Union(
    [Type.Literal('options'), Type.Literal('no_rate'), Type.Literal('call_failed'), Type.Literal('business_error')],
    {
      description:
        'options; no_rate (no freight-table row); call_failed (timeout, http_error, invalid_response); business_error (the seller said so)',
    },
  ),
  gateway_kind: Type.Union([Type.String(), Type.Null()], { description: 'For the gateway method: its kind (D57)' }),
  call: Type.Union([
    Type.Object({
      outcome: Type.String(),
      latency_ms: Type.Number(),
      http_status: Type.Union([Type.Integer(), Type.Null()]),
      detail: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  packages: Type.Array(
    Type.Object({
      items: PackageItems,
      options: Type.Array(
        Type.Composite([
          RawOption,
          Type.Object({
            merged: Type.Boolean({ description: 'Among the options Q5 chose from' }),
            left_out_because: Type.Union([Type.Literal('duplicate_id'), Type.Literal('package_split'), Type.Null()], {
              description:
                'duplicate_id: an earlier method offered the same id; package_split: this method split the cart otherwise than the first one that answered',
            }),
          }),
        ]),
      ),
    }),
  ),
});

/** The preview's answer schema, given to both routes (OpenAPI documents it). */
export function quotePreviewResult(shownSchema: TSchema) {
  return Type.Object(
    {
      session_id: Type.Union([Type.String(), Type.Null()]),
      zipcode: Type.Union([Type.String(), Type.Null()]),
      methods: Type.Array(MethodAnswerBody, { description: "Each of the store's methods, in the store's order, as it answered" }),
      fallback: Type.Union([Type.Composite([Type.Object({ used: Type.Boolean() }), MethodAnswerBody]), Type.Null()], {
        description: 'The backup rates (spec-notes Q8), when a failed call asked for them',
      }),
      merged: Type.Array(
        Type.Object({
          items: PackageItems,
          options: Type.Array(Type.Composite([RawOption, Type.Object({ source: Type.String() })])),
        }),
        { description: 'The packages after merging every method, before Q5 chose' },
      ),
      shown: shownSchema,
      choice: Type.Array(
        Type.Object({
          fastest: Type.String(),
          cheapest: Type.String(),
          same_option: Type.Boolean(),
          rule: Type.String(),
        }),
        { description: 'Per package: the ids Q5 chose and the rule it applied' },
      ),
    },
    { description: 'The quote preview: each method raw, merged, shown (the storefront quote for the same zipcode and cart)' },
  );
}
