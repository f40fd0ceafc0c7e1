import type { AccountTables } from '../accounts/account-tables.js';
import type { IdentityTables } from '../identity/identity-tables.js';
import type { RecordTables } from '../records/record-tables.js';
import type { ShippingTables } from '../shipping/shipping-tables.js';
import type { WebhookTables } from '../webhooks/webhook-tables.js';
import type { StorageTables } from './storage-tables.js';

/** The whole database, composed from each capability's own table file. */
export interface Schema extends AccountTables, IdentityTables, RecordTables, WebhookTables, ShippingTables, StorageTables {}
