import { BoundedCache } from '../core/bounded-cache.js';
import type { PlatformContext } from '../http/platform-context.js';
import { BUILT_IN_QUOTE_METHODS, type QuoteMethodRegistry } from './methods/index.js';
import { quoteLogStoreFor } from './quote-log/quote-log.js';
import { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './quote-log/quote-log-writer.js';

/** What the shipping capability adds to the platform's services: the quote methods (Q8), the quote log (Q7). */
export interface ShippingServices extends PlatformContext {
  /** The quote log's batched writer and its store; readers of the log flush it first. */
  quoteLog: QuoteLogWriter;
  /** Parsed weight bands of freight-table versions (immutable once written), so a quote does not re-parse them. */
  freightBands: BoundedCache<number, [number, number][]>;
  /** The quote methods a store may choose (methods/index.ts); tests may add throw-away ones. */
  quoteMethods: QuoteMethodRegistry;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The shipping capability's services (`request.server.shipping`). */
    shipping: ShippingServices;
  }
}

export function createShippingServices(
  platform: PlatformContext,
  options: { quoteLogBatch?: Partial<QuoteLogWriterOptions>; quoteMethods?: QuoteMethodRegistry } = {},
): ShippingServices {
  const quoteLog = new QuoteLogWriter(quoteLogStoreFor(platform.database), { ...QUOTE_LOG_BATCH, ...options.quoteLogBatch });
  return {
    ...platform,
    quoteLog,
    freightBands: new BoundedCache(1024),
    quoteMethods: options.quoteMethods ?? BUILT_IN_QUOTE_METHODS,
  };
}
