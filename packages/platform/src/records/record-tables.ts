import type { Generated } from 'kysely';

/**
 * The business records (per tenant) and the outbox. Money is stored in integer
 * cents and exposed as decimals; timestamps are ISO 8601 UTC strings with
 * milliseconds (`toISOString()`), which sort correctly as text on both dialects;
 * nested values are JSON text.
 */
export interface RecordTables {
  products: {
    id: string;
    tenant_id: string;
    sku: string;
    title: string;
    price_cents: number;
    stock: number;
    depth_cm: number;
    height_cm: number;
    width_cm: number;
    weight_g: number;
    created_at: string;
    updated_at: string;
  };
  orders: {
    id: string;
    tenant_id: string;
    code: string;
    status: string;
    customer_id: string;
    customer_name: string;
    total_amount_cents: number;
    currency: string;
    /** JSON: [{sku, quantity, price}] */
    items: string;
    /** JSON: the chosen delivery option with its origin, or null. */
    shipping: string | null;
    /** Copied out of `shipping` so it can be filtered and indexed. */
    shipping_distribution_center_id: string | null;
    created_at: string;
    updated_at: string;
  };
  tickets: {
    id: string;
    tenant_id: string;
    subject: string;
    status: string;
    order_id: string | null;
    customer_id: string;
    customer_name: string;
    created_at: string;
    updated_at: string;
  };
  transactions: {
    id: string;
    tenant_id: string;
    type: string;
    amount_cents: number;
    currency: string;
    order_id: string | null;
    created_at: string;
    updated_at: string;
  };
  /**
   * Transactional outbox (spec-notes W6): one row per record change,
   * written in the same transaction as the change. `body` is the webhook
   * message serialized once; deliveries send exactly these bytes.
   */
  outbox_events: {
    seq: Generated<number>;
    id: string;
    tenant_id: string;
    topic: string;
    status: string;
    record_id: string;
    resource: string;
    body: string;
    created_at: string;
    /** Set when the dispatcher has fanned the event out to deliveries. */
    dispatched_at: string | null;
  };
}
