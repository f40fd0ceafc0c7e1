import { BoundedCache } from '../core/bounded-cache.js';
import type { PlatformContext } from '../core/platform-context.js';
import { quoteLogStoreFor } from './quote-log/quote-log.js';
import { QUOTE_LOG_BATCH, QuoteLogWriter, type QuoteLogWriterOptions } from './quote-log/quote-log-writer.js';

/** What the shipping capability adds to the platform's services: the quote log (spec-notes Q7). */
export interface ShippingServices extends PlatformContext {
  /** The quote log's batched writer and its store; readers of the log flush it first. */
  quoteLog: QuoteLogWriter;
  /** Parsed weight bands of freight-table versions (immutable once written), so a quote does not re-parse them. */
  freightBands: BoundedCache<number, [number, number][]>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The shipping capability's services (`request.server.shipping`). */
    shipping: ShippingServices;
  }
}

export function createShippingServices(
  platform: PlatformContext,
  options: { quoteLogBatch?: Partial<QuoteLogWriterOptions> } = {},
): ShippingServices {
  const quoteLog = new QuoteLogWriter(quoteLogStoreFor(platform.database), { ...QUOTE_LOG_BATCH, ...options.quoteLogBatch });
  return { ...platform, quoteLog, freightBands: new BoundedCache(1024) };
}
