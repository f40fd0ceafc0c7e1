// @feira/platform: the server. Entry points (the CLI) use these exports.
export { type ClientApp, createClient, findClientById, verifyClientSecret } from './admin/client-repository.js';
export {
  DEMO_CLIENT_NAME,
  DEMO_SELLER_LOGIN,
  type DemoCredentials,
  type DemoRecordsSeeder,
  demoLoginUrl,
  seedDemo,
} from './admin/demo-seed.js';
export {
  createSeller,
  findSellerById,
  findSellerByLogin,
  listTenantsOfSeller,
  type Seller,
  type Tenant,
} from './admin/seller-repository.js';
export { type AppDeps, buildApp, createPlatformContext, type PlatformContext } from './app.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
  outboundPolicyOf,
  type PlatformConfig,
} from './core/config.js';
export { PlatformError } from './core/platform-error.js';
export { cryptoRandom, type Random } from './core/random.js';
export { type OutboundPolicy, refusalReason } from './http/address-policy.js';
export { createOutboundAgent } from './http/outbound-agent.js';
export { issueAuthorizationCode, type NewAuthorizationCode } from './identity/authorization-codes.js';
export { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP, type TokenInput, TokenSigner } from './identity/token-signer.js';
export { type ListRequest, type ListSettings, runList, runListForRequest } from './lists/list-engine.js';
export { defineListResource, type ListField, type ListFieldType, type ListResource } from './lists/list-resource.js';
export { DEMO_RECORD_COUNTS, seedDemoRecords } from './records/demo-records.js';
export { deleteOrder, findOrder, insertOrder, type OrderRow, orderPath, updateOrder } from './records/order-repository.js';
export { appendEvent, type RecordChange } from './records/outbox.js';
export { findProduct, findProductBySku, insertProduct, type ProductRow, productPath } from './records/product-repository.js';
export { type SeedCounts, type SeedDeps, type SeedResult, seedRecords } from './records/seed-records.js';
export { insertTicket, ticketPath } from './records/ticket-repository.js';
export { insertTransaction, transactionPath } from './records/transaction-repository.js';
export { type RunningPlatform, type StartPlatformOptions, startPlatform } from './server.js';
export {
  catalogueStock,
  configureDemoSellerShipping,
  DEMO_DISTRIBUTION_CENTERS,
  type DemoSeller,
  type DemoSellerOptions,
  type DemoStockLookup,
  startDemoSeller,
} from './shipping/demo-seller.js';
export { callSellerQuote, type QuoteCallOptions, type QuoteCallResult } from './shipping/quote-caller.js';
export type { QuoteCallRecord } from './shipping/quote-log.js';
export { type QuoteLogStore, quoteLogInDatabase, quoteLogStoreFor } from './shipping/quote-log-store.js';
export { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './shipping/quote-log-writer.js';
export { checkQuoteUrl, type QuoteTarget } from './shipping/quote-url.js';
export {
  configureShippingSettings,
  findShippingSettings,
  type ShippingSettings,
  type ShippingSettingsBody,
} from './shipping/shipping-settings.js';
export { type Database, type DialectName, dialectOf, openDatabase, redactUrl } from './storage/database.js';
export { migrateToLatest } from './storage/migrate.js';
export { redeliverDelivery } from './webhooks/delivery-admin-routes.js';
export { WebhookDispatcher, type WebhookDispatcherOptions } from './webhooks/webhook-dispatcher.js';
export { type BackgroundWorkerOptions, type BackgroundWorkers, startBackgroundWorkers } from './workers.js';
