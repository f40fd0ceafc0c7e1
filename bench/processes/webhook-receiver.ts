// A webhook receiver on 127.0.0.1 over HTTPS (v1 subscriptions are HTTPS only)
// with the test certificate. It answers 200 at once and notes when each
// delivery arrived, keyed by the record id in the message.
import { createServer } from 'node:https';
import { testTls } from '@feira/platform/testing';
import { serveChild } from '../lib/child-protocol.js';

let arrivals = new Map<string, number>();
let times: number[] = [];
let received = 0;

const server = createServer({ key: testTls.key, cert: testTls.cert, keepAliveTimeout: 60_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const at = Date.now();
    received += 1;
    times.push(at);
    try {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { params?: { id?: string } } }).data?.params?.id;
      if (id && !arrivals.has(id)) arrivals.set(id, at);
    } catch {
      // Not a message: still answered, only counted.
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

serveChild(
  { port, url: `https://127.0.0.1:${port}/webhooks` },
  {
    reset() {
      arrivals = new Map();
      times = [];
      received = 0;
    },
    count: () => received,
    /** Arrival times (epoch ms) in order, and the first arrival per record id. */
    arrivals: () => ({ times, byId: Object.fromEntries(arrivals) }),
  },
  () => new Promise<void>((resolve) => server.close(() => resolve())),
);
