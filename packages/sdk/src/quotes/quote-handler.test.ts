import { createServer } from 'node:http';
import { QUOTE_RULES, type QuoteViolation } from '@feira/contract';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../test-support/listen.js';
import { manualTimer, sampleQuoteRequest } from '../test-support/quote-fixtures.js';
import { fastifyQuotePlugin } from './fastify-quote-plugin.js';
import { centimetresToMetres, gramsToKilograms, mirrorItems, roundPrice, singlePackageQuote } from './quote-builders.js';
import { quoteErrors } from './quote-error-answer.js';
import { createQuoteHandler, DEFAULT_QUOTE_BUDGET_MS, type QuoteFunction, type QuoteHandler } from './quote-handler.js';

const STANDARD = { id: 'std', name: 'Standard', type: 'conventional', price: 19.9, delivery_days: 5 };
const good: QuoteFunction = (request) => singlePackageQuote(request, [STANDARD]);

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const mounts: Record<string, (handler: QuoteHandler) => Promise<string>> = {
  'node:http': async (handler) => {
    const { url, close } = await listenOnLoopback(createServer(handler));
    closers.push(close);
    return `${url}/quote?token=abc`;
  },
  Express: async (handler) => {
    const app = express();
    app.post('/quote', handler);
    const { url, close } = await listenOnLoopback(createServer(app));
    closers.push(close);
    return `${url}/quote`;
  },
  Fastify: async (handler) => {
    const app = Fastify();
    await app.register(fastifyQuotePlugin, { path: '/quote', handler });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return `http://127.0.0.1:${(app.server.address() as { port: number }).port}/quote`;
  },
};

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe.each(Object.entries(mounts))('quote handler on %s', (_name, mount) => {
  it('spec "Seller-implemented shipping-quote endpoint": answers a valid request 200 with the response, items mirrored', async () => {
    const url = await mount(createQuoteHandler(good));
    const response = await post(url, sampleQuoteRequest());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      packages: [
        {
          items: [
            { sku: 'SKU-1', quantity: 2 },
            { sku: 'SKU-2', quantity: 1 },
          ],
          delivery_options: [STANDARD],
        },
      ],
    });
  });

  it('spec "Shipping quote request": a request breaking the schema is answered 400 in the spec error body, without calling the seller', async () => {
    let calls = 0;
    const url = await mount(
      createQuoteHandler(() => {
        calls++;
        return quoteErrors.invalidZipcode();
      }),
    );
    const longSku = sampleQuoteRequest();
    longSku.items[0]!.sku = 'x'.repeat(51);
    for (const body of ['{not json', { ...sampleQuoteRequest(), items: [] }, longSku]) {
      const response = await post(url, body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { message: string; code: string };
      expect(answer.code).toBe('invalid_request');
      expect(typeof answer.message).toBe('string');
    }
    expect(calls).toBe(0);
  });

  it('spec "Errors / Shipping quote": a malformed zipcode is answered with the most specific code, invalid_zipcode', async () => {
    const url = await mount(createQuoteHandler(good));
    const response = await post(url, sampleQuoteRequest({ zipcode: '1234-567' }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'Invalid zipcode', code: 'invalid_zipcode' });
  });
});

