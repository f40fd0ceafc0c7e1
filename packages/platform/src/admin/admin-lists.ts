import { defineListResource } from '../lists/list-resource.js';

// The admin lists, declared for the shared list engine (src/lists/), so they
// follow the same conventions as the record APIs: `_limit`/`_offset`, cursors,
// `_sort`, filters, the spec's envelope (spec-notes L1–L9).

export interface SellerListRow {
  id: string;
  name: string;
  login: string;
  created_at: string;
}

/** Sellers, without tenants: the route attaches each page's tenants in one query. Never selects the password hash. */
export const sellerList = defineListResource({
  name: 'admin.sellers',
  fields: {
    id: { column: 'id', type: 'id' },
    name: { column: 'name', type: 'string' },
    login: { column: 'login', type: 'string' },
    created_at: { column: 'created_at', type: 'datetime' },
  },
  sorts: ['name', 'login', 'created_at'],
  defaultSort: [{ field: 'created_at', direction: 'asc' }],
  present: (row: SellerListRow) => row,
});

export interface ClientListRow {
  id: string;
  name: string;
  redirect_uris: string;
  scopes: string;
  default_scopes: string;
  terms_of_use_url: string | null;
  privacy_policy_url: string | null;
  created_at: string;
  token_endpoint_auth_method: string;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
}

/** Client applications, never their secret hash. `client_id` and `id` name the same column. */
export const clientList = defineListResource({
  name: 'admin.clients',
  fields: {
    id: { column: 'id', type: 'id' },
    client_id: { column: 'id', type: 'id' },
    name: { column: 'name', type: 'string' },
    created_at: { column: 'created_at', type: 'datetime' },
  },
  sorts: ['name', 'created_at'],
  defaultSort: [{ field: 'created_at', direction: 'asc' }],
  present: (row: ClientListRow) => row,
});
