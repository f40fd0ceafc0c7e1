import { readFileSync } from 'node:fs';
import { buildSellerApp } from './app.js';

// Entry point: configuration from the environment, in this one place.
const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};
const port = Number(env('PORT', '3000'));
const tlsKey = process.env.TLS_KEY_FILE;
const tlsCert = process.env.TLS_CERT_FILE;
const app = await buildSellerApp({
  platformUrl: env('FEIRA_URL', 'https://127.0.0.1:8080'),
  clientId: env('FEIRA_CLIENT_ID'),
  clientSecret: env('FEIRA_CLIENT_SECRET'),
  webhookUrl: env('WEBHOOK_URL', `https://127.0.0.1:${port}/hooks`),
  tokenFile: env('TOKEN_FILE', './.seller-app/tokens.json'),
  fastify: {
    logger: true,
    ...(tlsKey && tlsCert ? { https: { key: readFileSync(tlsKey, 'utf8'), cert: readFileSync(tlsCert, 'utf8') } } : {}),
  },
});
await app.listen({ port, host: env('HOST', '127.0.0.1') });
