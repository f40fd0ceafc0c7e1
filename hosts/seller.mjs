// The seller's quote host: `node hosts/seller.mjs <host:port>`. `POST /quote`
// answers a valid quote at once: two conventional options for the items asked.
import { createServer } from 'node:http';

const [listen] = process.argv.slice(2);
const at = listen.lastIndexOf(':');
const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let items = [];
    try {
      items = JSON.parse(Buffer.concat(chunks).toString('utf8')).items.map((i) => ({ sku: i.sku, quantity: i.quantity }));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"Bad request","code":"invalid_zipcode"}');
      return;
    }
    const options = [
      { id: 'express', name: 'Express', price: 29.9, delivery_days: 2, type: 'conventional' },
      { id: 'standard', name: 'Standard', price: 12.5, delivery_days: 6, type: 'conventional' },
    ];
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ packages: [{ delivery_options: options, items }] }));
  });
});
server.listen(Number(listen.slice(at + 1)), listen.slice(0, at), () => process.stdout.write(`seller ${listen} ready\n`));
process.on('SIGTERM', () => process.exit(0));
