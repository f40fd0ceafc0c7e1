// A TCP forwarder that can add a round trip. Run inside a test host's network
// namespace: `node hosts/tcp-proxy.mjs <listen-host:port> <target-host:port> [control-host:port]`.
// Every chunk the target sends back is held for the current delay before it is
// passed on (setTimeout keeps chunks of one delay in order), so each request
// and answer exchange costs one added round trip of `delay` ms. With a control
// address, `PUT /delay?ms=N` changes the delay for the chunks that follow and
// `GET /delay` reads it. Plain JavaScript: it runs with the bare `node`.
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';

const [listen, target, control] = process.argv.slice(2);
if (!listen || !target) {
  process.stderr.write('usage: tcp-proxy.mjs <listen-host:port> <target-host:port> [control-host:port]\n');
  process.exit(2);
}
const split = (address) => {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
};
let delayMs = 0;
let connections = 0;

const server = createServer({ noDelay: true }, (client) => {
  connections += 1;
  const upstream = connect({ ...split(target), noDelay: true });
  const closeBoth = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', closeBoth);
  upstream.on('error', closeBoth);
  client.on('close', closeBoth);
  upstream.on('close', closeBoth);
  client.pipe(upstream);
  upstream.on('data', (chunk) => {
    if (delayMs === 0) client.write(chunk);
    else setTimeout(() => client.destroyed || client.write(chunk), delayMs);
  });
  upstream.on('end', () => setTimeout(() => client.end(), delayMs));
});
const { host, port } = split(listen);
server.listen(port, host, () => process.stdout.write(`proxy ${listen} -> ${target} ready\n`));

if (control) {
  const http = createHttpServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://control');
    if (url.pathname === '/delay' && request.method === 'PUT') {
      const ms = Number(url.searchParams.get('ms'));
      if (!Number.isFinite(ms) || ms < 0 || ms > 1000) return response.writeHead(400).end('ms: 0 to 1000\n');
      delayMs = ms;
    }
    if (url.pathname !== '/delay') return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ delayMs, connections }));
  });
  const c = split(control);
  http.listen(c.port, c.host);
}
process.on('SIGTERM', () => process.exit(0));
