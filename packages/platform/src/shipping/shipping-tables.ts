import type { Generated } from 'kysely';

/**
 * Tables of the shipping capability: each tenant's quote settings
 * (spec-notes Q1) and the log of every quote call (spec-notes Q7).
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
    /** JSON array of the methods combined (spec-notes Q8); NULL on rows older than it: `method` alone. */
    methods: string | null;
    /** `freight_table` for backup rates (spec-notes Q8), else NULL. */
    fallback: string | null;
    /** The operator-registered gateway the store quotes through (method `gateway`). */
    gateway_id: string | null;
    /** The store's gateway credential, sealed with the server key (never returned, never logged). */
    gateway_credential: string | null;
    /** The gateway's kind (D57): NULL for `seller_api_contract` (rows older than kinds), else `melhor_envio`, `frenet`. */
    gateway_kind: string | null;
    /** JSON object centre id → zipcode, for the centres given one (a gateway's origin, D59); NULL when none. */
    distribution_center_zipcodes: string | null;
    created_at: string;
    updated_at: string;
  };
  /** Freight gateways registered by the operator (spec-notes Q8): they speak the seller-API quote contract. */
  shipping_gateways: {
    id: string;
    name: string;
    url: string;
    created_at: string;
    updated_at: string;
  };
  /** One row per import of a freight table (spec-notes Q8); its rows point at it. */
  freight_table_versions: {
    key: Generated<number>;
    /** A tenant id, or `marketplace` for the delivery service's tables. */
    owner: string;
    table_id: string;
    created_at: string;
  };
  /** A freight table (one shipping service): its settings and the version quotes read. */
  freight_tables: {
    owner: string;
    table_id: string;
    name: string;
    distribution_center_id: string | null;
    /** kg per m³; with it the cubic weight is used when larger (spec-notes Q9). */
    cubic_weight_factor: number | null;
    version_key: number;
    /** The version replaced last: kept until the next replace, so a quote that read the old key still finds its rows. */
    previous_version_key: number | null;
    row_count: number;
    /** JSON `[[weight_start, weight_end], …]`: the distinct weight ranges of the version (the lookup probes each). */
    weight_bands: string;
    /** The format the version was uploaded in (D62): `csv` or `xlsx`; NULL on rows older than it (csv). */
    source_format: string | null;
    /** `comma` when the upload wrote decimals with a comma (the CSV download keeps it), else `point` or NULL. */
    decimal_mark: string | null;
    created_at: string;
    updated_at: string;
  };
  /** The rows of a freight-table version, in the VTEX column layout (weights in grams, money in reais). */
  freight_rows: {
    version_key: number;
    /** The CSV line the row came from (header = line 1). */
    line_no: number;
    zip_start: number;
    zip_end: number;
    weight_start: number;
    weight_end: number;
    absolute_money_cost: number;
    price_percent: number;
    price_by_extra_weight: number;
    /** cm³; NULL when the cell was empty (no limit). */
    max_volume: number | null;
    /** TimeCost as uploaded. */
    time_cost: string;
    /** TimeCost rounded up to whole days, at least 1 (spec-notes Q9). */
    delivery_days: number;
    minimum_value_insurance: number;
    polygon_name: string;
    country: string;
  };
  /** One row per call to a seller's quote endpoint. Never holds the URL (its query may be a secret). */
  quote_calls: {
    id: string;
    tenant_id: string;
    /** The request's session_id (UUID v4). */
    session_id: string;
    /** `storefront` (product page) or `checkout` (the automatic second quote, spec-notes Q6). */
    purpose: string;
    /** `ok`, `timeout`, `http_error`, `invalid_response` or the seller's error code. */
    outcome: string;
    /** Wall time of the call in milliseconds (monotonic clock). */
    latency_ms: number;
    /** HTTP status of the seller's answer, null when none came. */
    http_status: number | null;
    /** Why the outcome is not `ok` (rule ids and messages, or the transport error), for the integrator. */
    detail: string | null;
    /** 1 when the shopper was given freight-table options because this call failed (spec-notes Q8), else 0. */
    fallback_used: number;
    /** The gateway kind of a `gateway` method's call (D57); NULL for a seller-API call. */
    gateway_kind: string | null;
    created_at: string;
  };
}
