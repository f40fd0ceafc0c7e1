/**
 * The public face of webhooks/: subscriptions, fan-out, the dispatcher, deliveries and redelivery, the seller and admin webhook routes.
 * Every other folder imports webhooks/ through this file only (dependency-cruiser rule
 * 'capability-public-face'); files inside webhooks/ import each other directly.
 */
export { deliveriesInWindow, deliveryAttemptsSince, storeDeliveriesSince } from './delivery-health.js';
export { deliveryRetentionRules } from './delivery-retention.js';
export {
  countStoreDeliveries,
  type DeliveryLogEntry,
  type DeliveryLogFilters,
  deliveryStoreId,
  queueTestDelivery,
  storeDeliveryPage,
  subscriptionAttemptsSince,
} from './delivery-store.js';
export {
  removeStoreAlertEndpoint,
  setStoreAlertEndpoint,
  storeAlertEndpoint,
  storeAlerts,
} from './operational-alerts.js';
export { failedOfDisabledSince, redeliverDelivery, redeliverFailedSince } from './redelivery.js';
export { DISABLE_AFTER_FAILING_MS } from './retry-schedule.js';
export { sellerWebhookRoutes, visibleDelivery, type WebhookViewer } from './seller-webhook-routes.js';
export {
  deleteClientSubscriptions,
  deleteStoreSubscription,
  disableClientSubscriptionsInStore,
  findStoreSubscription,
  rotateStoreSubscriptionSecret,
  type StoreSubscription,
  type StoreSubscriptionDetail,
  setStoreSubscriptionDescription,
  setStoreSubscriptionTopic,
  setStoreSubscriptionUrl,
  setSubscriptionState,
  signUp,
  storeSubscription,
  storeSubscriptionSecret,
  storeSubscriptions,
  webhookSealedColumns,
} from './subscription-store.js';
export {
  DEFAULT_LEASE_MS,
  dispatcherWorkerName,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhook-dispatcher.js';
export { webhookRoutes } from './webhook-routes.js';
export type { DeliveryState } from './webhook-tables.js';
export { checkWebhookUrl, maskedWebhookUrl } from './webhook-url.js';
