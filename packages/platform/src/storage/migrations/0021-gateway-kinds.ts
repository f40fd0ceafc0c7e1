import type { MigrationFactory } from './helpers.js';
import { quoteCallsTable } from './quote-calls-table.js';

/**
 * Freight gateways with an API of their own (D57, D59): the kind of a store's
 * gateway (NULL: the seller-API contract, as before), the zipcode of each
 * distribution centre (a gateway quote's origin), and the kind on each quote
 * log row of the platform database (the SQLite log file has its own migration).
 */
export const gatewayKinds: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('shipping_settings').addColumn('gateway_kind', 'text').execute();
    await db.schema.alterTable('shipping_settings').addColumn('distribution_center_zipcodes', 'text').execute();
    await quoteCallsTable.addGatewayKind(db);
  },
});
