// @feira/platform: the server. Entry points (the CLI) use these exports.
export { type ClientApp, createClient, findClientById, verifyClientSecret } from './accounts/client-repository.js';
export {
  createSeller,
  findSellerById,
  findSellerByLogin,
  listTenantsOfSeller,
  type Seller,
  type Tenant,
} from './accounts/seller-repository.js';
export { type AppDeps, buildApp, createPlatformContext } from './app.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
  type DispatcherTuning,
  type PlatformConfig,
  type PlatformConfigInput,
  platformConfig,
} from './core/config.js';
export { PlatformError } from './core/platform-error.js';
export { cryptoRandom, type Random } from './core/random.js';
export { DEMO_RECORD_COUNTS, seedDemoRecords } from './demo/demo-records.js';
export {
  DEMO_CLIENT_NAME,
  DEMO_SELLER_LOGIN,
  type DemoCredentials,
  type DemoRecordsSeeder,
  demoLoginUrl,
  seedDemo,
} from './demo/demo-seed.js';
export {
  catalogueStock,
  configureDemoSellerShipping,
  DEMO_DISTRIBUTION_CENTERS,
  type DemoSeller,
  type DemoSellerOptions,
  type DemoStockLookup,
  startDemoSeller,
} from './demo/demo-seller.js';
export { bearerToken } from './http/bearer-token.js';
export type { PlatformContext } from './http/platform-context.js';
export { parseTrustedProxies } from './http/trusted-proxies.js';
export { issueAuthorizationCode, type NewAuthorizationCode } from './identity/authorization-codes.js';
export { createIdentityServices, type IdentityServices } from './identity/identity-services.js';
export { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP, type TokenInput, TokenSigner } from './identity/token-signer.js';
export { type ListRequest, type ListSettings, runList, runListForRequest } from './lists/list-engine.js';
export { defineListResource, type ListField, type ListFieldType, type ListResource } from './lists/list-resource.js';
export { type OutboundPolicy, outboundPolicyOf, refusalReason } from './outbound/address-policy.js';
export { createOutboundAgent } from './outbound/outbound-agent.js';
export {
  type CreatePlatformOptions,
  createPlatform,
  type Platform,
  type PlatformConfigSource,
  type PlatformListen,
  type PlatformRoles,
} from './platform.js';
export { insertOrder, type OrderRow, orderKind } from './records/kinds/orders.js';
export { type ProductRow, productKind } from './records/kinds/products.js';
export { ticketKind } from './records/kinds/tickets.js';
export { transactionKind } from './records/kinds/transactions.js';
export { appendEvent, type RecordChange } from './records/outbox.js';
export { type RecordKind, type RecordTable, recordPath } from './records/record-kind.js';
export { type AnyRecordKind, RECORD_KINDS, recordKindOf, recordKindOfTopic } from './records/record-kinds.js';
export {
  deleteRecord,
  findRecord,
  insertRecord,
  inTransaction,
  type RecordWriteDeps,
  updateRecord,
} from './records/record-write.js';
export { type SeedCounts, type SeedDeps, type SeedResult, seedRecords } from './records/seed-records.js';
export { type RunningPlatform, type StartPlatformOptions, startPlatform } from './server.js';
export { FREIGHT_COLUMNS, type FreightRow, readFreightCsv } from './shipping/freight/freight-csv.js';
export { freightOptions, freightTablesOf } from './shipping/freight/freight-lookup.js';
export { importFreightTable, MARKETPLACE_OWNER } from './shipping/freight/freight-table-store.js';
export { callSellerQuote, type QuoteCallOptions, type QuoteCallResult } from './shipping/quote-caller.js';
export {
  DEFAULT_SKUS,
  DEFAULT_ZIPCODE,
  type QuoteCheckOptions,
  type QuoteCheckReport,
  runQuoteCheck,
} from './shipping/quote-check.js';
export type { QuoteCallRecord } from './shipping/quote-log/quote-call-rows.js';
export { quoteLogStoreFor } from './shipping/quote-log/quote-log.js';
export { type QuoteLogStore, quoteLogInDatabase } from './shipping/quote-log/quote-log-store.js';
export { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './shipping/quote-log/quote-log-writer.js';
export { checkQuoteUrl, type QuoteTarget } from './shipping/quote-url.js';
export { createShippingServices, type ShippingServices } from './shipping/shipping-services.js';
export {
  configureShippingSettings,
  findShippingSettings,
  type ShippingSettings,
  type ShippingSettingsBody,
} from './shipping/shipping-settings.js';
export { type Database, type DialectName, dialectOf, openDatabase, redactUrl } from './storage/database.js';
export { migrateToLatest } from './storage/migrate.js';
export type { QuietWindowStats } from './storage/wal-checkpointer.js';
export { redeliverDelivery } from './webhooks/redelivery.js';
export {
  DEFAULT_BATCH_SIZE,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_PER_ENDPOINT_IN_FLIGHT,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhooks/webhook-dispatcher.js';
export { type BackgroundWorkerOptions, type BackgroundWorkers, startBackgroundWorkers } from './workers.js';
