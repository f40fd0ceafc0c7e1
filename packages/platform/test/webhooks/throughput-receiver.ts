// Loopback HTTPS receiver for the throughput probe: answers 200 to everything and
// counts requests. Runs in its own process so it does not share the dispatcher's core.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testTls } from '../../src/testing.js';

let count = 0;
let connections = 0;
const server = createServer({ key: testTls.key, cert: testTls.cert, keepAliveTimeout: 30_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    count += 1;
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.on('secureConnection', () => {
  connections += 1;
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
process.on('message', () => process.send?.({ count, connections }));
