import { describe, expect, it } from 'vitest';
import {
  checkQuoteErrorBody,
  checkQuoteRequest,
  checkQuoteResponse,
  type DeliveryOption,
  hasAtMostTwoDecimals,
  pickShownOptions,
  QUOTE_RULES,
  type QuoteRequest,
  type QuoteResponse,
  type QuoteRuleId,
} from './quote.js';

// The rule checker the platform, the SDK's quote handler and `feira quote-check`
// share: each rule id is produced by the input that breaks it, and only by it.

const request = (): QuoteRequest => ({
  session_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  zipcode: '01310100',
  items: [
    { sku: 'SKU-1', quantity: 2, price: 10.5, currency: 'BRL', dimensions: { depth: 0.1, height: 0.2, width: 0.3, weight: 1.5 } },
    {
      sku: 'SKU-2',
      quantity: 1,
      price: 99.99,
      currency: 'BRL',
      dimensions: { depth: 0.1, height: 0.1, width: 0.1, weight: 0.2 },
    },
  ],
});

const option = (overrides: Partial<DeliveryOption> = {}): DeliveryOption => ({
  id: 'standard',
  name: 'Standard',
  type: 'conventional',
  price: 19.9,
  delivery_days: 5,
  ...overrides,
});

const response = (options: DeliveryOption[] = [option()]): QuoteResponse => ({
  packages: [
    {
      delivery_options: options,
      items: [
        { sku: 'SKU-1', quantity: 2 },
        { sku: 'SKU-2', quantity: 1 },
      ],
    },
  ],
});

const rules = (violations: Array<{ rule: QuoteRuleId }>) => violations.map((v) => v.rule);

describe('checkQuoteRequest (spec "Shipping quote request")', () => {
  it('a valid request has no violation', () => {
    expect(checkQuoteRequest(request())).toEqual([]);
  });

  it.each<[string, (r: QuoteRequest) => void, QuoteRuleId, string]>([
    [
      'session_id not a UUID v4',
      (r) => (r.session_id = '0f8fad5b-d9cb-169f-a165-70867728950e'),
      'request.session-id',
      'session_id',
    ],
    ['zipcode of 7 digits', (r) => (r.zipcode = '0131010'), 'request.zipcode', 'zipcode'],
    ['zipcode with a dash', (r) => (r.zipcode = '01310-10'), 'request.zipcode', 'zipcode'],
    ['sku of 51 characters', (r) => ((r.items[0] as { sku: string }).sku = 'x'.repeat(51)), 'request.sku-length', 'items[0].sku'],
    ['quantity 0', (r) => ((r.items[1] as { quantity: number }).quantity = 0), 'request.quantity', 'items[1].quantity'],
    ['price 0', (r) => ((r.items[0] as { price: number }).price = 0), 'request.price-positive', 'items[0].price'],
    [
      'price with 3 decimals',
      (r) => ((r.items[0] as { price: number }).price = 1.005),
      'request.price-decimals',
      'items[0].price',
    ],
    [
      'a negative weight',
      (r) => ((r.items[0] as { dimensions: { weight: number } }).dimensions.weight = -1),
      'request.dimensions',
      'items[0].dimensions.weight',
    ],
  ])('Limits / spec table: %s is %s at the value', (_name, breakIt, rule, path) => {
    const broken = request();
    breakIt(broken);
    expect(checkQuoteRequest(broken)).toEqual([expect.objectContaining({ rule, path })]);
  });

  it('a wrong type or a missing field is a schema violation naming the path, and stops the value rules', () => {
    const broken = request() as unknown as { items: unknown[]; zipcode?: string };
    delete broken.zipcode;
    (broken.items[0] as { price: unknown }).price = '10.50';
    const found = checkQuoteRequest(broken);
    expect(new Set(rules(found))).toEqual(new Set(['request.schema']));
    expect(found.map((v) => v.path)).toEqual(expect.arrayContaining(['zipcode', 'items[0].price']));
  });

  it('every rule id has a description', () => {
    for (const violation of checkQuoteRequest({})) expect(QUOTE_RULES[violation.rule]).toBeTruthy();
  });
});

