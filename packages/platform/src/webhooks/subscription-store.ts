import type { Topic } from '@feira/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Schema } from '../storage/schema.js';
import type { SealedColumn } from '../storage/secret-reseal.js';
import { generateWebhookSecret, rotateSecret, rotateSecretWithGrace } from './webhook-secret.js';
import type { SubscriptionRow, WebhookVersion } from './webhook-tables.js';

export interface SignupInput {
  clientId: string;
  tenantId: string;
  /** Spec topics, or a topic of a kind registered beside the platform's (D92); signup checks them against the registry. */
  topics: readonly (Topic | (string & {}))[];
  url: string;
  version: WebhookVersion;
  /** v1: also send the Standard Webhooks headers (spec-notes W10). */
  standardWebhooks?: boolean;
  /** The seller's note for the subscriptions it creates (D154, checked by the caller); a signup that updates one keeps its own. */
  description?: string | null;
}

export interface SignedUpSubscription {
  id: string;
  topic: Topic | (string & {});
  url: string;
  standardWebhooks: boolean;
  /** v1 only, in clear: shown once in the signup response and never stored unsealed. */
  secret?: string;
}

/**
 * spec-notes W1: one subscription per (client, tenant, topic); a signup
 * creates it or updates it in place (URL, version). A v1 signup issues a new
 * secret and rotates the old one into its grace hour; any signup re-enables a
 * disabled subscription and clears its failure streak (W4).
 */
export async function signUp(
  db: Kysely<Schema>,
  input: SignupInput,
  deps: { clock: Clock; random: Random; box: Pick<SecretBox, 'seal'> },
): Promise<SignedUpSubscription[]> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  return db.transaction().execute(async (trx) => {
    const out: SignedUpSubscription[] = [];
    for (const topic of input.topics) {
      const existing = await trx
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('client_id', '=', input.clientId)
        .where('tenant_id', '=', input.tenantId)
        .where('topic', '=', topic)
        .executeTakeFirst();
      const secret = input.version === 'v1' ? generateWebhookSecret(deps.random) : undefined;
      const secrets = secret
        ? rotateSecret(existing?.version === 'v1' ? existing : null, deps.box.seal(secret), now)
        : { secret_sealed: null, previous_secret_sealed: null, previous_secret_grace_until: null };
      const fields = {
        url: input.url,
        version: input.version,
        standard_webhooks: input.version === 'v1' && input.standardWebhooks ? 1 : 0,
        ...secrets,
        state: 'active' as const,
        failing_since: null,
        failure_streak: 0,
        disabled_at: null,
        updated_at: nowIso,
      };
      let id: string;
      if (existing) {
        id = existing.id;
        await trx.updateTable('webhook_subscriptions').set(fields).where('id', '=', id).execute();
      } else {
        id = deps.random.uuid();
        await trx
          .insertInto('webhook_subscriptions')
          .values({
            id,
            client_id: input.clientId,
            tenant_id: input.tenantId,
            topic,
            created_at: nowIso,
            // Named only when given: a signup writes the columns it always wrote.
            ...(input.description ? { description: input.description } : {}),
            ...fields,
          })
          .execute();
      }
      out.push({ id, topic, url: input.url, standardWebhooks: fields.standard_webhooks === 1, ...(secret ? { secret } : {}) });
    }
    return out;
  });
}

/**
 * Disable or re-enable by hand (the console, the admin API). Re-enabling
 * clears the failure run as a new signup does (spec-notes W4), so the 5-day
 * clock starts again; a disabled subscription gets no new deliveries (fan-out
 * skips it). Returns the subscription as it now is; undefined for an unknown id.
 */
