// A seller's quote endpoint over HTTPS on 127.0.0.1 (test certificate).
// `/quote` answers a valid quote at once (one conventional option for every
// item, as the contract requires); `/silent` reads the request and never
// answers, so the platform's 1.0 s deadline is what ends the call.
import { createServer } from 'node:https';
import { testTls } from '@feira/platform/testing';
import { serveChild } from '../lib/child-protocol.js';

let silentRequests = 0;
const server = createServer({ key: testTls.key, cert: testTls.cert, keepAliveTimeout: 60_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.url?.startsWith('/silent')) {
      silentRequests += 1;
      return; // never answered: the caller's deadline must end it
    }
    let items: Array<{ sku: string; quantity: number }> = [];
    try {
      items = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: typeof items }).items.map((i) => ({
        sku: i.sku,
        quantity: i.quantity,
      }));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"Bad request","code":"invalid_zipcode"}');
      return;
    }
    const body = JSON.stringify({
      packages: [
        {
          delivery_options: [
            { id: 'express', name: 'Express', price: 29.9, delivery_days: 2, type: 'conventional' },
            { id: 'standard', name: 'Standard', price: 12.5, delivery_days: 6, type: 'conventional' },
          ],
          items,
        },
      ],
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

serveChild({ port, origin: `https://127.0.0.1:${port}` }, { silentRequests: () => silentRequests }, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
