import { SCOPE_NAMES } from '@feira/contract';
import Converter from 'openapi-to-postmanv2';

/**
 * The Postman collection, generated from the served OpenAPI document by
 * Postman's own converter (openapi-to-postmanv2), then made runnable from top
 * to bottom (newman included): a sign-in folder first that creates a seller
 * and an app through the admin API and walks the authorization code flow
 * through the login pages (newman keeps the cookies) to an `accessToken`; then
 * every operation in an order where each request finds what it uses (records
 * before their reads, a subscription before its deliveries, tables before
 * quotes), deletions last. Path parameters are variables (`{{tenantId}}`,
 * `{{orderId}}` …) that earlier requests set; each request has one test, the
 * status its operation documents.
 */

type Json = Record<string, unknown>;
type Variable = { key: string; value: string; type?: string; disabled?: boolean; description?: unknown };
type Script = { listen: 'test' | 'prerequest'; script: { type: 'text/javascript'; exec: string[] } };
type Request = {
  method: string;
  url: string | { raw?: string; host?: string[]; path?: string[]; query?: Variable[]; variable?: Variable[] };
  header?: Variable[];
  body?: Json;
  auth?: Json;
  description?: unknown;
};
export type Item = {
  name: string;
  item?: Item[];
  id?: string;
  request?: Request;
  response?: unknown[];
  event?: Script[];
  protocolProfileBehavior?: Json;
};
type Operation = {
  operationId: string;
  summary?: string;
  responses: Record<string, unknown>;
  security?: Array<Json>;
  requestBody?: { content: Record<string, { example?: unknown }> };
};
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** How one operation is called in the collection: its phase (run order), values, body and the status it must answer. */
interface Fixture {
  phase: number;
  path?: Record<string, string>;
  query?: Record<string, string>;
  json?: unknown;
  raw?: { type: string; body: string };
  status?: number;
  /** Test-script lines run on a passing answer (`json` is the parsed body): they set variables later requests use. */
  save?: string[];
  pre?: string[];
  headers?: Record<string, string>;
}

/**
 * A fixture body that is the operation's documented example, its `example`
 * tags replaced by `{{runTag}}` (set per run) so a second run against the
 * same platform creates new unique values (SKUs) instead of conflicting.
 */
const DOCUMENTED_EXAMPLE = Symbol('the documented example');
/**
 * The record kinds' operations, found in the document: each collection
 * `/admin/v1/tenants/{tenant_id}/<table>` whose POST is `adminCreate<Name>`.
 * Their bodies are the operations' documented examples (the kinds' trigger
 * bodies, D42); the record made is `{{<name>Id}}` for the reads, changes and
 * deletion.
 */
function kindFixtures(doc: OpenApiDocument): Record<string, Fixture> {
  const fixtures: Record<string, Fixture> = {};
  const tenant = { tenant_id: '{{tenantId}}' };
  for (const [path, ops] of Object.entries(doc.paths)) {
    const table = /^\/admin\/v1\/tenants\/\{tenant_id\}\/([a-z_]+)$/.exec(path)?.[1];
    const Name = /^adminCreate(\w+)$/.exec(ops.post?.operationId ?? '')?.[1];
    if (!table || !Name) continue;
    const id = `${Name.charAt(0).toLowerCase()}${Name.slice(1)}Id`;
    const save = [`pm.collectionVariables.set('${id}', json.id);`];
    if (table === 'products') save.push(`pm.collectionVariables.set('productSku', json.sku);`);
    fixtures[`adminCreate${Name}`] = { phase: 20, path: tenant, json: DOCUMENTED_EXAMPLE, save };
    fixtures[`adminUpdate${Name}`] = { phase: 21, path: { ...tenant, id: `{{${id}}}` }, json: DOCUMENTED_EXAMPLE };
    fixtures[`adminList${Name}s`] = { phase: 22, path: tenant };
    fixtures[`list${Name}s`] = { phase: 30 };
    fixtures[`get${Name}`] = { phase: 30, path: { id: `{{${id}}}` } };
    fixtures[`adminDelete${Name}`] = { phase: 90, path: { ...tenant, id: `{{${id}}}` } };
  }
  return fixtures;
}

