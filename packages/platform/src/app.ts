import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PlatformErrorBody, SCOPES } from '@feira/contract';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { adminRoutes } from './admin/admin-routes.js';
import { browserPages } from './browser-pages.js';
import type { ConsoleSection } from './console/console-section.js';
import { type Clock, systemClock } from './core/clock.js';
import type { PlatformConfig } from './core/config.js';
import { cryptoRandom, type Random } from './core/random.js';
import { SecretBox } from './core/secret-box.js';
import { clientErrorHandler } from './http/client-error.js';
import { installErrorHandlers, platformErrorHandler } from './http/error-handler.js';
import { createReadiness, healthRoutes } from './http/health-routes.js';
import { installHttpConventions, RouteMethods } from './http/http-conventions.js';
import { installJsonBodyParser } from './http/json-body-parser.js';
import { metricsRoute } from './http/metrics-route.js';
import { installNulGuard } from './http/nul-guard.js';
import {
  docsPageOptions,
  OPENAPI_TAGS,
  openapiJsonRoute,
  openapiObjectTransform,
  openapiRouteTransform,
} from './http/openapi-document.js';
import { openapiWebhooks, webhookComponentSchemas } from './http/openapi-webhooks.js';
import type { PlatformContext } from './http/platform-context.js';
import { postmanRoute } from './http/postman-route.js';
import { rootRoute } from './http/root-route.js';
import { installRouteCatalogue } from './http/route-catalogue.js';
import { sharedSchemaController } from './http/schema-compilers.js';
import { installUnavailableAnswers } from './http/service-unavailable.js';
import type { KeyRing } from './identity/index.js';
import { browserCors, createIdentityServices, identityRoutes } from './identity/index.js';
import { outboundPolicyOf } from './outbound/address-policy.js';
import { createOutboundAgent } from './outbound/outbound-agent.js';
import { BUILT_IN_RECORD_KINDS, type RecordKindRegistry, recordRoutes } from './records/index.js';
import type { QuoteLogWriterOptions, QuoteMethodRegistry } from './shipping/index.js';
import { createShippingServices, shippingRoutes } from './shipping/index.js';
import type { Database } from './storage/database.js';
import type { SandboxClock } from './storage/sandbox-clock.js';
import { webhookRoutes } from './webhooks/index.js';
import { sealedColumns } from './workers.js';

