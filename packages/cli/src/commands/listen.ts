import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isTopic, TOPIC_NAMES, type WebhookSignupResponse } from '@feira/contract';
import { FeiraApiError, FeiraClient } from '@feira/sdk';
import { type Command, InvalidArgumentError } from 'commander';

// `feira listen --forward-to <url>` (issue 7), like `stripe listen`: subscribes
// a local receiver to the sandbox's webhooks for the token's client and tenant,
// then forwards every delivery to the developer's app byte for byte, with its
// headers (so the app verifies the platform's real signature), and prints one
// line per event with the app's answer. The app's status is passed back to the
// platform, so a failing app sees the platform's real retries (SPEC-DECISIONS W4).

interface ListenOptions {
  forwardTo: string;
  accessToken?: string;
  tenant?: string;
  url: string;
  topics?: string[];
  webhookVersion: 'v0' | 'v1';
  tlsCert?: string;
  tlsKey?: string;
  host: string;
  port: number;
  json?: boolean;
}

/** Hop-by-hop and per-connection headers are not forwarded (RFC 9110 §7.6.1); everything else is, unchanged. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'te',
  'trailer',
]);

class ListenError extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function describe(body: Buffer): { topic: string; status: string; resource: string } {
  try {
    const message = JSON.parse(body.toString('utf8')) as { topic?: string; data?: { status?: string; resource?: string } };
    return { topic: message.topic ?? '?', status: message.data?.status ?? '?', resource: message.data?.resource ?? '?' };
  } catch {
    return { topic: '?', status: '?', resource: '(not JSON)' };
  }
}

async function forward(options: ListenOptions, req: IncomingMessage, res: ServerResponse, print: (line: object) => void) {
  const body = await readBody(req);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const started = performance.now();
  let receiverStatus: number | null = null;
  let error: string | null = null;
  try {
    const answer = await fetch(options.forwardTo, {
      method: req.method ?? 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    receiverStatus = answer.status;
    await answer.arrayBuffer();
  } catch (cause) {
    error = (cause as Error).name === 'TimeoutError' ? 'no answer within 10 s' : 'connection failed';
  }
  // Pass the app's answer back, so the platform retries what the app failed (SPEC-DECISIONS W4).
  res.writeHead(receiverStatus ?? 502).end();
  print({
    type: 'delivery',
    at: new Date().toISOString(),
    ...describe(body),
    webhook_id: headers['x-webhook-id'] ?? null,
    signed: headers['x-signature-256'] !== undefined,
    receiver_status: receiverStatus,
    error,
    latency_ms: Math.round(performance.now() - started),
  });
}

async function listen(options: ListenOptions) {
  if (!options.accessToken) {
    throw new ListenError(
      'no access token: pass --access-token or set FEIRA_ACCESS_TOKEN (a seller token with open:webhook:write)',
    );
  }
  const tls = options.webhookVersion === 'v1';
  if (tls && (!options.tlsCert || !options.tlsKey)) {
    throw new ListenError(
      'v1 deliveries need HTTPS: pass --tls-cert and --tls-key (a certificate for 127.0.0.1 whose CA the sandbox trusts: start it with --outbound-ca <ca.pem>), or use --webhook-version v0 for unsigned HTTP deliveries',
    );
  }
  const print = (line: object) => {
    if (options.json) {
      console.log(JSON.stringify(line));
      return;
    }
    const l = line as Record<string, unknown>;
    const outcome = l.receiver_status === null ? `✗ ${l.error}` : `→ ${l.receiver_status}`;
    console.log(
      `${l.at}  ${String(l.topic).padEnd(21)} ${String(l.status).padEnd(8)} ${l.resource}  [${l.webhook_id}]  ${outcome} (${l.latency_ms} ms)`,
    );
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    forward(options, req, res, print).catch(() => res.writeHead(500).end());
  };
  const server = tls
    ? createHttpsServer({ cert: readFileSync(options.tlsCert!), key: readFileSync(options.tlsKey!) }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const receiverUrl = `${tls ? 'https' : 'http'}://${host}:${port}/`;

  const api = new FeiraClient({
    baseUrl: options.url,
    accessToken: options.accessToken,
    ...(options.tenant ? { tenantId: options.tenant } : {}),
  });
  let signup: WebhookSignupResponse;
  try {
    signup = await api.request<WebhookSignupResponse>('PUT', `/${options.webhookVersion}/onboarding/signup`, {
      body: { webhook: receiverUrl, ...(options.topics ? { topics: options.topics } : {}) },
    });
  } catch (error) {
    server.close();
    if (error instanceof FeiraApiError) throw new ListenError(`the sandbox refused the signup: ${error.message}`);
    throw new ListenError(`cannot reach the sandbox at ${options.url} (is \`feira start\` running?)`);
  }
  const secrets = signup.subscriptions.map((s) => ({ topic: s.topic, secret: s.parameters.secret ?? null }));
  if (options.json) {
    console.log(
      JSON.stringify({ type: 'ready', receiver_url: receiverUrl, forward_to: options.forwardTo, subscriptions: secrets }),
    );
  } else {
    console.log(`Ready. Receiving ${options.webhookVersion} deliveries at ${receiverUrl}, forwarding to ${options.forwardTo}.`);
    for (const s of secrets) console.log(`  ${s.topic.padEnd(21)} ${s.secret ? `signing secret ${s.secret}` : 'unsigned (v0)'}`);
    console.log('Verify with these secrets (verifyWebhook accepts several). Ctrl-C to stop.');
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.closeAllConnections();
      server.close(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export function register(program: Command): void {
  program
    .command('listen')
    .description("Subscribe to the sandbox's webhooks and forward each delivery, byte for byte with its headers, to your app")
    .requiredOption('--forward-to <url>', 'your webhook endpoint, e.g. http://localhost:3000/hooks')
    .option('--access-token <token>', 'a seller access token with open:webhook:write (env FEIRA_ACCESS_TOKEN)')
    .option('--tenant <id>', 'the tenant to subscribe, sent as X-Tenant-Id (needed when the token has several)')
    .option('--url <url>', 'sandbox address (env FEIRA_URL)', process.env.FEIRA_URL ?? 'http://127.0.0.1:8080')
    .option(
      '--topics <topics>',
      `comma-separated topics (default: all the token may read): ${TOPIC_NAMES.join(', ')}`,
      (value: string) => {
        const topics = value.split(',').map((t) => t.trim());
        const unknown = topics.filter((t) => !isTopic(t));
        if (unknown.length > 0) throw new InvalidArgumentError(`unknown topic ${unknown.join(', ')}`);
        return topics;
      },
    )
    .option(
      '--webhook-version <v>',
      'v1 (signed, HTTPS) or v0 (unsigned, HTTP)',
      (value: string) => {
        if (value !== 'v0' && value !== 'v1') throw new InvalidArgumentError('must be v0 or v1');
        return value;
      },
      'v1',
    )
    .option('--tls-cert <path>', 'PEM certificate of the local receiver (v1; env FEIRA_LISTEN_TLS_CERT)')
    .option('--tls-key <path>', 'PEM private key of the local receiver (v1; env FEIRA_LISTEN_TLS_KEY)')
    .option('--host <host>', 'interface of the local receiver', '127.0.0.1')
    .option(
      '--port <port>',
      'port of the local receiver (0: any free one)',
      (value: string) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number');
        return n;
      },
      0,
    )
    .option('--json', 'one JSON object per line (a `ready` line with the secrets, then one `delivery` line per event)')
    .action(async (raw: ListenOptions) => {
      const options: ListenOptions = {
        ...raw,
        accessToken: raw.accessToken ?? process.env.FEIRA_ACCESS_TOKEN,
        tlsCert: raw.tlsCert ?? process.env.FEIRA_LISTEN_TLS_CERT,
        tlsKey: raw.tlsKey ?? process.env.FEIRA_LISTEN_TLS_KEY,
      };
      try {
        await listen(options);
      } catch (error) {
        if (!(error instanceof ListenError)) throw error;
        console.error(`feira listen: ${error.message}`);
        process.exitCode = 1;
      }
    });
}