const SPREADSHEET_TYPE = 'text/csv';

/** Every operation's fixture; an operation missing here fails the generator, so a new route is placed on purpose. */
function fixtures(doc: OpenApiDocument): Record<string, Fixture> {
  const example = (path: string) => {
    const content = (doc.paths[path]?.put as { requestBody?: { content: Record<string, { example?: string }> } } | undefined)
      ?.requestBody?.content[SPREADSHEET_TYPE];
    return content?.example ?? '';
  };
  const csv = { type: SPREADSHEET_TYPE, body: example('/admin/v1/tenants/{tenant_id}/shipping/freight-tables/{table_id}') };
  const tenant = { tenant_id: '{{tenantId}}' };
  return {
    getHealth: { phase: 1 },
    getLiveness: { phase: 1 },
    getReadiness: { phase: 1 },
    getAuthorizationServerMetadata: { phase: 1 },
    getJwks: { phase: 1 },
    getOpenIdConfiguration: { phase: 1 },
    getUserInfo: { phase: 10 },
    adminCreateSeller: {
      phase: 2,
      pre: [
        `pm.collectionVariables.set('runTag', 'run' + Date.now());`,
        `pm.collectionVariables.set('sellerLogin', 'postman-' + Date.now() + '@loja.example');`,
      ],
      json: { name: 'Loja Postman', login: '{{sellerLogin}}', password: '{{sellerPassword}}', tenants: [{ name: 'Loja 1' }] },
      save: [`pm.collectionVariables.set('sellerId', json.id);`, `pm.collectionVariables.set('tenantId', json.tenants[0].id);`],
    },
    adminCreateClient: {
      phase: 3,
      json: { name: 'Postman', redirect_uris: ['{{redirectUri}}'], scopes: [...SCOPE_NAMES], default_scopes: [] },
      save: [
        `pm.collectionVariables.set('clientId', json.client_id);`,
        `pm.collectionVariables.set('clientSecret', json.client_secret);`,
      ],
    },
    // 4–8: the sign-in folder (signInItems)
    createToken: {
      phase: 9,
      json: { grant_type: 'authorization_code', code: '{{code}}', redirect_uri: '{{redirectUri}}' },
      save: [
        `pm.collectionVariables.set('accessToken', json.access_token);`,
        `pm.collectionVariables.set('refreshToken', json.refresh_token);`,
      ],
    },
    introspectToken: { phase: 10, json: { token: '{{accessToken}}' } },
    adminListSellers: { phase: 11 },
    adminGetSeller: { phase: 11, path: { id: '{{sellerId}}' } },
    adminUpdateSeller: { phase: 11, path: { id: '{{sellerId}}' }, json: { name: 'Loja Postman Ltda' } },
    adminAddStore: {
      phase: 11,
      path: { id: '{{sellerId}}' },
      json: { name: 'Loja 2' },
      // The answer is the seller with every store: the new one is named as sent.
      save: [`pm.collectionVariables.set('store2Id', json.tenants.find((t) => t.name === 'Loja 2').id);`],
    },
    adminDeleteStore: { phase: 89, path: { id: '{{sellerId}}', tenantId: '{{store2Id}}' } },
    adminRenameStore: { phase: 12, path: { id: '{{sellerId}}', tenantId: '{{store2Id}}' }, json: { name: 'Loja 2 (Centro)' } },
    adminListClients: { phase: 11 },
    adminGetClient: { phase: 11, path: { id: '{{clientId}}' } },
    adminUpdateClient: {
      phase: 11,
      path: { id: '{{clientId}}' },
      json: { rate_limit: { requests_per_second: 100, burst: 1000 } },
    },
    adminGetClock: { phase: 11 },
    adminListSigningKeys: { phase: 11 },
    adminSecretKeyStatus: { phase: 11 },
    signupWebhooksV0: { phase: 15, json: { webhook: 'https://hooks.loja.example/feira/v0', topics: ['order'] } },
    signupWebhooksV1: { phase: 15, json: { webhook: 'https://hooks.loja.example/feira', topics: ['order', 'product'] } },
    ...kindFixtures(doc),
    adminListWebhookSubscriptions: {
      phase: 40,
      save: [`pm.collectionVariables.set('subscriptionId', json.results[0].id);`],
    },
    adminListWebhookDeliveries: {
      phase: 40,
      save: [`pm.collectionVariables.set('deliveryId', json.results[0].id);`],
    },
    adminGetWebhookDelivery: { phase: 41, path: { id: '{{deliveryId}}' } },
    adminRedeliverWebhook: { phase: 41, path: { id: '{{deliveryId}}' } },
    listSellerWebhookSubscriptions: { phase: 41 },
    listSellerWebhookDeliveries: { phase: 41 },
    getSellerWebhookDelivery: { phase: 41, path: { id: '{{deliveryId}}' } },
    redeliverSellerWebhookDelivery: { phase: 41, path: { id: '{{deliveryId}}' } },
    redeliverFailedSellerWebhookDeliveries: { phase: 41, json: { since: '2020-01-01T00:00:00Z' } },
    adminDisableWebhookSubscription: { phase: 42, path: { id: '{{subscriptionId}}' } },
    putShippingGateway: {
      phase: 50,
      path: { gateway_id: 'transportadora' },
      // The sandbox takes a loopback URL; it must resolve (a production gateway is HTTPS on a public address).
      json: { name: 'Transportadora', url: '{{baseUrl}}/demo/quote' },
    },
    getShippingGateway: { phase: 51, path: { gateway_id: 'transportadora' } },
    putStoreFreightTable: {
      phase: 50,
      path: { ...tenant, table_id: 'normal' },
      query: { name: 'Normal' },
      raw: csv,
      status: 201,
    },
    getStoreFreightTable: { phase: 51, path: { ...tenant, table_id: 'normal' } },
    listStoreFreightTables: { phase: 51, path: tenant },
    putDeliveryServiceFreightTable: {
      phase: 50,
      path: { table_id: 'marketplace' },
      query: { name: 'Entrega Feira' },
      raw: csv,
      status: 201,
    },
    getDeliveryServiceFreightTable: { phase: 51, path: { table_id: 'marketplace' } },
    listDeliveryServiceFreightTables: { phase: 51 },
    putSellerFreightTable: {
      phase: 50,
      path: { ...tenant, table_id: 'expressa' },
      query: { name: 'Expressa' },
      raw: csv,
      status: 201,
      headers: { 'X-CSRF-Token': '{{csrf}}' },
    },
    getSellerFreightTable: { phase: 51, path: { ...tenant, table_id: 'expressa' } },
    listSellerFreightTables: { phase: 51, path: tenant },
    adminSetShippingMethod: {
      phase: 52,
      path: tenant,
      json: { method: 'freight_table', distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }] },
    },
    adminGetShippingMethod: { phase: 53, path: tenant },
    createStorefrontQuote: {
      phase: 60,
      json: { tenant_id: '{{tenantId}}', zipcode: '01310100', items: [{ sku: '{{productSku}}', quantity: 1 }] },
    },
    createCheckout: {
      phase: 61,
      json: {
        tenant_id: '{{tenantId}}',
        zipcode: '01310100',
        items: [{ sku: '{{productSku}}', quantity: 1 }],
        choice: 'cheapest',
      },
    },
    adminPreviewShippingQuote: {
      phase: 60,
      path: tenant,
      json: { zipcode: '01310100', items: [{ sku: '{{productSku}}', quantity: 1 }] },
    },
    sellerPreviewShippingQuote: {
      phase: 60,
      path: tenant,
      json: { zipcode: '01310100', items: [{ sku: '{{productSku}}', quantity: 1 }] },
      headers: { 'X-CSRF-Token': '{{csrf}}' },
    },
    adminListQuoteCalls: { phase: 62, path: tenant },
    listSellerQuoteCalls: { phase: 62 },
    getSellerQuoteStats: { phase: 62, query: { tenant_id: '{{tenantId}}' } },
    deleteStoreFreightTable: { phase: 90, path: { ...tenant, table_id: 'normal' } },
    deleteDeliveryServiceFreightTable: { phase: 90, path: { table_id: 'marketplace' } },
    deleteSellerFreightTable: { phase: 90, path: { ...tenant, table_id: 'expressa' }, headers: { 'X-CSRF-Token': '{{csrf}}' } },
    revokeToken: { phase: 95, json: { token: '{{refreshToken}}' } },
    adminDeleteClient: { phase: 98, path: { id: '{{clientId}}' } },
    // Near the end: the new key signs only after the publish delay, so nothing before it changes.
    adminRotateSigningKey: { phase: 98 },
    adminDeleteSeller: { phase: 99, path: { id: '{{sellerId}}' } },
    // Last, and by a second: tokens the collection holds stay valid whatever runs after.
    adminAdvanceClock: { phase: 99, json: { duration: '1s' } },
  };
}

