// A real seller quote endpoint on 127.0.0.1 for tests (HTTP, or HTTPS with the
// test CA's certificate). Each test scripts what the seller does with a request:
// answer at once, answer late, send headers and stall, send raw bytes. The
// server records every request and what became of each answer, so tests assert
// outcomes (a second request never came, a late answer found the socket gone)
// instead of sleeping.
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testTls } from '../../src/testing.js';

export interface SellerRequest {
  method: string;
  /** The request target exactly as received (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The body parsed as JSON (undefined if it is not JSON). */
  json: unknown;
}

/** What the seller does with a request. */
export type SellerBehaviour =
  | { status: number; json?: unknown; body?: string | Buffer; headers?: Record<string, string>; chunked?: boolean }
  /** Answers after `afterMs` (a slow seller; the platform must not wait for it). */
  | { late: { afterMs: number; status: number; json: unknown } }
  /** Sends the status line and headers and part of a body, then nothing more. */
  | { stallAfterHeaders: { status: number; partialBody: string } };

export interface TestSeller {
  url: string;
  requests: SellerRequest[];
  /** Late answers attempted, and whether the platform had already closed the connection by then. */
  lateAnswers: { socketAlreadyClosed: boolean }[];
  /** Connections the platform closed while the seller was still holding an answer. */
  abandoned: number;
  behave: (request: SellerRequest) => SellerBehaviour;
  /** Polls `condition` until it holds; fails after `timeoutMs` (a deadline, never a fixed sleep). */
  until(condition: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTestSeller(
  options: { tls?: boolean; behave?: (request: SellerRequest) => SellerBehaviour } = {},
): Promise<TestSeller> {
  const timers = new Set<NodeJS.Timeout>();
  const seller: TestSeller = {
    url: '',
    requests: [],
    lateAnswers: [],
    abandoned: 0,
    behave: options.behave ?? (() => ({ status: 500, body: 'no behaviour scripted' })),
    until(condition, timeoutMs = 5000) {
      const deadline = performance.now() + timeoutMs;
      return new Promise((resolve, reject) => {
        const poll = () => {
          if (condition()) return resolve();
          if (performance.now() > deadline) return reject(new Error(`condition not met within ${timeoutMs} ms`));
          setTimeout(poll, 10);
        };
        poll();
      });
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const request: SellerRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, json };
      seller.requests.push(request);
      const behaviour = seller.behave(request);
      if ('late' in behaviour) {
        let closed = false;
        res.on('close', () => {
          if (!res.writableEnded) {
            closed = true;
            seller.abandoned += 1;
          }
        });
        const timer = setTimeout(() => {
          timers.delete(timer);
          seller.lateAnswers.push({ socketAlreadyClosed: closed || res.destroyed });
          if (!res.destroyed) {
            res.writeHead(behaviour.late.status, { 'content-type': 'application/json' }).end(JSON.stringify(behaviour.late.json));
          }
        }, behaviour.late.afterMs);
        timers.add(timer);
        return;
      }
      if ('stallAfterHeaders' in behaviour) {
        res.on('close', () => {
          if (!res.writableEnded) seller.abandoned += 1;
        });
        res.writeHead(behaviour.stallAfterHeaders.status, { 'content-type': 'application/json' });
        res.write(behaviour.stallAfterHeaders.partialBody);
        return;
      }
      const body = behaviour.body ?? (behaviour.json === undefined ? '' : JSON.stringify(behaviour.json));
      const headers: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        ...behaviour.headers,
      };
      if (!behaviour.chunked) headers['content-length'] = Buffer.byteLength(body);
      res.writeHead(behaviour.status, headers);
      if (behaviour.chunked) {
        // Several writes without a length: the platform must cut the stream off itself.
        const bytes = Buffer.from(body);
        for (let at = 0; at < bytes.length; at += 64 * 1024) res.write(bytes.subarray(at, at + 64 * 1024));
      }
      res.end(behaviour.chunked ? undefined : body);
    });
  };
  const server = options.tls ? createHttpsServer({ key: testTls.key, cert: testTls.cert }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  seller.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return seller;
}

/** A port nothing listens on (bound, then released), for the refused-connection case. */
export async function closedPort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
