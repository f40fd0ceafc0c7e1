import { ListEnvelope, RateLimitSetting, RateLimitView, SCOPE_NAMES } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';

// TypeBox schemas of the admin API. Every object is closed
// (`additionalProperties: false`): an unknown field is a 422 naming it, and the
// OpenAPI document at /openapi.json is generated from these.

const closed = { additionalProperties: false } as const;

/** Error responses reference the shared platform error schema registered by buildApp (spec-notes L9). */
export const ErrorResponse = Type.Unsafe<unknown>({ $ref: 'PlatformError#' });

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL' });
const ScopeName = Type.String({ minLength: 1, maxLength: 100, description: `One of: ${SCOPE_NAMES.join(', ')}` });

export const CreateSellerBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    login: Type.String({
      minLength: 1,
      maxLength: 320,
      description: 'What the seller types on the login page (often an e-mail)',
    }),
    password: Type.String({ minLength: 8, maxLength: 1024, description: 'Hashed with scrypt; never returned' }),
    tenants: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, closed), {
      maxItems: 100,
      description: 'The seller’s stores; each gets a UUID',
    }),
  },
  { ...closed, $id: 'CreateSeller' },
);
export type CreateSellerBody = Static<typeof CreateSellerBody>;

export const UpdateSellerBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    login: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    password: Type.Optional(
      Type.String({ minLength: 8, maxLength: 1024, description: 'A new password ends every login session of the seller' }),
    ),
  },
  { ...closed, $id: 'UpdateSeller', minProperties: 1 },
);
export type UpdateSellerBody = Static<typeof UpdateSellerBody>;

export const StoreBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { ...closed, $id: 'StoreName' });

export const SellerDeletionView = Type.Object(
  {
    stores: Type.Integer({
      description: 'Stores deleted with the seller, with every record, subscription and delivery of theirs',
    }),
    revoked_grants: Type.Integer({
      description: 'Token families revoked: their access and refresh tokens are refused from now on',
    }),
    ended_sessions: Type.Integer({ description: 'Login sessions ended' }),
  },
  closed,
);

export const StoreDeletionView = Type.Object(
  {
    apps: Type.Integer({ description: "Apps whose consent for the store was withdrawn (the store's data went with it)" }),
  },
  closed,
);

export const ClientDeletionView = Type.Object(
  {
    revoked_grants: Type.Integer({ description: 'Token families of the app revoked' }),
    subscriptions: Type.Integer({ description: 'Webhook subscriptions of the app deleted, with their deliveries' }),
  },
  closed,
);

const TenantView = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }, closed);

export const SellerView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    login: Type.String(),
    tenants: Type.Array(TenantView),
    created_at: Type.String({ format: 'date-time' }),
  },
  closed,
);
export type SellerView = Static<typeof SellerView>;

export const CreateClientBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    redirect_uris: Type.Array(Url, {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'Absolute URLs without fragment (RFC 6749 §3.1.2)',
    }),
    scopes: Type.Array(ScopeName, {
      minItems: 1,
      uniqueItems: true,
      description:
        'From the scope catalogue. `openid` is accepted and not stored: every client may ask for it (D108); at least one API scope is needed',
    }),
    default_scopes: Type.Array(ScopeName, {
      uniqueItems: true,
      description: 'A subset of scopes, always granted; `openid` is accepted and not stored (D108)',
    }),
    terms_of_use_url: Type.Optional(Url),
    privacy_policy_url: Type.Optional(Url),
    token_endpoint_auth_method: Type.Optional(
      Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post'), Type.Literal('none')], {
        description:
          'RFC 7591 §2. `none`: a public client (a browser or mobile app) with no secret, which must use PKCE S256 (spec-notes I13). Default `client_secret_basic`; a confidential client may send its secret by Basic or in the body either way',
      }),
    ),
  },
  { ...closed, $id: 'CreateClient' },
);
export type CreateClientBody = Static<typeof CreateClientBody>;

const clientFields = {
  client_id: Type.String(),
  name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  default_scopes: Type.Array(Type.String()),
  terms_of_use_url: Type.Union([Type.String(), Type.Null()]),
  privacy_policy_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  token_endpoint_auth_method: Type.String({ description: '`none` for a public client (no secret, PKCE required)' }),
  allowed_origins: Type.Array(Type.String(), {
    description: 'The browser origins that may call the API and token endpoint for this app (CORS): its redirect URIs’ origins',
  }),
  /** The app's API rate limit per store (spec-notes I20): a bucket of `burst` requests refilled at `requests_per_second`. */
  rate_limit: RateLimitView,
};

/** `PATCH /admin/v1/clients/{client_id}`: what the operator may change of an app. */
export const UpdateClientBody = Type.Object(
  {
    rate_limit: Type.Union([RateLimitSetting, Type.Null()], {
      description: 'The app’s own API rate limit per store (spec-notes I20); null goes back to the platform’s default',
    }),
  },
  { ...closed, $id: 'UpdateClient', minProperties: 1 },
);
export type UpdateClientBody = Static<typeof UpdateClientBody>;

/** A client as listed and read: never the secret. */
export const ClientView = Type.Object(clientFields, closed);
export type ClientView = Static<typeof ClientView>;

/** The creation response: the only time the secret is shown. */
export const CreatedClientView = Type.Object(
  {
    ...clientFields,
    client_secret: Type.Union([Type.String(), Type.Null()], {
      description: 'Shown only in this response; stored as a hash. Null for a public client, which has none',
    }),
  },
  closed,
);

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, closed);

export const SellerList = ListEnvelope(SellerView);
export const ClientList = ListEnvelope(ClientView);
