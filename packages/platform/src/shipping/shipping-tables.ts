/**
 * Tables of the shipping capability: each tenant's quote settings
 * (SPEC-DECISIONS Q1) and the log of every quote call (SPEC-DECISIONS Q7).
 */
export interface ShippingTables {
  /** One row per tenant that configured a quote method. */
  shipping_settings: {
    tenant_id: string;
    /** Spec "What the service does" rule 3: only `seller_api` is specified. */
    method: string;
    /** The seller's quote URL exactly as configured, query string included (it may carry the seller's token). */
    url: string;
    /** JSON array of distribution-centre ids, in the order given. */
    distribution_center_ids: string;
    created_at: string;
    updated_at: string;
  };
  /** One row per call to a seller's quote endpoint. Never holds the URL (its query may be a secret). */
  quote_calls: {
    id: string;
    tenant_id: string;
    /** The request's session_id (UUID v4). */
    session_id: string;
    /** `storefront` (product page) or `checkout` (the automatic second quote, SPEC-DECISIONS Q6). */
    purpose: string;
    /** `ok`, `timeout`, `http_error`, `invalid_response` or the seller's error code. */
    outcome: string;
    /** Wall time of the call in milliseconds (monotonic clock). */
    latency_ms: number;
    /** HTTP status of the seller's answer, null when none came. */
    http_status: number | null;
    /** Why the outcome is not `ok` (rule ids and messages, or the transport error), for the integrator. */
    detail: string | null;
    created_at: string;
  };
}
