// @feira/platform: the server. Entry points (the CLI) use these exports.
export {
  type ClientApp,
  createClient,
  createSeller,
  findClientById,
  findSellerById,
  findSellerByLogin,
  listTenantsOfSeller,
  type Seller,
  type Tenant,
  verifyClientSecret,
} from './accounts/index.js';
export { type AppDeps, buildApp, createPlatformContext } from './app.js';
export type { ConsoleKit } from './console/console-kit.js';
export type { ConsoleSection } from './console/console-section.js';
export { CONSOLE_SECTIONS } from './console/console-sections.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_API_RATE_LIMIT,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
  DEFAULT_RETENTION,
  DEFAULT_SECRET_REVEAL_REAUTH_SECONDS,
  DEFAULT_SIGNING_KEYS,
  type DispatcherTuning,
  GATEWAY_TIMEOUT_BOUNDS_MS,
  type PlatformConfig,
  type PlatformConfigInput,
  platformConfig,
  type RetentionPolicy,
  type SigningKeyTuning,
  type UploadLimits,
} from './core/config.js';
export { PlatformError } from './core/platform-error.js';
export { cryptoRandom, type Random } from './core/random.js';
export {
  DEFAULT_DISPATCHER_TUNING,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  PLATFORM_SETTINGS,
  type PlatformSettings,
  type ProcessSettings,
  SETTING_LEAVES,
  SETTINGS,
  type SettingAnnotation,
  type SettingCommand,
  type SettingLeaf,
  type SettingReader,
} from './core/settings.js';
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
export {
  ACCESS_TOKEN_TYP,
  createIdentityServices,
  type IdentityServices,
  issueAuthorizationCode,
  type NewAuthorizationCode,
  REFRESH_TOKEN_TYP,
  type RefreshTokenKeys,
  refreshTokenKeys,
  type TokenInput,
  TokenSigner,
} from './identity/index.js';
export { type ListRequest, type ListSettings, runList, runListForRequest } from './lists/list-engine.js';
export { defineListResource, type ListField, type ListFieldType, type ListResource } from './lists/list-resource.js';
export { type OutboundPolicy, outboundPolicyOf, refusalReason } from './outbound/address-policy.js';
export { createOutboundAgent, defaultTrustedCertificates } from './outbound/outbound-agent.js';
export {
  type CreatePlatformOptions,
  createPlatform,
  type Platform,
  type PlatformConfigSource,
  type PlatformListen,
  type PlatformRoles,
} from './platform.js';
export { type PrepareDatabaseOptions, prepareDatabase } from './prepare-database.js';
export {
  type AnyRecordKind,
  appendEvent,
  BUILT_IN_RECORD_KINDS,
  deleteRecord,
  findRecord,
  insertOrder,
  insertRecord,
  inTransaction,
  type KindStorage,
  type LocalizedText,
  type OrderRow,
  orderKind,
  type ProductRow,
  productKind,
  RECORD_KINDS,
  type RecordChange,
  type RecordKind,
  type RecordKindRegistry,
  type RecordTable,
  type RecordWriteDeps,
  recordKindOf,
  recordKindOfTopic,
  recordKindRegistry,
  recordPath,
  type SeedCounts,
  type SeedDeps,
  type SeedResult,
  seedRecords,
  ticketKind,
  transactionKind,
  updateRecord,
} from './records/index.js';
export { type RunningPlatform, type StartPlatformOptions, startPlatform } from './server.js';
export type { QuoteCallRecord } from './shipping/index.js';
export {
  BUILT_IN_QUOTE_METHODS,
  callSellerQuote,
  checkQuoteUrl,
  configureShippingSettings,
  createShippingServices,
  DEFAULT_SKUS,
  DEFAULT_UPLOAD_LIMITS,
  DEFAULT_ZIPCODE,
  FREIGHT_COLUMNS,
  type FreightRow,
  findShippingSettings,
  freightOptions,
  freightTablesOf,
  importFreightTable,
  MARKETPLACE_OWNER,
  QUOTE_LOG_BATCH,
  QUOTE_METHOD_MODULES,
  type QuoteCallOptions,
  type QuoteCallResult,
  type QuoteCheckOptions,
  type QuoteCheckReport,
  type QuoteLogStore,
  QuoteLogWriter,
  type QuoteLogWriterOptions,
  type QuoteMethodModule,
  type QuoteMethodRegistry,
  type QuoteTarget,
  quoteLogFileOf,
  quoteLogInDatabase,
  quoteLogStoreFor,
  quoteMethodRegistry,
  readFreightCsv,
  runQuoteCheck,
  type ShippingServices,
  type ShippingSettings,
  type ShippingSettingsBody,
} from './shipping/index.js';
export { type Database, type DialectName, dialectOf, openDatabase, redactUrl } from './storage/database.js';
export { migrateToLatest } from './storage/migrate.js';
export { backupSqliteFile } from './storage/sqlite-backup.js';
export type { QuietWindowStats } from './storage/wal-checkpointer.js';
export {
  DEFAULT_LEASE_MS,
  redeliverDelivery,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhooks/index.js';
export { type BackgroundWorkerOptions, type BackgroundWorkers, startBackgroundWorkers } from './workers.js';
