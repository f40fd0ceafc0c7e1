import type { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import type { PlatformConfig } from '../core/config.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import type { SandboxClock } from '../storage/sandbox-clock.js';

/**
 * The services every capability may use, built once per process by the
 * composition root (`platform.ts`, through `app.ts` for the api role) and
 * reachable from any route as `request.server.platform`.
 * A capability that needs more builds its own services on top of this
 * (identity: the key ring and signer, `identity/identity-services.ts`;
 * shipping: the quote log, `shipping/shipping-services.ts`), so a process that
 * runs only the dispatcher builds neither.
 */
export interface PlatformContext {
  config: PlatformConfig;
  database: Database;
  clock: Clock;
  /** Sandbox mode: the clock itself (`clock` is it), which the operator may move forward; absent in strict mode. */
  sandboxClock?: SandboxClock;
  random: Random;
  /** Seals secrets at rest (signing keys, webhook secrets) with the server key. */
  box: SecretBox;
  /** Outbound HTTP client (webhook deliveries, quote calls), SSRF-guarded by default. */
  outbound: Dispatcher;
  /** Prometheus registry of this app instance (served at /metrics). */
  metrics: Registry;
}

declare module 'fastify' {
  interface FastifyInstance {
    platform: PlatformContext;
  }
}
