// A bare Fastify server with one route returning a constant: the floor under
// any Fastify API on this machine (baseline of the list API scenario).
import Fastify from 'fastify';
import { serveChild } from '../lib/child-protocol.js';

const CONSTANT = { meta: { page: { limit: 20, offset: 0, count: 0, max_limit: 100 } }, results: [] };
const app = Fastify({ logger: false });
app.get('/constant', async () => CONSTANT);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
serveChild({ port: typeof address === 'object' && address ? address.port : 0 }, {}, () => app.close());
