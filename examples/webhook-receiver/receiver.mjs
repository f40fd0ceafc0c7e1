#!/usr/bin/env node
// A webhook receiver that verifies every delivery with the SDK's verifyWebhook,
// using the secrets `feira listen` keeps in the data folder. The first-event
// walk of the README ends here:
//
//   node examples/webhook-receiver/receiver.mjs                       # 127.0.0.1:4000/hooks
//   npx feira listen --forward-to http://127.0.0.1:4000/hooks          # another terminal
//   npx feira trigger order                                            # and another: "verified order CREATION …"
//
// Options: --port <n> (default 4000, env PORT), --secrets <file> (default
// ./.feira/webhook-secrets.json, env FEIRA_WEBHOOK_SECRETS_FILE: what
// `feira listen` writes, or save `feira listen --print-secrets-json` there).
// With FEIRA_WEBHOOK_SECRET set (one whsec_ secret, or several comma-separated)
// the file is not read: that is how your own app gets its secret in production.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { verifyWebhook, WebhookVerificationError } from '@feira/sdk';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4000' },
    host: { type: 'string', default: '127.0.0.1' },
    path: { type: 'string', default: '/hooks' },
    secrets: { type: 'string', default: process.env.FEIRA_WEBHOOK_SECRETS_FILE ?? '.feira/webhook-secrets.json' },
  },
});

/** The secrets to verify with: FEIRA_WEBHOOK_SECRET, else the file `feira listen` writes (read at each delivery: listen may start after this). */
function secrets() {
  if (process.env.FEIRA_WEBHOOK_SECRET) return process.env.FEIRA_WEBHOOK_SECRET.split(',').map((s) => s.trim());
  try {
    const kept = JSON.parse(readFileSync(values.secrets, 'utf8'));
    return kept.secrets.map((s) => s.secret);
  } catch {
    return [];
  }
}

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== values.path) {
    res.writeHead(404).end();
    return;
  }
  // Verify over the raw bytes, before parsing: the signature covers them exactly.
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const rawBody = Buffer.concat(chunks);
  const known = secrets();
  if (known.length === 0) {
    console.log(
      `not verified: no secrets yet (start \`npx feira listen\`, or set FEIRA_WEBHOOK_SECRET); ${values.secrets} is empty`,
    );
    res.writeHead(503).end();
    return;
  }
  try {
    const message = verifyWebhook({ rawBody, headers: req.headers, secrets: known });
    // X-Webhook-Id is the same on every retry of one delivery: de-duplicate on it.
    console.log(`verified ${message.topic} ${message.data.status} ${message.data.resource} [${req.headers['x-webhook-id']}]`);
    res.writeHead(204).end();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`rejected (${error.code}): ${error.message}`);
    res.writeHead(401).end();
  }
});

server.listen(Number(values.port), values.host, () => {
  const { port } = server.address();
  console.log(
    `Webhook receiver on http://${values.host}:${port}${values.path}, verifying with the secrets in ${process.env.FEIRA_WEBHOOK_SECRET ? 'FEIRA_WEBHOOK_SECRET' : values.secrets}`,
  );
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
