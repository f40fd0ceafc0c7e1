import { sellerFreightRoutes } from '../shipping/index.js';
import { alertsSection } from './alerts-console.js';
import { appsSection } from './apps-console.js';
import { homeSection } from './console-home.js';
import { pagesSection } from './console-pages.js';
import type { ConsoleSection } from './console-section.js';
import { deliverySection } from './delivery-console.js';
import { eventCatalogueSection } from './event-catalogue-console.js';
import { freightRowsSection } from './freight-rows-console.js';
import { operatorSection } from './operator-console.js';
import { overviewSection } from './overview-console.js';
import { recordsSection } from './records-console.js';
import { shippingSection } from './shipping-console.js';
import { shippingPreviewSection } from './shipping-preview-console.js';
import { shippingSettingsSection } from './shipping-settings-console.js';
import { subscriptionSection } from './subscription-console.js';
import { webhooksSection } from './webhooks-console.js';

/**
 * Every console section, each registered as one Fastify plugin; the ones
 * with a nav entry make up a store's section navigation, in this order.
 */
export const CONSOLE_SECTIONS: readonly ConsoleSection[] = [
  homeSection,
  overviewSection,
  webhooksSection,
  deliverySection,
  subscriptionSection,
  // The event catalogue (D153): reached from the webhooks and subscription pages.
  eventCatalogueSection,
  // Operational webhooks (D141): reached from the webhooks page, no nav entry of its own.
  alertsSection,
  appsSection,
  shippingSection,
  // The quote preview (D61): reached from the shipping page, no nav entry of its own.
  shippingPreviewSection,
  // The shipping settings forms (D147): reached from the shipping page.
  shippingSettingsSection,
  // A freight table's rows (D148): reached from the shipping page's table list.
  freightRowsSection,
  recordsSection,
  operatorSection,
  // The time-zone choice and the console-styled 404 of unknown console addresses.
  pagesSection,
  // The seller's freight-table API (the shipping page's upload posts to it with the console session).
  { name: 'freight', routes: async (app) => app.register(sellerFreightRoutes) },
];