describe('createQuoteHandler', () => {
  it('works after express.json(): it uses the body Express already parsed', async () => {
    const app = express();
    app.post('/quote', express.json(), createQuoteHandler(good));
    const { url, close } = await listenOnLoopback(createServer(app));
    closers.push(close);
    const response = await post(`${url}/quote`, sampleQuoteRequest());
    expect(response.status).toBe(200);
    expect(((await response.json()) as { packages: unknown[] }).packages).toHaveLength(1);
  });

  it('spec "Errors / Shipping quote": the three builders give the spec messages, items as strings, returned or thrown', async () => {
    const request = sampleQuoteRequest();
    const cases: Array<[QuoteFunction, unknown]> = [
      [() => quoteErrors.invalidZipcode(), { message: 'Invalid zipcode', code: 'invalid_zipcode' }],
      [
        () => {
          throw quoteErrors.outOfStock([{ sku: 'SKU-1', available_quantity: 1 }]);
        },
        { message: 'Itens sem Estoque', code: 'out_of_stock', items: [{ sku: 'SKU-1', available_quantity: '1' }] },
      ],
      [
        (r) => quoteErrors.deliveryNotAvailable(r),
        {
          message: 'Delivery Not Available',
          code: 'delivery_not_available',
          items: [
            { sku: 'SKU-1', available_quantity: '2' },
            { sku: 'SKU-2', available_quantity: '1' },
          ],
        },
      ],
    ];
    for (const [fn, body] of cases) {
      expect(await createQuoteHandler(fn).handle(JSON.stringify(request))).toEqual({ status: 400, body });
    }
  });

  it('spec-notes Q4: an answer whose items do not match the request is not sent (500) and the seller is told which rule', async () => {
    const seen: QuoteViolation[][] = [];
    const handler = createQuoteHandler(
      (request) => ({ packages: [{ items: [{ sku: request.items[0]!.sku, quantity: 1 }], delivery_options: [STANDARD] }] }),
      { onInvalidAnswer: (violations) => seen.push(violations) },
    );
    const answer = await handler.handle(sampleQuoteRequest());
    expect(answer.status).toBe(500);
    expect(seen[0]?.map((v) => v.rule)).toEqual(['response.items-match-request']);
  });

  it('spec-notes Q4: price 0, price with 3 decimals, id over 32 characters, and days 0 are each caught before sending', async () => {
    const broken = [
      { ...STANDARD, price: 0 },
      { ...STANDARD, price: 10.005 },
      { ...STANDARD, id: 'x'.repeat(33) },
      { ...STANDARD, delivery_days: 0 },
    ];
    const expected = [
      'response.price-positive',
      'response.price-decimals',
      'response.option-id-length',
      'response.delivery-days',
    ];
    for (const [i, option] of broken.entries()) {
      const rules: string[] = [];
      const handler = createQuoteHandler((request) => singlePackageQuote(request, [option]), {
        onInvalidAnswer: (violations) => rules.push(...violations.map((v) => v.rule)),
      });
      expect((await handler.handle(sampleQuoteRequest())).status).toBe(500);
      expect(rules).toContain(expected[i]);
      expect(QUOTE_RULES).toHaveProperty(expected[i]!);
    }
  });

  it('spec Versioning v2.0: with several distribution centres every option needs a known origin', async () => {
    const rules: string[] = [];
    const options = {
      distributionCenterIds: ['dc-sp', 'dc-rj'],
      onInvalidAnswer: (v: QuoteViolation[]) => rules.push(...v.map((x) => x.rule)),
    };
    expect((await createQuoteHandler(good, options).handle(sampleQuoteRequest())).status).toBe(500);
    expect(rules).toEqual(['response.origin-required']);
    const withOrigin = createQuoteHandler(
      (r) => singlePackageQuote(r, [{ ...STANDARD, origin: { distribution_center: { id: 'dc-rj' } } }]),
      options,
    );
    expect((await withOrigin.handle(sampleQuoteRequest())).status).toBe(200);
  });

  it('a seller function that throws is answered 500 without its message', async () => {
    const errors: unknown[] = [];
    const handler = createQuoteHandler(
      () => {
        throw new Error('carrier API key sk_live_123 rejected');
      },
      { onError: (error) => errors.push(error) },
    );
    const answer = await handler.handle(sampleQuoteRequest());
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).not.toContain('sk_live_123');
    expect(errors).toHaveLength(1);
  });

  it('time budget: a seller function that never answers gets delivery_not_available when the budget (default 800 ms) runs out, and its signal aborts', async () => {
    const clock = manualTimer();
    let signal: AbortSignal | undefined;
    const exceeded: string[] = [];
    const handler = createQuoteHandler(
      (_request, context) => {
        signal = context.signal;
        return new Promise(() => {});
      },
      { timer: clock.timer, onBudgetExceeded: (request) => exceeded.push(request.session_id) },
    );
    const pending = handler.handle(sampleQuoteRequest());
    await expect.poll(() => clock.started).toEqual([DEFAULT_QUOTE_BUDGET_MS]);
    clock.fire();
    const answer = await pending;
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'delivery_not_available', message: 'Delivery Not Available' });
    expect(signal?.aborted).toBe(true);
    expect(exceeded).toEqual([sampleQuoteRequest().session_id]);
  });

  it('time budget: an answer in time cancels the budget timer and is sent; the budget is configurable', async () => {
    const clock = manualTimer();
    const handler = createQuoteHandler(good, { timer: clock.timer, budgetMs: 300 });
    expect((await handler.handle(sampleQuoteRequest())).status).toBe(200);
    expect(clock.started).toEqual([300]);
    expect(clock.aborted).toBe(true);
  });

  it('time budget with the real timer on a real socket: a hanging seller is answered well before the platform deadline', async () => {
    const handler = createQuoteHandler(() => new Promise(() => {}), { budgetMs: 25 });
    const url = await mounts['node:http']!(handler);
    const response = await post(url, sampleQuoteRequest());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'delivery_not_available' });
  });
});

describe('quote builders', () => {
  it('spec "Unit conversion": centimetres ÷ 100 and grams ÷ 1000; prices rounded to 2 decimals', () => {
    expect(centimetresToMetres(35)).toBe(0.35);
    expect(gramsToKilograms(1250)).toBe(1.25);
    expect(roundPrice(10 / 3)).toBe(3.33);
    expect(roundPrice(1.005)).toBe(1.01);
  });

  it('spec "Shipping quote response": mirrorItems keeps each SKU and quantity of the request, in order', () => {
    expect(mirrorItems(sampleQuoteRequest())).toEqual([
      { sku: 'SKU-1', quantity: 2 },
      { sku: 'SKU-2', quantity: 1 },
    ]);
  });
});