/** Test-script lines that read the hidden fields of the form posting to `action` into the `form` variable (as a JSON object). */
function readForm(action: string): string[] {
  return [
    `const html = pm.response.text();`,
    `const decode = (s) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');`,
    `const form = [...html.matchAll(/<form\\b[^>]*action="([^"]*)"[^>]*>([\\s\\S]*?)<\\/form>/g)].find((f) => f[1] === '${action}');`,
    `const fields = [];`,
    `for (const input of (form ? form[2] : '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields.push([decode(input[1]), decode(input[2])]);`,
    `pm.collectionVariables.set('form', JSON.stringify(fields));`,
    `const csrf = fields.find((f) => f[0] === 'csrf');`,
    `if (csrf) pm.collectionVariables.set('csrf', csrf[1]);`,
  ];
}

/** Pre-request lines that build `formBody` (urlencoded) from the saved hidden fields plus `extra` pairs. */
function buildForm(extra: Array<[string, string]>): string[] {
  return [
    `const fields = JSON.parse(pm.collectionVariables.get('form') || '[]');`,
    `const extra = ${JSON.stringify(extra)}.map(([k, v]) => [k, pm.variables.replaceIn(v)]);`,
    `pm.collectionVariables.set('formBody', fields.concat(extra).map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&'));`,
  ];
}

