import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../storage/database.js';
import { pendingMigrations } from '../storage/migrate.js';
import { bearerTokenMatches } from './bearer-token.js';
import { documentedObject } from './openapi-document.js';

/** A readiness check: resolves to `null` when fine, or to the reason this process should get no traffic. */
type ReadinessCheck = () => string | null | Promise<string | null>;

/** Checks added by what runs beside the HTTP server (the dispatcher's heartbeat, workers.ts). */
export interface Readiness {
  add(name: string, check: ReadinessCheck): void;
}

/** The readiness checks of one process, and running them all. */
export interface ReadinessChecks extends Readiness {
  run(): Promise<Record<string, string | null>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness;
  }
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(check: ReadinessCheck): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
    Promise.resolve()
      .then(check)
      .then(
        (outcome) => resolve(outcome),
        (error: unknown) => resolve(error instanceof Error ? error.message : String(error)),
      )
      .finally(() => clearTimeout(timer));
  });
}

/** The checks `/health/ready` runs: the database and the migrations, then whatever `add` brings. */
export function createReadiness(database: Database): ReadinessChecks {
  const checks = new Map<string, ReadinessCheck>();
  // Once this build's migrations have all run they stay run: checked until then, not after.
  let atHead = false;
  checks.set('database', async () => {
    await database.db.selectFrom('platform_settings').select('key').limit(1).execute();
    return null;
  });
  checks.set('migrations', async () => {
    if (atHead) return null;
    const pending = await pendingMigrations(database);
    atHead = pending.length === 0;
    return atHead ? null : `pending: ${pending.join(', ')}`;
  });
  return {
    add: (name, check) => void checks.set(name, check),
    run: async () => {
      const names = [...checks.keys()];
      const outcomes = await Promise.all(names.map((name) => withTimeout(checks.get(name) as ReadinessCheck)));
      return Object.fromEntries(names.map((name, i) => [name, outcomes[i] ?? null]));
    },
  };
}

/** What an anonymous caller reads for a failed check: its name says what failed, its reason stays in. */
const REDACTED_REASON = 'unavailable';

/**
 * Whether the caller may read why a check failed: a reason can name the
 * database's host and port (`connect ECONNREFUSED 10.0.0.5:5432`), a schema
 * or a migration, which are for operators: the admin token, or the metrics
 * token that a monitoring system already holds (both compared in constant time).
 */
function mayReadReasons(request: FastifyRequest): boolean {
  const { adminToken, metricsToken } = request.server.platform.config;
  const header = request.headers.authorization;
  return bearerTokenMatches(header, adminToken) || (metricsToken !== undefined && bearerTokenMatches(header, metricsToken));
}

/**
 * `/health/live` (the process answers: restart it if not) and `/health/ready`
 * (send it traffic: the database answers, its schema is at this build's newest
 * migration, and every background loop of this process — the webhook
 * dispatcher where one runs — has renewed its heartbeat within one lease).
 * `/health` stays as it was: one query, for simple probes and the benchmarks.
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { database: Database; readiness: ReadinessChecks },
): Promise<void> {
  const { database, readiness } = options;
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['platform'],
        summary: 'Liveness: 200 once the database is migrated and reachable',
        response: {
          200: documentedObject('`{"status": "ok"}`'),
          503: documentedObject(
            'The platform error shape (`SERVICE_UNAVAILABLE`, with Retry-After) while the database is unreachable',
          ),
        },
      },
    },
    async () => {
      await database.db.selectFrom('platform_settings').select('key').limit(1).execute();
      return { status: 'ok' };
    },
  );
  app.get(
    '/health/live',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['platform'],
        summary: 'Liveness for orchestrators: 200 while the process answers',
        response: { 200: documentedObject('`{"status": "ok"}`') },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    {
      schema: {
        operationId: 'getReadiness',
        response: {
          200: documentedObject('`{"status": "ready", "checks": {…}}`'),
          503: documentedObject(
            'The platform error shape with `checks` naming what is not ready (`unavailable`; the reason itself only with the admin or metrics token as a bearer token)',
          ),
        },
        tags: ['platform'],
        summary: 'Readiness: database reachable, migrations at head, dispatcher heartbeat fresh (503 naming what is not)',
      },
    },
    async (request, reply) => {
      const outcomes = await readiness.run();
      const reasons = mayReadReasons(request);
      const report = Object.fromEntries(
        Object.entries(outcomes).map(([name, o]) => [name, o === null ? 'ok' : reasons ? o : REDACTED_REASON]),
      );
      if (Object.values(outcomes).every((o) => o === null)) return { status: 'ready', checks: report };
      reply.code(503).header('retry-after', '5');
      return {
        message: 'Not ready',
        slug: 'SERVICE_UNAVAILABLE',
        details: [],
        request_id: String(request.id),
        checks: report,
      };
    },
  );
}
