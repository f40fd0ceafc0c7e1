// A real webhook receiver on 127.0.0.1 for tests: HTTPS with the test CA's
// certificate, or plain HTTP (v0). It keeps every request's raw bytes so tests
// can verify signatures exactly as a subscriber would.
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testTls } from '../../src/testing.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** What to answer: a status with optional headers and body, or `hang` (never answer). */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export interface LoopbackReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Requests currently being held open by a `hang` answer. */
  hanging: number;
  answer: (request: ReceivedRequest, index: number) => ReceiverAnswer;
  /** Resolves when at least `count` requests arrived; rejects after `timeoutMs` (a deadline, not a sleep). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Ends every hanging request (with a 200) and stops hanging new ones. */
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(
  options: { tls?: boolean; answer?: (request: ReceivedRequest, index: number) => ReceiverAnswer } = {},
): Promise<LoopbackReceiver> {
  const waiters: Array<() => void> = [];
  const held: ServerResponse[] = [];
  let released = false;
  const receiver: LoopbackReceiver = {
    url: '',
    received: [],
    hanging: 0,
    answer: options.answer ?? (() => ({ status: 200, body: 'ok' })),
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (receiver.received.length >= count) {
            clearTimeout(timer);
            resolve(receiver.received);
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.received.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const waiter = () => {
          if (!check()) waiters.push(waiter);
        };
        waiter();
      });
    },
    release() {
      released = true;
      for (const res of held.splice(0)) res.writeHead(200).end('late');
      receiver.hanging = 0;
    },
    close: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
      };
      const index = receiver.received.length;
      receiver.received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const answer = receiver.answer(request, index);
      if (answer === 'hang' && !released) {
        receiver.hanging += 1;
        held.push(res);
        res.on('close', () => {
          const at = held.indexOf(res);
          if (at >= 0) {
            held.splice(at, 1);
            receiver.hanging -= 1;
          }
        });
        return;
      }
      const a: Exclude<ReceiverAnswer, 'hang'> = answer === 'hang' ? { status: 200 } : answer;
      const send = () => res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '');
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };
  const server = options.tls ? createHttpsServer({ key: testTls.key, cert: testTls.cert }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/hooks/feira`;
  return receiver;
}

/** A port nothing listens on (bound, then closed), for connection-refused tests. */
export async function closedPort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
