import type { Kysely } from 'kysely';
import { revokeGrant } from '../identity/grant-revocation.js';
import type { Schema } from '../storage/schema.js';

export interface ConnectedApp {
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
  /** When a token of this app for this seller was last issued or refreshed; null if never. */
  lastTokenAt: string | null;
}

/** The apps a seller granted access to one store (the consents of that store), with what and when. */
export async function connectedApps(db: Kysely<Schema>, sellerId: string, tenantId: string): Promise<ConnectedApp[]> {
  const rows = await db
    .selectFrom('consents')
    .leftJoin('clients', 'clients.id', 'consents.client_id')
    .select(['consents.client_id', 'clients.name', 'consents.scope', 'consents.granted_at'])
    .where('consents.seller_id', '=', sellerId)
    .where('consents.tenant_key', '=', tenantId)
    .orderBy('consents.granted_at')
    .execute();
  const apps = new Map<string, ConnectedApp>();
  for (const row of rows) {
    const app = apps.get(row.client_id) ?? {
      clientId: row.client_id,
      name: row.name ?? row.client_id,
      scopes: [],
      grantedAt: row.granted_at,
      lastTokenAt: null,
    };
    app.scopes.push(row.scope);
    if (row.granted_at < app.grantedAt) app.grantedAt = row.granted_at;
    apps.set(row.client_id, app);
  }
  for (const app of apps.values()) {
    const last = await db
      .selectFrom('refresh_tokens')
      .innerJoin('token_families', 'token_families.id', 'refresh_tokens.family_id')
      .select((eb) => eb.fn.max('refresh_tokens.created_at').as('last'))
      .where('token_families.client_id', '=', app.clientId)
      .where('token_families.seller_id', '=', sellerId)
      .executeTakeFirst();
    app.lastTokenAt = (last?.last as string | null | undefined) ?? null;
  }
  return [...apps.values()];
}

/**
 * Disconnect: the seller withdraws an app from a store. The grant
 * for the store is deleted (the next authorization asks for consent again),
 * every token family of the app for this seller is revoked — a token may
 * cover several stores, so all of them stop working, access and refresh
 * alike — and the app's subscriptions in the store are disabled, so no event
 * of the store is delivered to it any more.
 */
export async function disconnectApp(
  db: Kysely<Schema>,
  input: { sellerId: string; tenantId: string; clientId: string },
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('consents')
      .where('seller_id', '=', input.sellerId)
      .where('client_id', '=', input.clientId)
      .where('tenant_key', '=', input.tenantId)
      .execute();
    // The same revocation as RFC 7009 (identity/grant-revocation.ts), for every grant of the app by this seller.
    await revokeGrant({ db: trx, now }, { clientId: input.clientId, sellerId: input.sellerId }, 'disconnected_by_seller');
    await trx
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled', disabled_at: now.toISOString(), updated_at: now.toISOString() })
      .where('client_id', '=', input.clientId)
      .where('tenant_id', '=', input.tenantId)
      .where('state', '=', 'active')
      .execute();
  });
}
