// The webhook receiver host: `node hosts/receiver.mjs <host:port>`. Answers
// every POST 200 (after `PUT /config?delayMs=N`, that long after the request
// ended) and logs each arrival: its X-Webhook-Id, the address it came from
// (which dispatcher host) and when (epoch ms). `GET /log?since=N` reads the
// log from entry N on.
import { createServer } from 'node:http';

const [listen] = process.argv.slice(2);
const at = listen.lastIndexOf(':');
const log = [];
let delayMs = 0;

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const url = new URL(request.url ?? '/', 'http://receiver');
  if (request.method === 'GET' && url.pathname === '/log') {
    const since = Number(url.searchParams.get('since') ?? 0);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log.slice(since)));
    return;
  }
  if (request.method === 'PUT' && url.pathname === '/config') {
    delayMs = Number(url.searchParams.get('delayMs') ?? 0);
    response.writeHead(204).end();
    return;
  }
  request.resume();
  request.on('end', () => {
    log.push({ id: String(request.headers['x-webhook-id'] ?? ''), from: request.socket.remoteAddress, at: Date.now() });
    const answer = () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
});
server.listen(Number(listen.slice(at + 1)), listen.slice(0, at), () => process.stdout.write(`receiver ${listen} ready\n`));
process.on('SIGTERM', () => process.exit(0));
