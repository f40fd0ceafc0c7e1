import type { Kysely, Transaction } from 'kysely';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { epochSeconds } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Schema } from '../storage/schema.js';
import { deliveryTarget, sendDelivery } from './delivery-request.js';
import { nextAttemptAt } from './retry-schedule.js';
import { generateWebhookSecret } from './webhook-secret.js';
import { maskedWebhookUrl } from './webhook-url.js';

/**
 * Operational webhooks (D141), as Svix sends them: news about a store's own
 * endpoints, posted to an address its seller chose, signed with that
 * address's own secret exactly as deliveries are (`X-Signature-256` and the
 * Standard Webhooks headers), retried on the deliveries' schedule (W4).
 *
 * - `endpoint.failing`: a subscription's failed attempts in a row reached
 *   {@link FAILING_ALERT_STREAK} (once per run of failures);
 * - `endpoint.disabled`: the platform disabled a subscription after its
 *   failures ran for the W4 period.
 *
 * Alerts are queued in the transaction that records the attempt which caused
 * them, and only for a store that has an address: a store without one costs
 * nothing but the attempt's own update.
 */
type OperationalAlertType = 'endpoint.failing' | 'endpoint.disabled';

/** Failed attempts in a row that make a subscription "failing" for its seller (Svix says it after a few in a row too). */
const FAILING_ALERT_STREAK = 5;
/** Alerts sent per pass: they are rare, and a pass must not wait on many slow addresses. */
const SEND_BATCH = 20;

/** A subscription as the W4 update left it (what decides whether to tell the seller). */
export interface SubscriptionAfterAttempt {
  id: string;
  tenant_id: string;
  client_id: string;
  topic: string;
  url: string;
  state: 'active' | 'disabled';
  failure_streak: number | string;
  failing_since: string | null;
  disabled_at: string | null;
}

/** The alert a failed attempt causes, if any: the run just reached the streak, or the platform just disabled the subscription. */
export function alertOf(sub: SubscriptionAfterAttempt, at: string): OperationalAlertType | null {
  if (sub.state === 'disabled' && sub.disabled_at === at) return 'endpoint.disabled';
  if (sub.state === 'active' && Number(sub.failure_streak) === FAILING_ALERT_STREAK) return 'endpoint.failing';
  return null;
}

/** The alert's JSON body: what happened to which subscription, its URL masked as the console shows it (D65). */
function alertBody(type: OperationalAlertType, sub: SubscriptionAfterAttempt, at: string): string {
  return JSON.stringify({
    type,
    timestamp: at,
    data: {
      store_id: sub.tenant_id,
      subscription_id: sub.id,
      app_id: sub.client_id,
      topic: sub.topic,
      url: maskedWebhookUrl(sub.url),
      failure_streak: Number(sub.failure_streak),
      failing_since: sub.failing_since,
      disabled_at: sub.disabled_at,
    },
  });
}

/** Queues `type` about `sub` for its store's address, in the caller's transaction; nothing when the store has none. */
export async function queueAlert(
  trx: Kysely<Schema> | Transaction<Schema>,
  random: Pick<Random, 'uuid'>,
  type: OperationalAlertType,
  sub: SubscriptionAfterAttempt,
  at: string,
): Promise<void> {
  const endpoint = await trx
    .selectFrom('store_alert_endpoints')
    .select('tenant_id')
    .where('tenant_id', '=', sub.tenant_id)
    .executeTakeFirst();
  if (!endpoint) return;
  await trx
    .insertInto('store_alerts')
    .values({
      id: random.uuid(),
      tenant_id: sub.tenant_id,
      type,
      body: alertBody(type, sub, at),
      next_attempt_at: at,
      last_status_code: null,
      last_error: null,
      sent_at: null,
      created_at: at,
    })
    .execute();
}