export async function setSubscriptionState(
  db: Kysely<Schema>,
  id: string,
  state: 'active' | 'disabled',
  now: Date,
): Promise<SubscriptionRow | undefined> {
  const at = now.toISOString();
  return db
    .updateTable('webhook_subscriptions')
    .set(
      state === 'active'
        ? { state, failing_since: null, failure_streak: 0, disabled_at: null, updated_at: at }
        : { state, disabled_at: at, updated_at: at },
    )
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Disables every active subscription of one client in one store (the seller
 * disconnected the app): no event of the store is queued for it any more; a
 * new signup re-enables it (W4).
 */
export async function disableClientSubscriptionsInStore(
  db: Kysely<Schema>,
  subject: { clientId: string; tenantId: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ state: 'disabled', disabled_at: now.toISOString(), updated_at: now.toISOString() })
    .where('client_id', '=', subject.clientId)
    .where('tenant_id', '=', subject.tenantId)
    .where('state', '=', 'active')
    .execute();
}

/**
 * Deletes one subscription of a store (its deliveries and their attempts follow by ON DELETE CASCADE);
 * false when the store has no such subscription.
 */
export async function deleteStoreSubscription(db: Kysely<Schema>, tenantId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_subscriptions')
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every subscription of a client app (its deliveries and their attempts follow by ON DELETE CASCADE); returns how many. */
export async function deleteClientSubscriptions(db: Kysely<Schema>, clientId: string): Promise<number> {
  const result = await db.deleteFrom('webhook_subscriptions').where('client_id', '=', clientId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What the console's webhooks page shows of a subscription: never its secrets, sealed or not. */
export type StoreSubscription = Pick<
  SubscriptionRow,
  | 'id'
  | 'client_id'
  | 'topic'
  | 'version'
  | 'url'
  | 'state'
  | 'failure_streak'
  | 'previous_secret_grace_until'
  | 'failing_since'
  | 'disabled_at'
  | 'description'
>;

/** Every subscription of a store, newest first (the console's webhooks page). */
export function storeSubscriptions(db: Kysely<Schema>, tenantId: string): Promise<StoreSubscription[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .select([
      'id',
      'client_id',
      'topic',
      'version',
      'url',
      'state',
      'failure_streak',
      'previous_secret_grace_until',
      'failing_since',
      'disabled_at',
      'description',
    ])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** One subscription, only if it belongs to the store; undefined otherwise (a foreign id reads as unknown). */
export function findStoreSubscription(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
): Promise<Pick<SubscriptionRow, 'id' | 'version'> | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'version'])
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/** A store's subscription as its console page shows it: never its secrets. */
export type StoreSubscriptionDetail = StoreSubscription &
  Pick<SubscriptionRow, 'tenant_id' | 'created_at' | 'updated_at' | 'disabled_at' | 'failing_since' | 'standard_webhooks'>;

/** One subscription of the store with what its page shows; undefined for another store's or an unknown id. */
export function storeSubscription(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
): Promise<StoreSubscriptionDetail | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .select([
      'id',
      'client_id',
      'tenant_id',
      'topic',
      'version',
      'url',
      'state',
      'failure_streak',
      'previous_secret_grace_until',
      'created_at',
      'updated_at',
      'disabled_at',
      'failing_since',
      'standard_webhooks',
      'description',
    ])
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/**
 * The seller's rotation from the console (D64): a new secret, the old one
 * signing for the grace the seller chose (0 to 24 h), and a rotation inside a
 * running grace keeping the original secret until that grace ends. Returns
 * the new secret's grace end, or null for a v0 subscription or another
 * store's. The new secret is not returned: the page that shows it reads it
 * with {@link storeSubscriptionSecret}, so reloading that page rotates nothing.
 */
export async function rotateStoreSubscriptionSecret(
  db: Kysely<Schema>,
  subject: { tenantId: string; id: string; graceMs: number },
  deps: { clock: Clock; random: Random; box: SecretBox },
): Promise<{ graceUntil: string | null } | null> {
  const now = deps.clock.now();
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('webhook_subscriptions')
      .select(['version', 'secret_sealed', 'previous_secret_sealed', 'previous_secret_grace_until'])
      .where('id', '=', subject.id)
      .where('tenant_id', '=', subject.tenantId)
      .executeTakeFirst();
    if (row?.version !== 'v1') return null;
    const secrets = rotateSecretWithGrace(row, deps.box.seal(generateWebhookSecret(deps.random)), now, subject.graceMs);
    await trx
      .updateTable('webhook_subscriptions')
      .set({ ...secrets, updated_at: now.toISOString() })
      .where('id', '=', subject.id)
      .execute();
    return { graceUntil: secrets.previous_secret_grace_until };
  });
}

