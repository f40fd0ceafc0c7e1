import { accounts } from './0001-accounts.js';
import { identity } from './0002-identity.js';
import { records } from './0003-records.js';
import { webhooks } from './0004-webhooks.js';
import { shipping } from './0005-shipping.js';
import { security } from './0006-security.js';
import { shippingMethods } from './0008-shipping-methods.js';
import { standardWebhooks } from './0009-standard-webhooks.js';
import { attemptRequests } from './0010-attempt-requests.js';
import { operatorSessions } from './0011-operator-sessions.js';
import { outboxUndispatchedIndex } from './0012-outbox-undispatched-index.js';
import { outboxNotify } from './0013-outbox-notify.js';
import { queueAutovacuum } from './0014-queue-autovacuum.js';
import { claimIndexes } from './0015-claim-indexes.js';
import { dropDueIndex } from './0016-drop-due-index.js';
import { outboxNotifyAfterCommit } from './0017-outbox-notify-after-commit.js';
import { dropDeliveryPairUnique } from './0018-drop-delivery-pair-unique.js';
import { queueKeysByteOrder } from './0019-queue-keys-byte-order.js';
import { gatewayKinds } from './0021-gateway-kinds.js';
import { freightFormats } from './0022-freight-formats.js';
import { browserClientsAndOpenid } from './0023-browser-clients-and-openid.js';
import { attemptResponseHeaders } from './0024-attempt-response-headers.js';
import { apiRateLimits } from './0025-api-rate-limits.js';
import { retention } from './0028-retention.js';
import { sandboxClock } from './0029-sandbox-clock.js';
import { signingKeyStates } from './0031-signing-key-states.js';
import { deliveryAttemptsTotal } from './0032-delivery-attempts-total.js';
import { retentionVacuum } from './0034-retention-vacuum.js';
import { operationalAlerts } from './0035-operational-alerts.js';
import { testDeliveriesAndDescriptions } from './0036-test-deliveries-and-descriptions.js';
import type { MigrationFactory } from './helpers.js';

/**
 * Every migration, by name; names sort in the order they run. A capability
 * that needs a table adds its own file here (0004-webhooks, 0005-shipping, …).
 */
export const migrations: Record<string, MigrationFactory> = {
  '0001-accounts': accounts,
  '0002-identity': identity,
  '0003-records': records,
  '0004-webhooks': webhooks,
  '0005-shipping': shipping,
  '0006-security': security,
  '0008-shipping-methods': shippingMethods,
  '0009-standard-webhooks': standardWebhooks,
  '0010-attempt-requests': attemptRequests,
  '0011-operator-sessions': operatorSessions,
  '0012-outbox-undispatched-index': outboxUndispatchedIndex,
  '0013-outbox-notify': outboxNotify,
  '0014-queue-autovacuum': queueAutovacuum,
  '0015-claim-indexes': claimIndexes,
  '0016-drop-due-index': dropDueIndex,
  '0017-outbox-notify-after-commit': outboxNotifyAfterCommit,
  '0018-drop-delivery-pair-unique': dropDeliveryPairUnique,
  '0019-queue-keys-byte-order': queueKeysByteOrder,
  '0021-gateway-kinds': gatewayKinds,
  '0022-freight-formats': freightFormats,
  '0023-browser-clients-and-openid': browserClientsAndOpenid,
  '0024-attempt-response-headers': attemptResponseHeaders,
  '0025-api-rate-limits': apiRateLimits,
  '0028-retention': retention,
  '0029-sandbox-clock': sandboxClock,
  '0031-signing-key-states': signingKeyStates,
  '0032-delivery-attempts-total': deliveryAttemptsTotal,
  '0034-retention-vacuum': retentionVacuum,
  '0035-operational-alerts': operationalAlerts,
  '0036-test-deliveries-and-descriptions': testDeliveriesAndDescriptions,
};
