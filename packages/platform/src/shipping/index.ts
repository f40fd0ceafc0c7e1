/**
 * The public face of shipping/: quote methods, the seller-API caller, freight tables, the quote log, shipping settings and routes.
 * Every other folder imports shipping/ through this file only (dependency-cruiser rule
 * 'capability-public-face'); files inside shipping/ import each other directly.
 */
export { FREIGHT_COLUMNS, type FreightRow, readFreightCsv } from './freight/freight-csv.js';
export { freightOptions, freightTablesOf } from './freight/freight-lookup.js';
export { sellerFreightRoutes } from './freight/freight-routes.js';
export {
  deleteFreightTable,
  deleteFreightTablesOf,
  findFreightTable,
  freightRowsPage,
  importFreightTable,
  MARKETPLACE_OWNER,
} from './freight/freight-table-store.js';
export { DEFAULT_UPLOAD_LIMITS } from './freight/upload-limits.js';
export { GATEWAY_KINDS } from './methods/gateways/index.js';
export {
  BUILT_IN_QUOTE_METHODS,
  QUOTE_METHOD_MODULES,
  type QuoteMethodRegistry,
  quoteMethodRegistry,
} from './methods/index.js';
export type { QuoteMethodModule } from './methods/quote-method.js';
export { sellerPreviewRoutes } from './preview-routes.js';
export { callSellerQuote, type QuoteCallOptions, type QuoteCallResult } from './quote-caller.js';
export {
  DEFAULT_SKUS,
  DEFAULT_ZIPCODE,
  type QuoteCheckOptions,
  type QuoteCheckReport,
  quoteTestRecorder,
  runQuoteCheck,
} from './quote-check.js';
export { newestStoreQuoteCalls, type QuoteCallRecord, quoteLatenciesSince } from './quote-log/quote-call-rows.js';
export { quoteLogStoreFor } from './quote-log/quote-log.js';
export { quoteLogFileOf } from './quote-log/quote-log-file.js';
export { quoteCallList, quoteCallsOf } from './quote-log/quote-log-list.js';
export { quoteCallRetention } from './quote-log/quote-log-retention.js';
export { type QuoteLogStore, quoteLogInDatabase } from './quote-log/quote-log-store.js';
export { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './quote-log/quote-log-writer.js';
export { isQuoteWindow, QUOTE_WINDOWS, type QuoteStats, type QuoteWindow, quoteStats } from './quote-log/quote-stats.js';
export { previewStoreQuote, type QuotePreview } from './quote-preview.js';
export { checkQuoteUrl, type QuoteTarget } from './quote-url.js';
export { shippingRoutes } from './shipping-routes.js';
export { createShippingServices, type ShippingServices } from './shipping-services.js';
export {
  configureShippingSettings,
  findShippingSettings,
  presentShippingSettings,
  type ShippingSettings,
  type ShippingSettingsBody,
  saveShippingSettings,
  shippingSealedColumns,
} from './shipping-settings.js';
