import type { Generated, Selectable } from 'kysely';

export type WebhookVersion = 'v0' | 'v1';
type SubscriptionState = 'active' | 'disabled';
/** `pending` (waiting for its next attempt, possibly leased by a worker), `succeeded`, `dead` (redeliverable). */
export type DeliveryState = 'pending' | 'succeeded' | 'dead';

/** Subscriptions, deliveries and attempts (spec-notes W1–W6). Timestamps are ISO 8601 UTC text. */
export interface WebhookTables {
  /** The address a store's operational webhooks go to (operational-alerts.ts), with its own sealed secret. */
  store_alert_endpoints: {
    tenant_id: string;
    url: string;
    secret_sealed: string;
    created_at: string;
    updated_at: string;
  };
  /** One operational webhook (`endpoint.failing`, `endpoint.disabled`): its body as sent, and its sending. */
  store_alerts: {
    id: string;
    tenant_id: string;
    type: string;
    body: string;
    attempts: Generated<number>;
    /** Null once sent or given up. */
    next_attempt_at: string | null;
    last_status_code: number | null;
    last_error: string | null;
    sent_at: string | null;
    created_at: string;
  };
  webhook_subscriptions: {
    id: string;
    client_id: string;
    tenant_id: string;
    topic: string;
    version: WebhookVersion;
    url: string;
    /** v1: the current secret, sealed with the server key (W2). Null for v0. */
    secret_sealed: string | null;
    /** v1 rotation: the previous secret still signs until `previous_secret_grace_until`. */
    previous_secret_sealed: string | null;
    previous_secret_grace_until: string | null;
    /** v1: 1 when the subscription also gets the Standard Webhooks headers (spec-notes W10), else 0. */
    standard_webhooks: Generated<number>;
    state: SubscriptionState;
    /** Start of the current run of failed attempts; 5 days of it disables the subscription (W4). */
    failing_since: string | null;
    failure_streak: Generated<number>;
    disabled_at: string | null;
    /** The seller's own note about the endpoint (D154), at most 200 characters; null when none (and on rows before migration 0036). */
    description: string | null;
    created_at: string;
    updated_at: string;
  };
  /** One row per event × matching subscription; `id` is the `X-Webhook-Id` of every attempt. */
  webhook_deliveries: {
    id: string;
    event_id: string;
    subscription_id: string;
    tenant_id: string;
    topic: string;
    state: DeliveryState;
    /** Attempts made in the current cycle (a redelivery starts a new cycle). */
    attempts: Generated<number>;
    /** Every attempt, resends included; null until the first attempt after migration 0032 (read `attempts` then). */
    attempts_total: number | null;
    next_attempt_at: string | null;
    lease_owner: string | null;
    lease_until: string | null;
    /** Fencing token: incremented by every claim; results are written only while it is unchanged. */
    fence: Generated<number>;
    last_status_code: number | null;
    last_error: string | null;
    event_created_at: string;
    created_at: string;
    updated_at: string;
    delivered_at: string | null;
    /** 1 for a test event sent from the console (D153); null otherwise (and on rows before migration 0036). */
    is_test: number | null;
  };
  webhook_delivery_attempts: {
    seq: Generated<number>;
    delivery_id: string;
    attempt: number;
    fence: number;
    worker: string;
    outcome: 'succeeded' | 'failed';
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    /** The first 1 KiB of the receiver's answer. */
    response_body: string | null;
    /** JSON object of the headers sent (signatures included); null on rows older than migration 0010. */
    request_headers: string | null;
    /** JSON object of a safe, bounded subset of the receiver's answer headers; null without an answer or on rows older than migration 0024. */
    response_headers: string | null;
    next_attempt_at: string | null;
    started_at: string;
  };
}

/** A subscription as read from its table. */
export type SubscriptionRow = Selectable<WebhookTables['webhook_subscriptions']>;
