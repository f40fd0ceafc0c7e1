// The shared quote rule set of @feira/contract (used by the platform, the SDK's
// quote handler and `feira quote-check`), checked rule by rule.
import {
  checkQuoteErrorBody,
  checkQuoteRequest,
  checkQuoteResponse,
  type DeliveryOption,
  pickShownOptions,
  type QuoteRequest,
  type QuoteResponse,
} from '@feira/contract';
import { describe, expect, it } from 'vitest';

const request: QuoteRequest = {
  session_id: '6f1c2a9e-3b4d-4c5e-8f70-112233445566',
  zipcode: '01310100',
  items: [
    { sku: 'SKU-A', quantity: 2, price: 10.5, currency: 'BRL', dimensions: { depth: 0.1, height: 0.2, width: 0.3, weight: 0.5 } },
    {
      sku: 'SKU-B',
      quantity: 1,
      price: 99.9,
      currency: 'BRL',
      dimensions: { depth: 0.4, height: 0.1, width: 0.2, weight: 1.25 },
    },
  ],
};

const option = (overrides: Partial<DeliveryOption> = {}): DeliveryOption => ({
  id: 'express',
  name: 'Express',
  price: 25.9,
  delivery_days: 2,
  type: 'conventional',
  ...overrides,
});

const answer = (
  options: DeliveryOption[],
  items = [
    { sku: 'SKU-A', quantity: 2 },
    { sku: 'SKU-B', quantity: 1 },
  ],
): QuoteResponse => ({
  packages: [{ delivery_options: options, items }],
});

const single = { distributionCenterIds: ['CD-SP'] };
const multi = { distributionCenterIds: ['CD-SP', 'CD-RJ'] };
const rules = (v: { rule: string }[]) => v.map((x) => x.rule);

describe('checkQuoteRequest (spec "Shipping quote request")', () => {
  it('accepts a request that follows the spec table', () => {
    expect(checkQuoteRequest(request)).toEqual([]);
  });

  it.each([
    ['session_id is not a UUID v4', { ...request, session_id: '6f1c2a9e-3b4d-1c5e-8f70-112233445566' }, 'request.session-id'],
    ['zipcode has 7 digits', { ...request, zipcode: '0131010' }, 'request.zipcode'],
    ['zipcode has a dash', { ...request, zipcode: '01310-10' }, 'request.zipcode'],
    ['no items', { ...request, items: [] }, 'request.schema'],
    ['a 51-character SKU', { ...request, items: [{ ...request.items[0]!, sku: 'x'.repeat(51) }] }, 'request.sku-length'],
    ['quantity 0', { ...request, items: [{ ...request.items[0]!, quantity: 0 }] }, 'request.quantity'],
    ['price with 3 decimals', { ...request, items: [{ ...request.items[0]!, price: 10.555 }] }, 'request.price-decimals'],
    ['price 0', { ...request, items: [{ ...request.items[0]!, price: 0 }] }, 'request.price-positive'],
    ['currency USD', { ...request, items: [{ ...request.items[0]!, currency: 'USD' }] }, 'request.currency'],
    [
      'weight 0',
      { ...request, items: [{ ...request.items[0]!, dimensions: { depth: 0.1, height: 0.1, width: 0.1, weight: 0 } }] },
      'request.dimensions',
    ],
  ])('spec "Shipping quote request": refuses a request where %s', (_name, bad, rule) => {
    expect(rules(checkQuoteRequest(bad))).toContain(rule);
  });
});

describe('checkQuoteResponse (spec "Shipping quote response", spec-notes Q4)', () => {
  it('accepts a conforming answer, with items split across packages', () => {
    const split: QuoteResponse = {
      packages: [
        { delivery_options: [option()], items: [{ sku: 'SKU-A', quantity: 1 }] },
        {
          delivery_options: [option()],
          items: [
            { sku: 'SKU-A', quantity: 1 },
            { sku: 'SKU-B', quantity: 1 },
          ],
        },
      ],
    };
    expect(checkQuoteResponse(request, split, single)).toEqual([]);
  });

  it.each([
    ['packages missing', {}, 'response.schema'],
    ['no packages', { packages: [] }, 'response.schema'],
    ['no delivery options', answer([]), 'response.schema'],
    ['price as a string', answer([option({ price: '10.00' as unknown as number })]), 'response.schema'],
    ['a 33-character option id', answer([option({ id: 'x'.repeat(33) })]), 'response.option-id-length'],
    ['price 0', answer([option({ price: 0 })]), 'response.price-positive'],
    ['price -1', answer([option({ price: -1 })]), 'response.price-positive'],
    ['price with 3 decimals', answer([option({ price: 10.999 })]), 'response.price-decimals'],
    ['delivery_days 0', answer([option({ delivery_days: 0 })]), 'response.delivery-days'],
    ['delivery_days 1.5', answer([option({ delivery_days: 1.5 })]), 'response.delivery-days'],
    ['the same option id twice', answer([option(), option({ price: 30 })]), 'response.option-id-unique'],
    ['a missing SKU', answer([option()], [{ sku: 'SKU-A', quantity: 2 }]), 'response.items-match-request'],
    [
      'a different quantity',
      answer(
        [option()],
        [
          { sku: 'SKU-A', quantity: 1 },
          { sku: 'SKU-B', quantity: 1 },
        ],
      ),
      'response.items-match-request',
    ],
    [
      'an extra SKU',
      answer(
        [option()],
        [
          { sku: 'SKU-A', quantity: 2 },
          { sku: 'SKU-B', quantity: 1 },
          { sku: 'SKU-C', quantity: 1 },
        ],
      ),
      'response.items-match-request',
    ],
    [
      'a 33-character centre id',
      answer([option({ origin: { distribution_center: { id: 'x'.repeat(33) } } })]),
      'response.centre-id-length',
    ],
    ['an unknown centre id', answer([option({ origin: { distribution_center: { id: 'CD-XX' } } })]), 'response.centre-id-known'],
    [
      'an option without its required type (spec "Shipping quote response")',
      answer([{ id: 'x', name: 'X', price: 10, delivery_days: 2 } as DeliveryOption]),
      'response.schema',
    ],
  ])('spec-notes Q4: an answer with %s is invalid', (_name, bad, rule) => {
    expect(rules(checkQuoteResponse(request, bad, single))).toContain(rule);
  });

  it('Versioning v2.0 / spec-notes Q4: a multi-centre seller must send origin on every option', () => {
    const violations = checkQuoteResponse(
      request,
      answer([option({ origin: { distribution_center: { id: 'CD-SP' } } }), option({ id: 'eco', price: 9.9 })]),
      multi,
    );
    expect(violations).toEqual([
      expect.objectContaining({ rule: 'response.origin-required', path: 'packages[0].delivery_options[1].origin' }),
    ]);
  });

  it('spec "Shipping quote response": origin is optional for a single-centre seller', () => {
    expect(checkQuoteResponse(request, answer([option()]), single)).toEqual([]);
  });
});