/** The current v1 secret of a store's subscription in clear, with the previous one's grace end; null for v0 or another store's. */
export async function storeSubscriptionSecret(
  db: Kysely<Schema>,
  subject: { tenantId: string; id: string },
  box: Pick<SecretBox, 'open'>,
): Promise<{ secret: string; graceUntil: string | null } | null> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select(['secret_sealed', 'previous_secret_sealed', 'previous_secret_grace_until'])
    .where('id', '=', subject.id)
    .where('tenant_id', '=', subject.tenantId)
    .executeTakeFirst();
  if (!row?.secret_sealed) return null;
  return { secret: box.open(row.secret_sealed), graceUntil: row.previous_secret_sealed ? row.previous_secret_grace_until : null };
}

/** A new URL for a store's subscription (checked by the caller as a signup's is); false for another store's or an unknown id. */
export async function setStoreSubscriptionUrl(
  db: Kysely<Schema>,
  subject: { tenantId: string; id: string; url: string },
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ url: subject.url, updated_at: now.toISOString() })
    .where('id', '=', subject.id)
    .where('tenant_id', '=', subject.tenantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The seller's description of a store's subscription (D154, checked by the caller; null clears it); false for another store's or an unknown id. */
export async function setStoreSubscriptionDescription(
  db: Kysely<Schema>,
  subject: { tenantId: string; id: string; description: string | null },
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ description: subject.description, updated_at: now.toISOString() })
    .where('id', '=', subject.id)
    .where('tenant_id', '=', subject.tenantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A new topic for a store's subscription (the console's topic edit): the same
 * row, URL and secret, now fanned out the new topic's events. One subscription
 * per (client, tenant, topic) (spec-notes W1), so a topic the app already has
 * a subscription for is refused ('exists'); 'missing' for another store's or
 * an unknown id. Deliveries already queued keep their events.
 */
export async function setStoreSubscriptionTopic(
  db: Kysely<Schema>,
  subject: { tenantId: string; id: string; topic: Topic | (string & {}) },
  now: Date,
): Promise<'saved' | 'exists' | 'missing'> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('webhook_subscriptions')
      .select(['client_id', 'topic'])
      .where('id', '=', subject.id)
      .where('tenant_id', '=', subject.tenantId)
      .executeTakeFirst();
    if (!row) return 'missing';
    if (row.topic === subject.topic) return 'saved';
    const taken = await trx
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('client_id', '=', row.client_id)
      .where('tenant_id', '=', subject.tenantId)
      .where('topic', '=', subject.topic)
      .executeTakeFirst();
    if (taken) return 'exists';
    await trx
      .updateTable('webhook_subscriptions')
      .set({ topic: subject.topic, updated_at: now.toISOString() })
      .where('id', '=', subject.id)
      .where('tenant_id', '=', subject.tenantId)
      .execute();
    return 'saved';
  });
}

/** The sealed values webhooks keep: each subscription's secret and, during a rotation's grace, the previous one. */
export const webhookSealedColumns: readonly SealedColumn[] = [
  { table: 'webhook_subscriptions', key: 'id', column: 'secret_sealed' },
  { table: 'webhook_subscriptions', key: 'id', column: 'previous_secret_sealed' },
  { table: 'store_alert_endpoints', key: 'tenant_id', column: 'secret_sealed' },
];