/** What buildApp needs (createPlatform passes it on). Only entry points pass real clocks and randomness; tests inject their own. */
export interface AppDeps {
  config: PlatformConfig;
  /** An open, migrated database. */
  database: Database;
  clock?: Clock;
  /** Sandbox mode: the movable clock createPlatform wrapped around `clock` (and passes as `clock` too). */
  sandboxClock?: SandboxClock;
  random?: Random;
  /** A pino logger, `false` for silence (the default), or `true` for pino's defaults. */
  logger?: FastifyBaseLogger | boolean;
  /** Outbound HTTP client (webhook deliveries, quote calls); defaults to the SSRF-guarded agent. */
  outbound?: Dispatcher;
  /** Extra CA certificates (PEM) trusted by the default outbound client. */
  outboundCa?: string | string[];
  keyRing?: KeyRing;
  /** How the quote log is batched (default: every 5 ms or 64 rows). */
  quoteLogBatch?: Partial<QuoteLogWriterOptions>;
  /** The quote methods stores may choose (default: the platform's, shipping/methods/index.ts). */
  quoteMethods?: QuoteMethodRegistry;
  /** The kinds of record it serves (default: the platform's, records/record-kinds.ts; D89). */
  recordKinds?: RecordKindRegistry;
  /** The console's sections, in navigation order (default: the platform's, console/console-sections.ts). */
  consoleSections?: readonly ConsoleSection[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The services every capability shares (http/platform-context.ts); the identity and shipping ones are built by their capability. */
export function createPlatformContext(deps: AppDeps): PlatformContext {
  return {
    config: deps.config,
    database: deps.database,
    clock: deps.clock ?? systemClock,
    ...(deps.sandboxClock ? { sandboxClock: deps.sandboxClock } : {}),
    random: deps.random ?? cryptoRandom,
    box: new SecretBox(deps.config.secretKey, deps.config.previousSecretKeys),
    outbound:
      deps.outbound ??
      createOutboundAgent({ policy: outboundPolicyOf(deps.config), ...(deps.outboundCa ? { ca: deps.outboundCa } : {}) }),
    metrics: new Registry(),
  };
}

/**
 * Builds the HTTP app: every capability's routes on one Fastify instance, over
 * an open, migrated database. The composition root (platform.ts) calls it for
 * the api role; it opens nothing and listens nowhere itself.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const platform = createPlatformContext(deps);
  const app = Fastify({
    ...(typeof deps.logger === 'object' ? { loggerInstance: deps.logger } : { logger: deps.logger ?? false }),
    bodyLimit: deps.config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : platform.random.uuid();
    },
    // One pair of schema compilers for every app of the process (http/schema-compilers.ts).
    schemaController: sharedSchemaController,
    ajv: {
      // Bodies are validated as sent: no type coercion, no silent removal of unknown fields.
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true },
    },
    // Only the named proxies may say who the client is (X-Forwarded-For): the per-address throttles count that address.
    trustProxy: deps.config.trustProxy && deps.config.trustProxy.length > 0 ? [...deps.config.trustProxy] : false,
    // Refusals made before a route runs answer in the platform error shape too (docs/security.md, error leaks).
    clientErrorHandler: clientErrorHandler(platform.random),
    // A closing app answers with its own 503, in the error shape and with Retry-After (http/service-unavailable.ts).
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
      platformErrorHandler(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('platform', platform);
  const identity = await createIdentityServices(platform, {
    ...(deps.keyRing ? { keyRing: deps.keyRing } : {}),
    log: app.log,
  });
  app.decorate('identity', identity);
  // The key ring's reloads stop with the app (a key ring a test passed in is the test's to stop).
  if (!deps.keyRing) app.addHook('onClose', async () => identity.keyRing.stop());
  app.decorate(
    'shipping',
    createShippingServices(platform, {
      ...(deps.quoteLogBatch && { quoteLogBatch: deps.quoteLogBatch }),
      ...(deps.quoteMethods && { quoteMethods: deps.quoteMethods }),
    }),
  );
  const recordKinds = deps.recordKinds ?? BUILT_IN_RECORD_KINDS;
  app.decorate('recordKinds', recordKinds);
  app.decorateRequest('seller', null);
  app.addHook('onRequest', async (request, reply) => {
    // nosniff on every answer: a browser must never read a JSON error or a download as HTML (docs/security.md, content sniffing).
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    // D47: an answer to a request that carries credentials is the caller's alone: no cache keeps it (a route may say otherwise).
    if (request.headers.authorization !== undefined || request.headers.cookie !== undefined) {
      reply.header('cache-control', 'private, no-store');
    }
  });
  const routeMethods = new RouteMethods();
  routeMethods.install(app);
  installErrorHandlers(app, routeMethods);
  installUnavailableAnswers(app, platform.random);
  installJsonBodyParser(app);
  installNulGuard(app);
  installRouteCatalogue(app);
  await installHttpConventions(app);
  await browserCors(app);
  app.addSchema(PlatformErrorBody);

  await app.register(swagger, swaggerOptions(deps.config, recordKinds));
  await app.register(swaggerUi, docsPageOptions);

  await app.register(openapiJsonRoute);
  await app.register(rootRoute);
  await app.register(postmanRoute);
  const readiness = createReadiness(platform.database);
  app.decorate('readiness', readiness);
  await app.register(healthRoutes, { database: platform.database, readiness });
  await app.register(metricsRoute);

  await app.register(adminRoutes, { sealedColumns: sealedColumns() });
  // The pages before the identity API: the OpenAPI document lists the paths in the order they are registered.
  await app.register(browserPages, { consoleSections: deps.consoleSections });
  await app.register(identityRoutes);
  await app.register(recordRoutes);
  await app.register(webhookRoutes);
  await app.register(shippingRoutes);
  return app;
}

/** What the swagger plugin builds the OpenAPI document from, beside the routes' own schemas. */
function swaggerOptions(config: PlatformConfig, recordKinds: RecordKindRegistry): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Feira seller platform API',
        version: '0.1.0',
        description: 'Identity provider, record APIs with list conventions, webhooks and shipping quotes.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.publicUrl }],
      webhooks: openapiWebhooks,
      // The seller API first: the order viewers and generators list the groups in.
      tags: [...recordKinds.kinds.map((kind) => ({ name: kind.table, description: kind.openApiTag })), ...OPENAPI_TAGS],
      components: {
        schemas: webhookComponentSchemas,
        securitySchemes: {
          feiraOAuth: {
            type: 'oauth2',
            description: 'A seller grants your client access through the authorization code flow (PKCE S256 supported).',
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.authUrl}/login`,
                tokenUrl: `${config.authUrl}/oauth/token`,
                refreshUrl: `${config.authUrl}/oauth/token`,
                scopes: Object.fromEntries(Object.entries(SCOPES).map(([name, { description }]) => [name, description])),
              },
            },
          },
          clientSecretBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'client_id and client_secret (HTTP Basic, or client_id and client_secret in the body)',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The marketplace operator token' },
          consoleSession: { type: 'apiKey', in: 'cookie', name: 'feira_session' },
        },
      },
    },
    transform: openapiRouteTransform as never,
    transformObject: openapiObjectTransform as never,
    // Components named by their $id (`PlatformError`, `TokenSet` …), never `def-0`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  };
}
