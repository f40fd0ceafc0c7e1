import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isTopic, TOPIC_NAMES, type WebhookSignupResponse } from '@feira/contract';
import { FeiraApiError, FeiraClient } from '@feira/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { AdminApi, AdminApiError } from '../sandbox/admin-api.js';
import { findSandbox, NoSandboxError, type Sandbox, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';
import { issueLeafCertificate, LOCAL_CA_CERT_FILE, LOCAL_CA_KEY_FILE } from '../sandbox/local-ca.js';
import { processIsAlive, readJsonFile, writePrivateFile } from '../sandbox/private-file.js';
import { stopSignal } from '../stop-signals.js';
import { storedAccessToken } from './login.js';

// `feira listen --forward-to <url>`, like `stripe listen`: subscribes
// a local receiver to the sandbox's webhooks for the token's client and tenant,
// then forwards every delivery to the developer's app byte for byte, with its
// headers (so the app verifies the platform's real signature), and prints one
// line per event with the app's answer. The app's status is passed back to the
// platform, so a failing app sees the platform's real retries (spec-notes W4).

interface ListenOptions extends SandboxFlags {
  forwardTo: string;
  accessToken?: string;
  tenant?: string;
  topics?: string[];
  webhookVersion: 'v0' | 'v1';
  tlsCert?: string;
  tlsKey?: string;
  host: string;
  port: number;
  json?: boolean;
  printSecretsJson?: boolean;
}

/** Where the running `feira listen` keeps its secrets for a local receiver (examples/webhook-receiver reads it), 0600. */
const WEBHOOK_SECRETS_FILE = 'webhook-secrets.json';

/** What WEBHOOK_SECRETS_FILE and --print-secrets-json hold: each secret with its store and topic. */
interface ListenSecrets {
  receiver_url: string;
  forward_to: string;
  secrets: Array<{ subscription_id: string; tenant_id: string | null; store: string | null; topic: string; secret: string }>;
}

/**
 * `--forward-to`: an http(s) URL; one written without a scheme (`localhost:4000/hooks`)
 * is taken as http://, as curl does, rather than accepted and failing every delivery.
 */
export function forwardTarget(value: string): string {
  // A scheme is a name and a colon not followed by a port's digit (`localhost:4000` has none): `htp:/bad`
  // and `http:/bad` are mistyped URLs, refused rather than read as the host `htp` or `http`.
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(value)?.[1];
  if (scheme !== undefined && !/^https?$/i.test(scheme))
    throw new InvalidArgumentError(`must be an http:// or https:// URL, not ${scheme}: (e.g. http://127.0.0.1:4000/hooks)`);
  if (scheme !== undefined && !/^[a-z]+:\/\/[^/]/i.test(value))
    throw new InvalidArgumentError(`must be written ${scheme.toLowerCase()}://host:port/path (got "${value}")`);
  const withScheme = scheme !== undefined ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InvalidArgumentError('must be a URL such as http://127.0.0.1:4000/hooks');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError(`must be an http:// or https:// URL, not ${url.protocol}`);
  return url.toString();
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
  // Pass the app's answer back, so the platform retries what the app failed (spec-notes W4).
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

/** What a running `feira listen` signed up, kept in the data folder so the next one can remove it if this one is killed. */
interface ListenRecord {
  pid: number;
  receiver_url: string;
  subscriptions: Array<{ id: string; url: string }>;
}

const LISTEN_RECORD = /^listen-(\d+)\.json$/;

/** Disables subscriptions through the admin API; ids not found (a reset database) are already gone. */
async function disableSubscriptions(admin: AdminApi, ids: string[]): Promise<number> {
  let disabled = 0;
  for (const id of ids) {
    try {
      await admin.send('POST', `/admin/webhooks/subscriptions/${encodeURIComponent(id)}/disable`);
      disabled++;
    } catch (error) {
      if (!(error instanceof AdminApiError && error.status === 404)) throw error;
    }
  }
  return disabled;
}

/**
 * Subscriptions left by a `feira listen` that did not stop cleanly (killed, a
 * crash): disabled if they still point at its dead receiver (a later signup may
 * have moved them elsewhere: those are left alone).
 */
async function removeStaleSubscriptions(sandbox: Sandbox, admin: AdminApi): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(sandbox.dataDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const match = LISTEN_RECORD.exec(name);
    if (!match || processIsAlive(Number(match[1]))) continue;
    const path = `${sandbox.dataDir}/${name}`;
    const record = readJsonFile<ListenRecord>(path);
    const stale: string[] = [];
    for (const subscription of record?.subscriptions ?? []) {
      const page = (await admin.get(`/admin/webhooks/subscriptions?id=${encodeURIComponent(subscription.id)}&state=active`)) as {
        results: Array<{ url: string }>;
      };
      if (page.results[0]?.url === subscription.url) stale.push(subscription.id);
    }
    removed += await disableSubscriptions(admin, stale);
    rmSync(path, { force: true });
  }
  return removed;
}

/** The receiver's certificate: the flags' files, else one issued now by the sandbox's local CA. */
function receiverCertificate(options: ListenOptions, sandbox: Sandbox): { cert: string; key: string } {
  if (options.tlsCert && options.tlsKey)
    return { cert: readFileSync(options.tlsCert, 'utf8'), key: readFileSync(options.tlsKey, 'utf8') };
  let ca: { certPem: string; keyPem: string };
  try {
    ca = {
      certPem: readFileSync(`${sandbox.dataDir}/${LOCAL_CA_CERT_FILE}`, 'utf8'),
      keyPem: readFileSync(`${sandbox.dataDir}/${LOCAL_CA_KEY_FILE}`, 'utf8'),
    };
  } catch {
    throw new ListenError(
      `v1 deliveries need HTTPS and ${sandbox.dataDir} holds no local CA (a sandbox-mode \`feira start\` makes one): pass --tls-cert and --tls-key of a certificate the sandbox trusts, or use --webhook-version v0`,
    );
  }
  const leaf = issueLeafCertificate(ca);
  return { cert: leaf.certPem, key: leaf.keyPem };
}

/** How often a running listen checks that its subscriptions still point at it. */
const REPOINT_CHECK_MS = 2000;

/**
 * Another signup by the same client for the same store and topic (the README's
 * signup example, an app of yours using the demo client) moves the one
 * subscription elsewhere: deliveries stop coming here. Said once per
 * subscription, as soon as it is seen, rather than left to silence.
 */
function watchRepointing(
  admin: AdminApi,
  subscriptions: WebhookSignupResponse['subscriptions'],
  receiverUrl: string,
  labels: Array<{ id: string; store: string | null; tenant_id: string | null; topic: string }>,
  json: boolean,
): { stop(): void } {
  const told = new Set<string>();
  const ids = subscriptions.map((s) => s.id);
  let checking = false;
  const check = async () => {
    if (checking || ids.length === 0) return;
    checking = true;
    try {
      const page = (await admin.get(
        `/admin/webhooks/subscriptions?id__in=${ids.map(encodeURIComponent).join(',')}&_limit=100`,
      )) as { results: Array<{ id: string; url: string; state: string }> };
      for (const s of page.results) {
        if (told.has(s.id) || (s.url === receiverUrl && s.state === 'active')) continue;
        told.add(s.id);
        const label = labels.find((l) => l.id === s.id);
        const where = `${label?.store ?? label?.tenant_id ?? 'a store'}, ${label?.topic ?? '?'}`;
        if (json) console.log(JSON.stringify({ type: 'repointed', subscription_id: s.id, url: s.url, state: s.state }));
        else if (s.url !== receiverUrl)
          console.log(
            `Subscription ${s.id} (${where}) now points at ${s.url}: another signup of this client re-pointed it, so its events no longer come here. Run feira listen again to take it back.`,
          );
        else console.log(`Subscription ${s.id} (${where}) was disabled: its events no longer come here.`);
      }
    } catch {
      // The sandbox may be restarting; the next check says what changed.
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), REPOINT_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

async function listen(options: ListenOptions) {
  const sandbox = findSandbox(options);
  const explicitToken = options.accessToken;
  const login = explicitToken
    ? undefined
    : await storedAccessToken(options).catch((error: Error) => {
        throw new ListenError(`${error.message} (or pass --access-token)`);
      });
  const accessToken = explicitToken ?? login?.token ?? '';
  // With the stored login, every store the seller picked; with a token, the one --tenant names (or the token's only one).
  const tenants: Array<string | undefined> = options.tenant
    ? [options.tenant]
    : login?.tenants.length
      ? login.tenants
      : [undefined];
  const admin = sandbox.adminToken ? new AdminApi(sandbox.url, sandbox.adminToken) : undefined;
  const tls = options.webhookVersion === 'v1';
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
  const server = tls ? createHttpsServer(receiverCertificate(options, sandbox), handler) : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const receiverUrl = `${tls ? 'https' : 'http'}://${host}:${port}/`;
  const stale = admin
    ? await removeStaleSubscriptions(sandbox, admin).catch((error: Error) => {
        console.error(`feira listen: could not check for subscriptions left by an earlier listen: ${error.message}`);
        return 0;
      })
    : 0;

  const signedUp: WebhookSignupResponse['subscriptions'] = [];
  const tenantOf = new Map<string, string | undefined>();
  const recordPath = `${sandbox.dataDir}/listen-${process.pid}.json`;
  try {
    for (const tenant of tenants) {
      const api = new FeiraClient({ baseUrl: sandbox.url, accessToken, ...(tenant ? { tenantId: tenant } : {}) });
      const signup = await api.request<WebhookSignupResponse>('PUT', `/${options.webhookVersion}/onboarding/signup`, {
        body: { webhook: receiverUrl, ...(options.topics ? { topics: options.topics } : {}) },
      });
      signedUp.push(...signup.subscriptions);
      for (const s of signup.subscriptions) tenantOf.set(s.id, tenant);
      const record: ListenRecord = {
        pid: process.pid,
        receiver_url: receiverUrl,
        subscriptions: signedUp.map((s) => ({ id: s.id, url: s.parameters.url })),
      };
      writePrivateFile(recordPath, `${JSON.stringify(record, null, 2)}\n`);
    }
  } catch (error) {
    server.close();
    if (admin)
      await disableSubscriptions(
        admin,
        signedUp.map((s) => s.id),
      ).catch(() => 0);
    rmSync(recordPath, { force: true });
    if (error instanceof FeiraApiError && error.status === 401 && !explicitToken)
      throw new ListenError(`the sandbox does not accept the stored login (${error.message}): run npx feira login`);
    if (error instanceof FeiraApiError) throw new ListenError(`the sandbox refused the signup: ${error.message}`);
    throw new ListenError(`cannot reach the sandbox at ${sandbox.url} (is \`npx feira start\` running?)`);
  }
  const storeNames = new Map((login?.stores ?? []).map((t) => [t.id, t.name]));
  const secrets = signedUp.map((s) => {
    const tenant = tenantOf.get(s.id) ?? null;
    return {
      id: s.id,
      tenant_id: tenant,
      store: (tenant && storeNames.get(tenant)) ?? null,
      topic: s.topic,
      secret: s.parameters.secret ?? null,
    };
  });
  const secretsPath = `${sandbox.dataDir}/${WEBHOOK_SECRETS_FILE}`;
  const kept: ListenSecrets = {
    receiver_url: receiverUrl,
    forward_to: options.forwardTo,
    secrets: secrets.flatMap((s) =>
      s.secret ? [{ subscription_id: s.id, tenant_id: s.tenant_id, store: s.store, topic: s.topic, secret: s.secret }] : [],
    ),
  };
  if (tls) writePrivateFile(secretsPath, `${JSON.stringify(kept, null, 2)}\n`);
  // Listened for before the ready line: a SIGTERM sent on reading it must find the handler.
  const stopped = stopSignal('feira listen', 'the subscriptions stay active until the next feira listen removes them');
  if (options.json) {
    console.log(
      JSON.stringify({
        type: 'ready',
        receiver_url: receiverUrl,
        forward_to: options.forwardTo,
        stale_removed: stale,
        subscriptions: secrets,
      }),
    );
  } else {
    if (stale > 0) console.log(`Removed ${stale} subscription(s) left by an earlier feira listen that did not stop cleanly.`);
    console.log(`Ready. Receiving ${options.webhookVersion} deliveries at ${receiverUrl}, forwarding to ${options.forwardTo}.`);
    const storeWidth = Math.max(5, ...secrets.map((s) => (s.store ?? s.tenant_id ?? '-').length));
    console.log(`  ${'store'.padEnd(storeWidth)}  ${'topic'.padEnd(21)} secret`);
    for (const s of secrets)
      console.log(
        `  ${(s.store ?? s.tenant_id ?? '-').padEnd(storeWidth)}  ${s.topic.padEnd(21)} ${s.secret ? `signing secret ${s.secret}` : 'unsigned (v0)'}`,
      );
    if (tls) console.log(`Secrets kept in ${secretsPath} (examples/webhook-receiver verifies with them).`);
    console.log('Verify with these secrets (verifyWebhook accepts several). Ctrl-C to stop and remove the subscriptions.');
  }
  if (options.printSecretsJson) console.log(JSON.stringify(kept));
  const watch = admin ? watchRepointing(admin, signedUp, receiverUrl, secrets, options.json === true) : undefined;
  await stopped;
  watch?.stop();
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  // Ctrl-C: later events must not be queued for a receiver that is gone.
  if (admin) {
    const removed = await disableSubscriptions(
      admin,
      signedUp.map((s) => s.id),
    );
    rmSync(recordPath, { force: true });
    if (readJsonFile<ListenSecrets>(secretsPath)?.receiver_url === receiverUrl) rmSync(secretsPath, { force: true });
    if (options.json) console.log(JSON.stringify({ type: 'stopped', subscriptions_removed: removed }));
    else console.log(`Stopped; ${removed} subscription(s) removed.`);
  } else {
    console.error('feira listen: no admin token in the data folder, so the subscriptions stay active (set FEIRA_ADMIN_TOKEN)');
  }
}

export function register(program: Command): void {
  const command = program
    .command('listen')
    .description("Subscribe to the sandbox's webhooks and forward each delivery, byte for byte with its headers, to your app")
    .requiredOption(
      '--forward-to <url>',
      'your webhook endpoint, e.g. http://127.0.0.1:4000/hooks (no scheme: http://)',
      forwardTarget,
    )
    .option(
      '--access-token <token>',
      'a seller access token with open:webhook:write (env FEIRA_ACCESS_TOKEN; default: the `feira login` one)',
    )
    .option('--tenant <id>', 'the store to subscribe (default: every store of the login), sent as X-Tenant-Id')
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
    .option(
      '--tls-cert <path>',
      "PEM certificate of the local receiver (v1; env FEIRA_LISTEN_TLS_CERT; default: one from the sandbox's local CA)",
    )
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
    .option(
      '--print-secrets-json',
      `print the signing secrets once ready as one JSON line ({receiver_url, forward_to, secrets: [{store, topic, secret, …}]}), as kept in <data-dir>/${WEBHOOK_SECRETS_FILE}`,
    );
  sandboxOptions(command).action(async (raw: ListenOptions) => {
    const options: ListenOptions = {
      ...raw,
      accessToken: raw.accessToken ?? process.env.FEIRA_ACCESS_TOKEN,
      tlsCert: raw.tlsCert ?? process.env.FEIRA_LISTEN_TLS_CERT,
      tlsKey: raw.tlsKey ?? process.env.FEIRA_LISTEN_TLS_KEY,
    };
    try {
      await listen(options);
    } catch (error) {
      if (!(error instanceof ListenError || error instanceof NoSandboxError || error instanceof AdminApiError)) throw error;
      console.error(`feira listen: ${error.message}`);
      process.exitCode = 1;
    }
  });
}