function statusTest(status: number, label: string, save: string[] = []): Script {
  return {
    listen: 'test',
    script: {
      type: 'text/javascript',
      exec: [
        `pm.test('${label} answers ${status} as documented', () => pm.response.to.have.status(${status}));`,
        ...(save.length > 0
          ? [
              'if (pm.response.code === ' + status + ') {',
              '  const json = pm.response.json();',
              ...save.map((l) => `  ${l}`),
              '}',
            ]
          : []),
      ],
    },
  };
}

function formPost(name: string, action: string, extra: Array<[string, string]>, status: number, after: string[]): Item {
  return {
    name,
    event: [
      { listen: 'prerequest', script: { type: 'text/javascript', exec: buildForm(extra) } },
      {
        ...statusTest(status, name),
        script: { type: 'text/javascript', exec: [...statusTest(status, name).script.exec, ...after] },
      },
    ],
    protocolProfileBehavior: { followRedirects: status !== 303 },
    request: {
      method: 'POST',
      header: [{ key: 'Content-Type', value: 'application/x-www-form-urlencoded' }],
      body: { mode: 'raw', raw: '{{formBody}}' },
      url: `{{authUrl}}${action}`,
    },
  };
}

/** The sign-in folder: the authorization code flow through the login pages, as a browser would (newman keeps the cookies). */
function signInItems(): Item[] {
  const authorize =
    '/login?response_type=code&client_id={{clientId}}&redirect_uri={{redirectUri}}&state=postman&scope=' +
    // openid too (D46): the code exchange then gives an ID token and /userinfo answers.
    encodeURIComponent(['openid', ...SCOPE_NAMES].join(' '));
  return [
    {
      name: 'Sign in: the login page',
      event: [statusTest(200, 'The login page')].map((s) => ({
        ...s,
        script: { ...s.script, exec: [...s.script.exec, ...readForm('/login')] },
      })),
      request: { method: 'GET', url: `{{authUrl}}${authorize}` },
    },
    formPost(
      'Sign in: the seller signs in (then picks the store)',
      '/login',
      [
        ['login', '{{sellerLogin}}'],
        ['password', '{{sellerPassword}}'],
      ],
      200,
      readForm('/login/tenants'),
    ),
    formPost(
      'Sign in: the store (then the consent page)',
      '/login/tenants',
      [['tenant', '{{tenantId}}']],
      200,
      readForm('/consent'),
    ),
    formPost('Sign in: consent, back to the redirect URI with a code', '/consent', [['decision', 'approve']], 303, [
      `const location = pm.response.headers.get('Location') || '';`,
      `const match = /[?&]code=([^&]+)/.exec(location);`,
      `pm.test('the redirect carries a code', () => pm.expect(match).to.not.equal(null));`,
      `if (match) pm.collectionVariables.set('code', decodeURIComponent(match[1]));`,
    ]),
  ];
}

