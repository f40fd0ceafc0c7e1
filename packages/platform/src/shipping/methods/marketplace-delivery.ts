import { MARKETPLACE_OWNER } from '../freight/freight-table-store.js';
import { freightTableAnswer } from './freight-table.js';
import type { QuoteMethodModule } from './quote-method.js';

/** spec-notes Q8: the operator's delivery-service tables, for stores that opt in. */
export const marketplaceDeliveryMethod: QuoteMethodModule<Record<never, never>> = {
  name: 'marketplace_delivery',
  description: 'the operator delivery-service tables (opting in)',
  labelKey: 'shipping.method.marketplace_delivery',
  settingsFields: {},
  backedUp: false,
  answer: (services, input) => freightTableAnswer(services, 'marketplace_delivery', MARKETPLACE_OWNER, input),
};