/** A store's alert address (masked for display) and when it was set; undefined when it has none. */
export async function storeAlertEndpoint(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<{ url: string; updatedAt: string } | undefined> {
  const row = await db
    .selectFrom('store_alert_endpoints')
    .select(['url', 'updated_at'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? { url: maskedWebhookUrl(row.url), updatedAt: row.updated_at } : undefined;
}

/** Sets a store's alert address (already checked as a v1 webhook URL) with a new secret, returned once to be shown. */
export async function setStoreAlertEndpoint(
  db: Kysely<Schema>,
  input: { tenantId: string; url: string },
  deps: { random: Random; box: Pick<SecretBox, 'seal'>; clock: Clock },
): Promise<string> {
  const secret = generateWebhookSecret(deps.random);
  const at = deps.clock.now().toISOString();
  const sealed = deps.box.seal(secret);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('store_alert_endpoints').where('tenant_id', '=', input.tenantId).execute();
    await trx
      .insertInto('store_alert_endpoints')
      .values({ tenant_id: input.tenantId, url: input.url, secret_sealed: sealed, created_at: at, updated_at: at })
      .execute();
  });
  return secret;
}

/** Removes a store's alert address; its unsent alerts go with it (nobody to send them to). */
export async function removeStoreAlertEndpoint(db: Kysely<Schema>, tenantId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('store_alerts').where('tenant_id', '=', tenantId).where('sent_at', 'is', null).execute();
    await trx.deleteFrom('store_alert_endpoints').where('tenant_id', '=', tenantId).execute();
  });
}

/** A store's latest alerts, newest first, as its console page lists them. */
export function storeAlerts(db: Kysely<Schema>, tenantId: string, limit = 20) {
  return db
    .selectFrom('store_alerts')
    .select(['id', 'type', 'created_at', 'sent_at', 'attempts', 'last_status_code', 'next_attempt_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Sends the alerts due now (a pass of the dispatcher does this after its
 * deliveries): each signed with its store's alert secret, a 2xx marks it
 * sent, anything else schedules the next attempt as a delivery's would be,
 * until the schedule gives up. Returns how many were attempted.
 */
export async function sendDueAlerts(deps: {
  db: Kysely<Schema>;
  box: Pick<SecretBox, 'open'>;
  clock: Clock;
  random: Random;
  outbound: Dispatcher;
  timeoutMs: number;
}): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .selectFrom('store_alerts')
    .innerJoin('store_alert_endpoints', 'store_alert_endpoints.tenant_id', 'store_alerts.tenant_id')
    .select([
      'store_alerts.id',
      'store_alerts.body',
      'store_alerts.attempts',
      'store_alert_endpoints.url',
      'store_alert_endpoints.secret_sealed',
    ])
    .where('store_alerts.next_attempt_at', '<=', now.toISOString())
    .orderBy('store_alerts.next_attempt_at')
    .limit(SEND_BATCH)
    .execute();
  for (const alert of due) {
    const startedAt = deps.clock.now();
    let secret: string;
    try {
      secret = deps.box.open(alert.secret_sealed);
    } catch {
      await deps.db
        .updateTable('store_alerts')
        .set({ next_attempt_at: null, last_error: 'alert secret unreadable (server key changed?)' })
        .where('id', '=', alert.id)
        .execute();
      continue;
    }
    const result = await sendDelivery({
      target: deliveryTarget(alert.url),
      body: alert.body,
      webhookId: alert.id,
      secrets: [secret],
      standardWebhooks: true,
      timestamp: epochSeconds(startedAt),
      timeoutMs: deps.timeoutMs,
      dispatcher: deps.outbound,
      now: () => deps.clock.now(),
    });
    const attempts = Number(alert.attempts) + 1;
    const finishedAt = deps.clock.now();
    const next = result.ok ? null : nextAttemptAt(attempts, finishedAt, deps.random, result.retryAfterMs);
    await deps.db
      .updateTable('store_alerts')
      .set({
        attempts,
        sent_at: result.ok ? finishedAt.toISOString() : null,
        next_attempt_at: next ? next.toISOString() : null,
        last_status_code: result.statusCode,
        last_error: result.error,
      })
      .where('id', '=', alert.id)
      .execute();
  }
  return due.length;
}
