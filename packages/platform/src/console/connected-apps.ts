import type { Kysely } from 'kysely';
import { clientNamesById } from '../accounts/index.js';
import { lastTokenIssuedAt, revokeGrant, storeConsents, withdrawStoreConsent } from '../identity/index.js';
import type { Schema } from '../storage/schema.js';
import { disableClientSubscriptionsInStore } from '../webhooks/index.js';

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
  const consents = await storeConsents(db, sellerId, tenantId);
  const names = await clientNamesById(db, [...new Set(consents.map((consent) => consent.clientId))]);
  const apps = new Map<string, ConnectedApp>();
  for (const consent of consents) {
    const app = apps.get(consent.clientId) ?? {
      clientId: consent.clientId,
      name: names.get(consent.clientId) ?? consent.clientId,
      scopes: [],
      grantedAt: consent.grantedAt,
      lastTokenAt: null,
    };
    app.scopes.push(consent.scope);
    if (consent.grantedAt < app.grantedAt) app.grantedAt = consent.grantedAt;
    apps.set(consent.clientId, app);
  }
  for (const app of apps.values()) {
    app.lastTokenAt = await lastTokenIssuedAt(db, { clientId: app.clientId, sellerId });
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
    await withdrawStoreConsent(trx, input);
    // The same revocation as RFC 7009 (identity/grant-revocation.ts), for every grant of the app by this seller.
    await revokeGrant({ db: trx, now }, { clientId: input.clientId, sellerId: input.sellerId }, 'disconnected_by_seller');
    await disableClientSubscriptionsInStore(trx, input, now);
  });
}