describe('checkQuoteResponse (spec "Shipping quote response", spec-notes Q4)', () => {
  const oneCentre = { distributionCenterIds: ['dc-sp'] };
  const twoCentres = { distributionCenterIds: ['dc-sp', 'dc-rj'] };
  const origin = (id: string) => ({ distribution_center: { id } });

  it('a valid answer has no violation, however the items are split into packages', () => {
    expect(checkQuoteResponse(request(), response(), oneCentre)).toEqual([]);
    const split: QuoteResponse = {
      packages: [
        { delivery_options: [option()], items: [{ sku: 'SKU-1', quantity: 1 }] },
        {
          delivery_options: [option()],
          items: [
            { sku: 'SKU-1', quantity: 1 },
            { sku: 'SKU-2', quantity: 1 },
          ],
        },
      ],
    };
    expect(checkQuoteResponse(request(), split, oneCentre)).toEqual([]);
  });

  it.each<[string, QuoteResponse | unknown, QuoteRuleId]>([
    ['option id of 33 characters', response([option({ id: 'x'.repeat(33) })]), 'response.option-id-length'],
    ['two options with one id', response([option(), option({ price: 25 })]), 'response.option-id-unique'],
    ['price 0', response([option({ price: 0 })]), 'response.price-positive'],
    ['price with 3 decimals', response([option({ price: 19.999 })]), 'response.price-decimals'],
    ['delivery_days 0', response([option({ delivery_days: 0 })]), 'response.delivery-days'],
    ['a centre id of 33 characters', response([option({ origin: origin('x'.repeat(33)) })]), 'response.centre-id-length'],
    ['an unknown centre', response([option({ origin: origin('dc-xx') })]), 'response.centre-id-known'],
    ['no packages', { packages: [] }, 'response.schema'],
  ])('%s is %s', (_name, answer, rule) => {
    expect(rules(checkQuoteResponse(request(), answer, oneCentre))).toEqual([rule]);
  });

  it('spec-notes Q4: items that are not exactly the request (missing, extra, other quantity) are one items-match-request violation', () => {
    const answer = response();
    (answer.packages[0] as { items: Array<{ sku: string; quantity: number }> }).items = [
      { sku: 'SKU-1', quantity: 3 },
      { sku: 'SKU-9', quantity: 1 },
    ];
    const [violation, ...rest] = checkQuoteResponse(request(), answer, oneCentre);
    expect(rest).toEqual([]);
    expect(violation?.rule).toBe('response.items-match-request');
    expect(violation?.message).toContain('SKU "SKU-1" has quantity 3');
    expect(violation?.message).toContain('SKU "SKU-2" is missing');
    expect(violation?.message).toContain('SKU "SKU-9" was not in the request');
  });

  it('spec-notes Q4 / v2.0: with several centres every option needs a known origin; with one, origin is optional', () => {
    expect(rules(checkQuoteResponse(request(), response(), twoCentres))).toEqual(['response.origin-required']);
    expect(checkQuoteResponse(request(), response([option({ origin: origin('dc-rj') })]), twoCentres)).toEqual([]);
    expect(checkQuoteResponse(request(), response(), oneCentre)).toEqual([]);
    expect(
      checkQuoteResponse(request(), response([option({ origin: origin('anything') })]), { distributionCenterIds: [] }),
    ).toEqual([]);
  });

  it('a body that is not the response shape is a schema violation on the body', () => {
    expect(checkQuoteResponse(request(), 'not an object', oneCentre)).toEqual([
      expect.objectContaining({ rule: 'response.schema', path: '(body)' }),
    ]);
  });
});

describe('checkQuoteErrorBody (spec "Shipping quote error body")', () => {
  it('invalid_zipcode needs no items; the stock per SKU is read as a number whether sent as string or number', () => {
    expect(checkQuoteErrorBody({ message: 'Invalid zipcode', code: 'invalid_zipcode' })).toEqual({
      ok: true,
      error: { code: 'invalid_zipcode', message: 'Invalid zipcode', items: [] },
    });
    const stock = checkQuoteErrorBody({
      message: 'Itens sem Estoque',
      code: 'out_of_stock',
      items: [
        { sku: 'SKU-1', available_quantity: '0' },
        { sku: 'SKU-2', available_quantity: 3 },
      ],
    });
    expect(stock).toEqual({
      ok: true,
      error: {
        code: 'out_of_stock',
        message: 'Itens sem Estoque',
        items: [
          { sku: 'SKU-1', available_quantity: 0 },
          { sku: 'SKU-2', available_quantity: 3 },
        ],
      },
    });
  });

  it.each<[string, unknown, QuoteRuleId]>([
    ['an unknown code', { message: 'x', code: 'sold_out' }, 'error.code'],
    [
      'delivery_not_available without items',
      { message: 'Delivery Not Available', code: 'delivery_not_available' },
      'error.items-required',
    ],
    [
      'out_of_stock with an item missing its quantity',
      { message: 'x', code: 'out_of_stock', items: [{ sku: 'A' }] },
      'error.items-required',
    ],
    [
      'a negative quantity',
      { message: 'x', code: 'out_of_stock', items: [{ sku: 'A', available_quantity: -1 }] },
      'error.schema',
    ],
    ['no message', { code: 'invalid_zipcode' }, 'error.schema'],
  ])('%s is refused with %s', (_name, body, rule) => {
    const checked = checkQuoteErrorBody(body);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(rules(checked.violations)).toContain(rule);
  });
});

describe('pickShownOptions (spec-notes Q5)', () => {
  it('shows the fastest (ties: the cheaper) and the cheapest (ties: the faster) per package', () => {
    const [shown] = pickShownOptions(
      response([
        option({ id: 'slow-cheap', price: 10, delivery_days: 9 }),
        option({ id: 'fast-dear', price: 40, delivery_days: 1 }),
        option({ id: 'fast-cheaper', price: 30, delivery_days: 1 }),
        option({ id: 'slower-cheap', price: 10, delivery_days: 12 }),
      ]),
    );
    expect(shown?.fastest.id).toBe('fast-cheaper');
    expect(shown?.cheapest.id).toBe('slow-cheap');
    expect(shown?.options.map((o) => o.id)).toEqual(['fast-cheaper', 'slow-cheap']);
  });

  it('Limits (up to 2 shown): one option when the fastest is also the cheapest', () => {
    const [shown] = pickShownOptions(response([option({ id: 'best', price: 5, delivery_days: 1 }), option({ id: 'other' })]));
    expect(shown?.options.map((o) => o.id)).toEqual(['best']);
  });

  it('compares prices in cents, so 0.1 + 0.2 style floats do not decide a tie', () => {
    const [shown] = pickShownOptions(
      response([option({ id: 'a', price: 0.3, delivery_days: 2 }), option({ id: 'b', price: 0.1 + 0.2, delivery_days: 1 })]),
    );
    expect(shown?.cheapest.id).toBe('b');
    expect(hasAtMostTwoDecimals(0.1 + 0.2)).toBe(true);
    expect(hasAtMostTwoDecimals(0.305)).toBe(false);
  });
});
