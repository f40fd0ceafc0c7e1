import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Schema } from '../storage/schema.js';

/** A personal grant (choose_tenants=false, spec-notes I9) is kept under this tenant key. */
const PERSONAL = '';

function tenantKeys(tenants: readonly string[]): string[] {
  return tenants.length === 0 ? [PERSONAL] : [...tenants];
}

export interface ConsentSubject {
  clientId: string;
  sellerId: string;
  tenants: readonly string[];
}

/**
 * Spec "Consent by redirect" and spec-notes I10: the consent screen is shown
 * only when some scope is not yet granted to this client for each chosen tenant.
 */
export async function consentNeeded(db: Kysely<Schema>, subject: ConsentSubject, scopes: readonly string[]): Promise<boolean> {
  const keys = tenantKeys(subject.tenants);
  const rows = await db
    .selectFrom('consents')
    .select(['tenant_key', 'scope'])
    .where('client_id', '=', subject.clientId)
    .where('seller_id', '=', subject.sellerId)
    .where('tenant_key', 'in', keys)
    .execute();
  const granted = new Set(rows.map((r) => `${r.tenant_key}\u0000${r.scope}`));
  return keys.some((key) => scopes.some((scope) => !granted.has(`${key}\u0000${scope}`)));
}

export async function recordConsent(
  db: Kysely<Schema>,
  subject: ConsentSubject,
  scopes: readonly string[],
  clock: Clock,
): Promise<void> {
  const grantedAt = clock.now().toISOString();
  const rows = tenantKeys(subject.tenants).flatMap((tenantKey) =>
    scopes.map((scope) => ({
      client_id: subject.clientId,
      seller_id: subject.sellerId,
      tenant_key: tenantKey,
      scope,
      granted_at: grantedAt,
    })),
  );
  if (rows.length === 0) return;
  await db
    .insertInto('consents')
    .values(rows)
    .onConflict((oc) => oc.columns(['client_id', 'seller_id', 'tenant_key', 'scope']).doNothing())
    .execute();
}

/** One scope a seller granted a client for one store (a `consents` row). */
export interface StoreConsent {
  clientId: string;
  scope: string;
  grantedAt: string;
}

/** Every scope the seller granted, to any client, for one store, oldest first. */
export async function storeConsents(db: Kysely<Schema>, sellerId: string, tenantId: string): Promise<StoreConsent[]> {
  const rows = await db
    .selectFrom('consents')
    .select(['client_id', 'scope', 'granted_at'])
    .where('seller_id', '=', sellerId)
    .where('tenant_key', '=', tenantId)
    .orderBy('granted_at')
    .execute();
  return rows.map((row) => ({ clientId: row.client_id, scope: row.scope, grantedAt: row.granted_at }));
}

/** Withdraws what the seller granted one client for one store: its next authorization asks for consent again (I10). */
export async function withdrawStoreConsent(
  db: Kysely<Schema>,
  subject: { clientId: string; sellerId: string; tenantId: string },
): Promise<void> {
  await db
    .deleteFrom('consents')
    .where('seller_id', '=', subject.sellerId)
    .where('client_id', '=', subject.clientId)
    .where('tenant_key', '=', subject.tenantId)
    .execute();
}
