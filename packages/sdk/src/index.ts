// @feira/sdk: what a seller's integrator imports. Built from @feira/contract,
// which the published package carries inside it (D53).

// Wire types an integration handles, re-exported so it can import everything from the SDK.
export type {
  ErrorDetail,
  IntrospectionResponse,
  ListMeta,
  Order,
  OrderItem,
  OrderShipping,
  OrderStatus,
  PlatformErrorBody,
  Product,
  ProductDimensions,
  QuoteErrorBody,
  QuoteRequest,
  QuoteResponse,
  QuoteViolation,
  Scope,
  Ticket,
  TicketStatus,
  TokenSet,
  Topic,
  Transaction,
  TransactionType,
  WebhookSignupResponse,
  WebhookSubscription,
} from '@feira/contract';
export { FeiraApiError } from './api/feira-api-error.js';
export {
  FeiraClient,
  type FeiraClientOptions,
  type FilterValue,
  type ListOptions,
  type ListPage,
  type RequestOptions,
} from './api/feira-client.js';
export {
  RECORD_PATHS,
  type RecordAt,
  type RecordByPath,
  type RecordItemPath,
  type RecordListPath,
} from './api/record-paths.js';
export { FeiraConnectionError, FeiraTimeoutError } from './http/connection-errors.js';
export type {
  ExpressLikeNext,
  ExpressLikeRequest,
  ExpressLikeResponse,
  FastifyLikeInstance,
  FastifyLikeReply,
  FastifyLikeRequest,
} from './http/framework-shapes.js';
export type { HeadersLike } from './http/header-value.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type RetryOptions } from './http/retrying-fetch.js';
export { type HandleCallbackOptions, handleCallback, OAuthCallbackError } from './oauth/handle-callback.js';
export {
  type AuthorizationUrlInput,
  authorizationUrl,
  createPkce,
  exchangeCode,
  introspect,
  type OAuthClientCredentials,
  type Pkce,
  refresh,
  revoke,
  type TokenTypeHint,
} from './oauth/oauth-client.js';
export { OAuthError } from './oauth/oauth-error.js';
export {
  DEFAULT_REFRESH_MARGIN_SECONDS,
  NotConnectedError,
  TokenManager,
  type TokenManagerOptions,
} from './oauth/token-manager.js';
export { MemoryTokenStore, type StoredTokens, type TokenStore } from './oauth/token-store.js';
export { type FastifyQuotePluginOptions, fastifyQuotePlugin } from './quotes/fastify-quote-plugin.js';
export {
  centimetresToMetres,
  gramsToKilograms,
  kilogramsToGrams,
  metresToCentimetres,
  mirrorItems,
  roundPrice,
  singlePackageQuote,
} from './quotes/quote-builders.js';
export { QuoteErrorAnswer, type QuoteStock, quoteErrors } from './quotes/quote-error-answer.js';
export {
  createQuoteHandler,
  DEFAULT_QUOTE_BUDGET_MS,
  type QuoteAnswer,
  type QuoteFunction,
  type QuoteHandler,
  type QuoteHandlerOptions,
} from './quotes/quote-handler.js';
export {
  STANDARD_WEBHOOK_HEADERS,
  type StandardWebhook,
  type VerifyStandardWebhookOptions,
  verifyStandardWebhook,
} from './webhooks/verify-standard-webhook.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  type VerifyWebhookOptions,
  verifyWebhook,
} from './webhooks/verify-webhook.js';
export {
  createWebhookHandler,
  expressWebhookHandler,
  type FastifyWebhookPluginOptions,
  fastifyWebhookPlugin,
} from './webhooks/webhook-adapters.js';
export {
  parseWebhookMessage,
  type WebhookMessage,
  type WebhookMessageOf,
  type WebhookStatus,
} from './webhooks/webhook-message.js';
export type { WebhookReceiverOptions } from './webhooks/webhook-receiver.js';
export { type WebhookErrorCode, WebhookVerificationError } from './webhooks/webhook-verification-error.js';
