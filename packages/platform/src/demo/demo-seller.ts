import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkQuoteRequest,
  type DeliveryOption,
  QUOTE_ERROR_CODES,
  QUOTE_MAX_RESPONSE_BYTES,
  type QuoteErrorBody,
  type QuoteRequest,
  type QuoteResponse,
} from '@feira/contract';
import type { Clock } from '../core/clock.js';
import type { PlatformConfig } from '../core/config.js';
import { productStock } from '../records/index.js';
import { configureShippingSettings, type ShippingSettings } from '../shipping/index.js';
import type { Database } from '../storage/database.js';

/** The demo seller's two distribution centres (a multi-centre seller: every option carries its origin). */
export const DEMO_DISTRIBUTION_CENTERS = ['CD-SP', 'CD-RJ'] as const;

/** Stock of a SKU in a store; undefined means "not tracked" (always enough). */
export type DemoStockLookup = (tenantId: string | null, sku: string) => number | undefined | Promise<number | undefined>;

export interface DemoSellerOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where the demo seller reads stock; `catalogueStock(database)` reads the platform's products. */
  stock?: DemoStockLookup;
}

export interface DemoSeller {
  /** Base URL, e.g. `http://127.0.0.1:4010`; the quote endpoint is `<url>/quote`. */
  url: string;
  close(): Promise<void>;
}

/** Reads stock from the platform's catalogue: what a real seller's system would know. */
export function catalogueStock(database: Database): DemoStockLookup {
  return async (tenantId, sku) => {
    if (!tenantId) return undefined;
    return productStock(database.db, tenantId, sku);
  };
}

const money = (value: number) => Math.round(value * 100) / 100;

/**
 * The demo quote: one package with every item and three options, so the
 * storefront shows the fastest (Expressa, from São Paulo) and the cheapest
 * (Econômica, from Rio de Janeiro). Prices grow with weight and distance
 * (first zipcode digit).
 */
function demoQuote(request: QuoteRequest): QuoteResponse {
  const kilograms = request.items.reduce((sum, item) => sum + item.dimensions.weight * item.quantity, 0);
  const region = Number(request.zipcode[0] ?? '0');
  const far = region >= 5 ? 2 : 0;
  const base = (9.9 + 2.5 * kilograms) * (1 + region * 0.05);
  const option = (id: string, name: string, price: number, days: number, centre: string): DeliveryOption => ({
    id,
    name,
    price: Math.max(money(price), 0.01),
    delivery_days: days,
    type: 'conventional',
    origin: { distribution_center: { id: centre } },
  });
  return {
    packages: [
      {
        delivery_options: [
          option('padrao', 'Padrão', base * 1.3, 4 + far, 'CD-SP'),
          option('expressa', 'Expressa', base * 2.2, 1 + far, 'CD-SP'),
          option('economica', 'Econômica', base, 8 + far, 'CD-RJ'),
        ],
        items: request.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
      },
    ],
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** What a browser opening the banner's "Demo quotes" URL reads: what the endpoint is and how to try it. */
const ABOUT_THE_ENDPOINT =
  "This is the demo seller's shipping-quote endpoint: the platform POSTs a quote request here (docs/shipping.md). " +
  'Try it with `npx feira quote-check <this URL>`, or quote a demo store from the console (Shipping, Quote preview).';

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > QUOTE_MAX_RESPONSE_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function answer(req: IncomingMessage, res: ServerResponse, stock: DemoStockLookup): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://demo.invalid');
  if (url.pathname !== '/quote') return send(res, 404, { message: `Not found: ${ABOUT_THE_ENDPOINT}` });
  // RFC 9110 §15.5.6: the path exists and answers POST only; a browser's GET learns what it is.
  if (req.method !== 'POST') return send(res, 405, { message: ABOUT_THE_ENDPOINT }, { allow: 'POST' });
  const text = await readBody(req);
  let request: unknown;
  try {
    request = text === null ? undefined : JSON.parse(text);
  } catch {
    request = undefined;
  }
  const violations = request === undefined ? [{ rule: 'request.schema', message: 'not JSON' }] : checkQuoteRequest(request);
  const quote = request as QuoteRequest;
  // Errors / Shipping quote: the most specific code. A zipcode starting with 0
  // does not exist for the demo seller; one starting with 99 is outside coverage.
  if (violations.some((v) => v.rule === 'request.zipcode') || (violations.length === 0 && quote.zipcode.startsWith('0'))) {
    return send(res, 400, {
      message: QUOTE_ERROR_CODES.invalid_zipcode.message,
      code: 'invalid_zipcode',
    } satisfies QuoteErrorBody);
  }
  if (violations.length > 0) return send(res, 422, { message: violations.map((v) => v.message).join('; ') });
  const store = url.searchParams.get('store');
  const levels = await Promise.all(quote.items.map((item) => stock(store, item.sku)));
  if (quote.zipcode.startsWith('99')) {
    return send(res, 400, {
      message: QUOTE_ERROR_CODES.delivery_not_available.message,
      code: 'delivery_not_available',
      items: quote.items.map((item, i) => ({ sku: item.sku, available_quantity: String(levels[i] ?? item.quantity) })),
    } satisfies QuoteErrorBody);
  }
  const short = quote.items.flatMap((item, i) => {
    const level = levels[i];
    return level !== undefined && level < item.quantity
      ? [{ sku: item.sku, available_quantity: String(Math.max(level, 0)) }]
      : [];
  });
  if (short.length > 0) {
    return send(res, 400, {
      message: QUOTE_ERROR_CODES.out_of_stock.message,
      code: 'out_of_stock',
      items: short,
    } satisfies QuoteErrorBody);
  }
  return send(res, 200, demoQuote(quote));
}

/**
 * Starts the sandbox's demo seller quote endpoint (`POST <url>/quote`), its own
 * small HTTP server standing in for a seller's system: two distribution
 * centres, fastest and cheapest options, `out_of_stock` when the stock is
 * short, `invalid_zipcode` for zipcodes starting with 0,
 * `delivery_not_available` for zipcodes starting with 99.
 */
export async function startDemoSeller(options: DemoSellerOptions = {}): Promise<DemoSeller> {
  const stock = options.stock ?? (() => undefined);
  const server = createServer((req, res) => {
    answer(req, res, stock).catch(() => {
      if (!res.headersSent) send(res, 500, { message: 'demo seller failed' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Points a store at the demo seller (sandbox mode: http and a port are allowed
 * there). The store's id travels in the query string, as a seller's own token
 * would (spec "Authentication" rule 12), so the demo seller reads that store's stock.
 */
export function configureDemoSellerShipping(
  deps: { database: Database; clock: Clock; config: Pick<PlatformConfig, 'mode'> },
  tenantId: string,
  demoSellerUrl: string,
): Promise<ShippingSettings> {
  return configureShippingSettings(deps, tenantId, {
    method: 'seller_api',
    url: `${demoSellerUrl}/quote?store=${encodeURIComponent(tenantId)}`,
    distribution_centers: DEMO_DISTRIBUTION_CENTERS.map((id) => ({ id })),
  });
}
