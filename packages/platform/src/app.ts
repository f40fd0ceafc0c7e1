import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PlatformErrorBody } from '@feira/contract';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { adminRoutes } from './admin/admin-routes.js';
import { type Clock, systemClock } from './core/clock.js';
import { outboundPolicyOf, type PlatformConfig } from './core/config.js';
import { installErrorHandlers } from './core/error-handler.js';
import { installNulGuard } from './core/nul-guard.js';
import { cryptoRandom, type Random } from './core/random.js';
import { SecretBox } from './core/secret-box.js';
import { createOutboundAgent } from './http/outbound-agent.js';
import { identityRoutes } from './identity/identity-routes.js';
import { type KeyRing, loadKeyRing } from './identity/signing-keys.js';
import { TokenSigner } from './identity/token-signer.js';
import { recordRoutes } from './records/record-routes.js';
import { quoteLogStoreFor } from './shipping/quote-log-store.js';
import { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './shipping/quote-log-writer.js';
import { shippingRoutes } from './shipping/shipping-routes.js';
import type { Database } from './storage/database.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

/** What buildApp needs. Only entry points pass real clocks and randomness; tests inject their own. */
export interface AppDeps {
  config: PlatformConfig;
  /** An open, migrated database. */
  database: Database;
  clock?: Clock;
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
}

/** Shared services, reachable from any route as `request.server.platform`. */
export interface PlatformContext {
  config: PlatformConfig;
  database: Database;
  clock: Clock;
  random: Random;
  box: SecretBox;
  keyRing: KeyRing;
  signer: TokenSigner;
  outbound: Dispatcher;
  /** Prometheus registry of this app instance (served at /metrics). */
  metrics: Registry;
  /** The quote log's batched writer (SPEC-DECISIONS Q7) and its store; readers of the log flush it first. */
  quoteLog: QuoteLogWriter;
}

declare module 'fastify' {
  interface FastifyInstance {
    platform: PlatformContext;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function createPlatformContext(deps: AppDeps): Promise<PlatformContext> {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? cryptoRandom;
  const box = new SecretBox(deps.config.secretKey);
  const keyRing = deps.keyRing ?? (await loadKeyRing(deps.database, { clock, random, box }));
  return {
    config: deps.config,
    database: deps.database,
    clock,
    random,
    box,
    keyRing,
    signer: new TokenSigner({ keyRing, clock, random, issuer: deps.config.authUrl, apiAudience: deps.config.publicUrl }),
    outbound:
      deps.outbound ??
      createOutboundAgent({ policy: outboundPolicyOf(deps.config), ...(deps.outboundCa ? { ca: deps.outboundCa } : {}) }),
    metrics: new Registry(),
    quoteLog: new QuoteLogWriter(quoteLogStoreFor(deps.database), { ...QUOTE_LOG_BATCH, ...deps.quoteLogBatch }),
  };
}

/**
 * Wires every capability into one Fastify instance. `server.ts` (via the CLI)
 * only loads config, opens and migrates the database and listens.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const platform = await createPlatformContext(deps);
  const app = Fastify({
    ...(typeof deps.logger === 'object' ? { loggerInstance: deps.logger } : { logger: deps.logger ?? false }),
    bodyLimit: deps.config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : platform.random.uuid();
    },
    ajv: {
      // Bodies are validated as sent: no type coercion, no silent removal of unknown fields.
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true },
    },
    trustProxy: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('platform', platform);
  app.decorateRequest('seller', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installErrorHandlers(app);
  installNulGuard(app);
  app.addSchema(PlatformErrorBody);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Feira seller platform',
        version: '0.1.0',
        description: 'Identity provider, record APIs with list conventions, webhooks and shipping quotes.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: {
        securitySchemes: {
          sellerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          adminToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get(
    '/health',
    { schema: { tags: ['platform'], summary: 'Liveness: 200 once the database is migrated and reachable' } },
    async () => {
      await platform.database.db.selectFrom('platform_settings').select('key').limit(1).execute();
      return { status: 'ok' };
    },
  );
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', platform.metrics.contentType);
    return platform.metrics.metrics();
  });

  await app.register(adminRoutes);
  await app.register(identityRoutes);
  await app.register(recordRoutes);
  await app.register(webhookRoutes);
  await app.register(shippingRoutes);
  return app;
}