describe('checkQuoteErrorBody (spec "Shipping quote error body")', () => {
  it('understands out_of_stock with per-SKU stock given as the spec string or as a number', () => {
    const result = checkQuoteErrorBody({
      message: 'Itens sem Estoque',
      code: 'out_of_stock',
      items: [
        { sku: 'SKU-A', available_quantity: '1' },
        { sku: 'SKU-B', available_quantity: 0 },
      ],
    });
    expect(result).toEqual({
      ok: true,
      error: {
        code: 'out_of_stock',
        message: 'Itens sem Estoque',
        items: [
          { sku: 'SKU-A', available_quantity: 1 },
          { sku: 'SKU-B', available_quantity: 0 },
        ],
      },
    });
  });

  it('Errors / Shipping quote: an unknown code, or out_of_stock without items, is not understood', () => {
    expect(checkQuoteErrorBody({ message: 'x', code: 'teapot' })).toMatchObject({
      ok: false,
      violations: [{ rule: 'error.code' }],
    });
    expect(checkQuoteErrorBody({ message: 'x', code: 'out_of_stock' })).toMatchObject({
      ok: false,
      violations: [{ rule: 'error.items-required' }],
    });
    expect(checkQuoteErrorBody({ code: 'invalid_zipcode' })).toMatchObject({ ok: false, violations: [{ rule: 'error.schema' }] });
    expect(checkQuoteErrorBody({ message: 'Invalid zipcode', code: 'invalid_zipcode' })).toMatchObject({ ok: true });
  });

  it('Errors / Shipping quote: delivery_not_available without items is not understood (its items are required)', () => {
    expect(checkQuoteErrorBody({ message: 'Delivery Not Available', code: 'delivery_not_available' })).toMatchObject({
      ok: false,
      violations: [{ rule: 'error.items-required' }],
    });
    expect(
      checkQuoteErrorBody({
        message: 'Delivery Not Available',
        code: 'delivery_not_available',
        items: [{ sku: 'SKU-A', available_quantity: '0' }],
      }),
    ).toMatchObject({ ok: true });
  });
});

describe('pickShownOptions (spec-notes Q5)', () => {
  const ids = (response: QuoteResponse) => pickShownOptions(response).map((p) => p.options.map((o) => o.id));

  it('spec-notes Q5: shows the fastest and the cheapest of several options', () => {
    const response = answer([
      option({ id: 'mid', price: 20, delivery_days: 5 }),
      option({ id: 'fast', price: 40, delivery_days: 1 }),
      option({ id: 'cheap', price: 10, delivery_days: 9 }),
    ]);
    expect(ids(response)).toEqual([['fast', 'cheap']]);
  });

  it('spec-notes Q5: among equally fast options the cheaper is the fastest; among equally cheap the faster is the cheapest', () => {
    const response = answer([
      option({ id: 'fast-dear', price: 50, delivery_days: 1 }),
      option({ id: 'fast-cheaper', price: 45, delivery_days: 1 }),
      option({ id: 'cheap-slow', price: 10, delivery_days: 9 }),
      option({ id: 'cheap-faster', price: 10, delivery_days: 7 }),
    ]);
    expect(ids(response)).toEqual([['fast-cheaper', 'cheap-faster']]);
  });

  it('spec-notes Q5: one option when the fastest is also the cheapest', () => {
    const response = answer([
      option({ id: 'best', price: 5, delivery_days: 1 }),
      option({ id: 'worse', price: 9, delivery_days: 3 }),
    ]);
    expect(ids(response)).toEqual([['best']]);
  });

  it('spec-notes Q5: picks per package', () => {
    const response: QuoteResponse = {
      packages: [
        { delivery_options: [option({ id: 'a' })], items: [{ sku: 'SKU-A', quantity: 2 }] },
        {
          delivery_options: [
            option({ id: 'b-fast', delivery_days: 1, price: 30 }),
            option({ id: 'b-cheap', delivery_days: 4, price: 12 }),
          ],
          items: [{ sku: 'SKU-B', quantity: 1 }],
        },
      ],
    };
    expect(ids(response)).toEqual([['a'], ['b-fast', 'b-cheap']]);
  });

  it('compares prices in cents, so 0.1 + 0.2 style float noise does not decide a tie', () => {
    const response = answer([
      option({ id: 'first', price: 0.3, delivery_days: 2 }),
      option({ id: 'second', price: 0.1 + 0.2, delivery_days: 2 }),
    ]);
    expect(ids(response)).toEqual([['first']]);
  });
});