function documentedStatus(op: Operation): number {
  const codes = Object.keys(op.responses)
    .filter((c) => /^2\d\d$/.test(c))
    .map(Number)
    .sort();
  return codes[0] ?? 200;
}

/** Makes a converted collection runnable: values, bodies, auth, one test per request, run order. */
export function makeRunnable(collection: { item: Item[]; variable?: Variable[] }, doc: OpenApiDocument): void {
  const byRoute = new Map<string, Operation & { method: string; path: string }>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) byRoute.set(`${method.toUpperCase()} ${path}`, { ...op, method, path });
  }
  const table = fixtures(doc);
  const flat: Item[] = [];
  const walk = (items: Item[]) => {
    for (const item of items) item.item ? walk(item.item) : flat.push(item);
  };
  walk(collection.item);
  const placed: Array<{ phase: number; item: Item }> = [];
  for (const item of flat) {
    const request = item.request as Request & { url: Exclude<Request['url'], string> };
    const path = `/${(request.url.path ?? []).map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;
    const op = byRoute.get(`${request.method} ${path}`);
    if (!op) throw new Error(`no operation for ${request.method} ${path}`);
    const fixture = table[op.operationId];
    if (!fixture) {
      const unplaced = flat.map((i) => i.request).filter(Boolean).length;
      throw new Error(`no Postman fixture for ${op.operationId} (of ${unplaced} requests): place it in postman-generator.ts`);
    }
    item.name = `${op.operationId}: ${op.summary ?? ''}`.trim();
    for (const variable of request.url.variable ?? []) {
      variable.value = fixture.path?.[variable.key] ?? variable.value;
      if (variable.value.startsWith('<')) throw new Error(`${op.operationId}: no value for :${variable.key}`);
    }
    for (const param of request.url.query ?? []) {
      const value = fixture.query?.[param.key];
      param.disabled = value === undefined;
      param.value = value ?? '';
    }
    request.header = (request.header ?? []).filter((h) => h.key.toLowerCase() !== 'x-tenant-id' && h.key !== 'Accept');
    const security = Object.keys(op.security?.[0] ?? {})[0];
    if (security === 'feiraOAuth') request.header.push({ key: 'X-Tenant-Id', value: '{{tenantId}}' });
    for (const [key, value] of Object.entries(fixture.headers ?? {})) request.header.push({ key, value });
    if (fixture.raw) {
      request.body = { mode: 'raw', raw: fixture.raw.body };
    } else if (fixture.json === DOCUMENTED_EXAMPLE) {
      const example = op.requestBody?.content['application/json']?.example;
      if (example === undefined) throw new Error(`${op.operationId}: the document has no body example`);
      const raw = JSON.stringify(example, null, 2).replace(/\bexample\b/g, '{{runTag}}');
      request.body = { mode: 'raw', raw, options: { raw: { language: 'json' } } };
    } else if (fixture.json !== undefined) {
      request.body = { mode: 'raw', raw: JSON.stringify(fixture.json, null, 2), options: { raw: { language: 'json' } } };
    } else {
      delete request.body;
    }
    request.auth =
      security === 'feiraOAuth'
        ? { type: 'bearer', bearer: [{ key: 'token', value: '{{accessToken}}', type: 'string' }] }
        : security === 'adminToken'
          ? { type: 'bearer', bearer: [{ key: 'token', value: '{{adminToken}}', type: 'string' }] }
          : security === 'clientSecretBasic'
            ? {
                type: 'basic',
                basic: [
                  { key: 'username', value: '{{clientId}}', type: 'string' },
                  { key: 'password', value: '{{clientSecret}}', type: 'string' },
                ],
              }
            : { type: 'noauth' };
    item.event = [statusTest(fixture.status ?? documentedStatus(op), op.operationId, fixture.save)];
    if (fixture.pre) item.event.unshift({ listen: 'prerequest', script: { type: 'text/javascript', exec: fixture.pre } });
    placed.push({ phase: fixture.phase, item });
  }
  const missing = Object.keys(table).filter((id) => ![...byRoute.values()].some((op) => op.operationId === id));
  if (missing.length > 0) throw new Error(`fixtures for operations the document does not have: ${missing.join(', ')}`);
  placed.sort((a, b) => a.phase - b.phase);
  const folder = (name: string, from: number, to: number): Item => ({
    name,
    item: placed.filter((p) => p.phase >= from && p.phase < to).map((p) => p.item),
  });
  collection.item = [
    folder('1 · Platform and identity metadata', 0, 2),
    folder('2 · A seller and an app (admin API)', 2, 4),
    { name: '3 · Sign in (authorization code through the login pages)', item: signInItems() },
    folder('4 · The token', 9, 11),
    folder('5 · Accounts (admin API)', 11, 15),
    folder('6 · Webhook signup, then records (each write is an event)', 15, 30),
    folder('7 · Seller API', 30, 40),
    folder('8 · Webhook deliveries', 40, 50),
    folder('9 · Shipping: gateways, freight tables, method', 50, 60),
    folder('10 · Storefront: quote and checkout', 60, 90),
    folder('11 · Clean-up (deletions, revocation)', 90, 100),
  ];
  collection.variable = [
    { key: 'baseUrl', value: 'http://127.0.0.1:8080' },
    { key: 'authUrl', value: 'http://127.0.0.1:8080' },
    { key: 'adminToken', value: '' },
    { key: 'redirectUri', value: 'https://oauth.pstmn.io/v1/callback' },
    { key: 'sellerPassword', value: 'correct horse battery staple' },
    ...[
      'runTag',
      'sellerLogin',
      'sellerId',
      'tenantId',
      'store2Id',
      'clientId',
      'clientSecret',
      'code',
      'accessToken',
      'refreshToken',
      'csrf',
      'form',
      'formBody',
      'productId',
      'productSku',
      'orderId',
      'ticketId',
      'transactionId',
      'subscriptionId',
      'deliveryId',
    ].map((key) => ({ key, value: '' })),
  ];
}

/** Postman's converter over the document, then `makeRunnable`; no random ids, so the file in the repository is reproducible. */
export async function generateCollection(doc: OpenApiDocument): Promise<object> {
  const output = await new Promise<{ output: Array<{ data: { item: Item[]; variable?: Variable[]; info?: Json } }> }>(
    (resolve, reject) =>
      Converter.convertV2(
        // Without `pattern`: the converter draws random strings matching it, which would change the file on every run.
        { type: 'json', data: JSON.parse(JSON.stringify(doc, (key, value) => (key === 'pattern' ? undefined : value))) },
        { folderStrategy: 'Tags', requestParametersResolution: 'Schema', includeAuthInfoInExample: false },
        (error, result) => (error || !result?.result ? reject(error ?? new Error(result?.reason)) : resolve(result as never)),
      ),
  );
  const collection = output.output[0]!.data;
  const strip = (items: Item[]) => {
    for (const item of items) {
      delete item.id;
      delete item.response;
      if (item.item) strip(item.item);
    }
  };
  strip(collection.item);
  if (collection.info) delete collection.info._postman_id;
  delete (collection as { auth?: unknown }).auth;
  makeRunnable(collection, doc);
  return collection;
}
