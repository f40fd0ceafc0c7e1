import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * Stand-ins for the freight gateways' APIs (D60), for the tests (over HTTPS,
 * with the test certificate) and the sandbox (`feira start --demo-gateway
 * melhor_envio`): the request each documents, the answers of its documented
 * examples (priced services beside one the carrier refuses), and the failures
 * a real account meets: a bad token (401), a server error (5xx), a gateway
 * that never answers, an answer that is not what the documentation says.
 */
export type FakeGatewayKind = 'melhor_envio' | 'frenet';

/** How the fake answers the next calls (a wrong token is always a 401, as the real APIs answer it). */
/** `one_malformed`: the ok answer with one more service that has no price and no delivery time. */
type FakeGatewayBehaviour = 'ok' | 'server_error' | 'slow' | 'malformed' | 'all_refused' | 'one_malformed';

export interface FakeGatewayOptions {
  kind: FakeGatewayKind;
  /** The one token the fake accepts. */
  token: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** HTTPS with this key and certificate (the tests' `testTls`); plain HTTP without. */
  tls?: { key: string; cert: string };
}

/** A call the fake received: the tests check the units and fields an adapter sent. */
interface FakeGatewayCall {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeGateway {
  /** Base URL (`https://127.0.0.1:4321`): the gateway's base URL setting. */
  url: string;
  readonly calls: FakeGatewayCall[];
  behave(behaviour: FakeGatewayBehaviour): void;
  close(): Promise<void>;
}

/** The token of the sandbox's fake Melhor Envio (the demo store's credential: nothing secret). */
export const DEMO_GATEWAY_TOKEN = 'demo-melhor-envio-token';

const PATHS: Record<FakeGatewayKind, string> = {
  melhor_envio: '/api/v2/me/shipment/calculate',
  frenet: '/shipping/quote',
};

interface Parcel {
  kilograms: number;
}

/** Extra reais per kilogram above the first, so bigger carts cost more (the documented examples are for one small box). */
const perKilogram = (base: number, parcel: Parcel) => (base + Math.max(0, parcel.kilograms - 1) * 2.5).toFixed(2);

/** Melhor Envio's documented calculate answer: PAC and SEDEX priced, Jadlog's .Package refused. */
function melhorEnvioAnswer(parcel: Parcel, allRefused: boolean): unknown[] {
  const correios = { id: 1, name: 'Correios', picture: 'https://www.melhorenvio.com.br/images/shipping-companies/correios.png' };
  const jadlog = { id: 2, name: 'Jadlog', picture: 'https://www.melhorenvio.com.br/images/shipping-companies/jadlog.png' };
  const refused = { id: 3, name: '.Package', error: 'Transportadora não atende este trecho.', company: jadlog };
  if (allRefused)
    return [
      { id: 1, name: 'PAC', error: 'Serviço indisponível para o trecho informado.', company: correios },
      { id: 2, name: 'SEDEX', error: 'Serviço indisponível para o trecho informado.', company: correios },
      refused,
    ];
  const service = (id: number, name: string, price: string, days: number) => ({
    id,
    name,
    price,
    custom_price: price,
    discount: '0.00',
    currency: 'R$',
    delivery_time: days,
    delivery_range: { min: days - 1, max: days },
    custom_delivery_time: days,
    custom_delivery_range: { min: days - 1, max: days },
    packages: [{ price, discount: '0.00', format: 'box', weight: parcel.kilograms.toFixed(2), insurance_value: '0.00' }],
    additional_services: { receipt: false, own_hand: false, collect: false },
    company: correios,
  });
  return [service(1, 'PAC', perKilogram(23.45, parcel), 6), service(2, 'SEDEX', perKilogram(48.24, parcel), 2), refused];
}

type FrenetAnswer = { ShippingSevicesArray: unknown[] };

/** Frenet's documented quote answer: Correios PAC and SEDEX priced, Jadlog refused (`Error`, `Msg`). */
function frenetAnswer(parcel: Parcel, allRefused: boolean): unknown {
  const refused = {
    ServiceCode: '.PACKAGE',
    ServiceDescription: 'Expresso',
    Carrier: 'Jadlog',
    CarrierCode: 'JAD',
    Error: true,
    Msg: 'CEP de destino não atendido pela transportadora',
  };
  const service = (code: string, name: string, price: string, days: number) => ({
    ServiceCode: code,
    ServiceDescription: name,
    Carrier: 'Correios',
    CarrierCode: 'COR',
    ShippingPrice: price,
    DeliveryTime: String(days),
    Error: false,
    OriginalDeliveryTime: String(days),
    OriginalShippingPrice: price,
    ResponseTime: '0.9',
    AllowBuyLabel: true,
  });
  const services = allRefused
    ? [{ ...refused, ServiceCode: '04510', ServiceDescription: 'PAC', Carrier: 'Correios', CarrierCode: 'COR' }, refused]
    : [service('04510', 'PAC', perKilogram(22.81, parcel), 7), service('04014', 'SEDEX', perKilogram(41.6, parcel), 3), refused];
  return { ShippingSevicesArray: services, Timeout: 5000 };
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN);

/** The parcel of a request, or the documented validation message when a required field is missing. */
function parcelOf(kind: FakeGatewayKind, body: unknown): Parcel | string {
  const b = (body ?? {}) as Record<string, unknown>;
  if (kind === 'melhor_envio') {
    const from = (b.from as { postal_code?: unknown } | undefined)?.postal_code;
    const to = (b.to as { postal_code?: unknown } | undefined)?.postal_code;
    const products = b.products;
    if (typeof from !== 'string' || typeof to !== 'string') return 'The from.postal_code and to.postal_code fields are required.';
    if (!Array.isArray(products) || products.length === 0) return 'The products field is required.';
    let kilograms = 0;
    for (const p of products as Record<string, unknown>[]) {
      for (const field of ['width', 'height', 'length', 'weight', 'quantity'])
        if (!(num(p[field]) > 0)) return `The products.${field} field must be greater than 0.`;
      kilograms += num(p.weight) * num(p.quantity);
    }
    return { kilograms };
  }
  if (typeof b.SellerCEP !== 'string' || typeof b.RecipientCEP !== 'string') return 'SellerCEP and RecipientCEP are required';
  const items = b.ShippingItemArray;
  if (!Array.isArray(items) || items.length === 0) return 'ShippingItemArray is required';
  let kilograms = 0;
  for (const item of items as Record<string, unknown>[]) {
    for (const field of ['Height', 'Length', 'Width', 'Weight', 'Quantity'])
      if (!(num(item[field]) > 0)) return `ShippingItemArray.${field} must be greater than 0`;
    kilograms += num(item.Weight) * num(item.Quantity);
  }
  return { kilograms };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function authorized(kind: FakeGatewayKind, headers: IncomingMessage['headers'], token: string): boolean {
  if (kind === 'melhor_envio') return headers.authorization === `Bearer ${token}`;
  return headers.token === token;
}

/** Starts a fake of one gateway's quote API. */
export async function startFakeGateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  const calls: FakeGatewayCall[] = [];
  let behaviour: FakeGatewayBehaviour = 'ok';
  const path = PATHS[options.kind];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    if (req.method !== 'POST' || url.pathname !== path) return send(res, 404, { message: 'Not Found' });
    const body = await readJson(req);
    calls.push({ path: url.pathname, headers: req.headers, body });
    if (!authorized(options.kind, req.headers, options.token)) {
      return send(
        res,
        401,
        options.kind === 'melhor_envio'
          ? { message: 'Unauthenticated.' }
          : { Message: 'Authorization has been denied for this request.' },
      );
    }
    if (behaviour === 'slow') {
      // Never answers: the caller's deadline must cut the call (the socket goes when it gives up, or at close).
      return;
    }
    if (behaviour === 'server_error') return send(res, 502, '<html><body><h1>502 Bad Gateway</h1></body></html>');
    if (behaviour === 'malformed')
      return send(res, 200, options.kind === 'melhor_envio' ? { data: 'PAC' } : { ShippingSevicesArray: 'indisponível' });
    const parcel = parcelOf(options.kind, body);
    if (typeof parcel === 'string') {
      return send(
        res,
        422,
        options.kind === 'melhor_envio'
          ? { message: 'The given data was invalid.', errors: { request: [parcel] } }
          : { Message: parcel },
      );
    }
    const allRefused = behaviour === 'all_refused';
    const answer =
      options.kind === 'melhor_envio'
        ? melhorEnvioAnswer(parcel, allRefused)
        : (frenetAnswer(parcel, allRefused) as FrenetAnswer);
    if (behaviour === 'one_malformed') {
      if (Array.isArray(answer)) answer.push({ id: 4, name: 'Mini Envios', company: { id: 1, name: 'Correios' } });
      else
        answer.ShippingSevicesArray.push({
          ServiceCode: '04227',
          ServiceDescription: 'Mini Envios',
          Carrier: 'Correios',
          Error: false,
        });
    }
    return send(res, 200, answer);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { message: 'Server Error' });
      else res.destroy();
    });
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    calls,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
