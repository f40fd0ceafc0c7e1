import type { DeliveryOption, QuotePackage, QuoteRequest, QuoteSellerError } from '@feira/contract';
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { BoundedCache } from '../../core/bounded-cache.js';
import type { Clock } from '../../core/clock.js';
import type { PlatformConfig } from '../../core/config.js';
import type { SecretBox } from '../../core/secret-box.js';
import type { PlatformContext } from '../../http/platform-context.js';
import type { LocalizedText, MessageKey } from '../../i18n/i18n.js';
import type { Database } from '../../storage/database.js';
import type { Schema } from '../../storage/schema.js';
import type { FreightLine } from '../freight/freight-pricing.js';
import type { QuoteCallResult } from '../quote-caller.js';

/** The name of a registered quote method (spec-notes Q8): in the settings, an option's `source`, the order. */
export type QuoteMethod = string;

/** A tenant's stored quote settings (spec-notes Q1, Q8). */
export interface ShippingSettings {
  tenantId: string;
  methods: QuoteMethod[];
  /** seller_api's URL; null without that method. */
  url: string | null;
  distributionCenterIds: string[];
  /** The same centres with the zipcode each was given (a gateway's origin, D59). */
  distributionCenters: { id: string; zipcode?: string }[];
  fallback: 'freight_table' | null;
  /** The gateway's kind, its registered id (kind `seller_api_contract`) and the store's sealed credential (method `gateway`). */
  gateway: { kind: string; id: string | null; sealedCredential: string } | null;
}

/** The stored settings row, as every reader selects it (`SHIPPING_SETTINGS_COLUMNS`). */
export type ShippingSettingsRow = Pick<
  Schema['shipping_settings'],
  | 'method'
  | 'methods'
  | 'url'
  | 'distribution_center_ids'
  | 'distribution_center_zipcodes'
  | 'fallback'
  | 'gateway_id'
  | 'gateway_credential'
  | 'gateway_kind'
>;

/** The settings fields every store has, whatever its methods. */
export interface CommonSettingsBody {
  method?: QuoteMethod;
  methods?: QuoteMethod[];
  fallback?: 'freight_table' | null;
  distribution_centers: { id: string; zipcode?: string }[];
}

/** What settings validation may use. */
export interface SettingsDeps {
  database: Database;
  clock: Clock;
  config: Pick<PlatformConfig, 'mode'>;
  box?: SecretBox;
}

/** What a method is given to validate and store its part of the settings. */
interface SettingsContext<Fields extends TProperties> {
  body: CommonSettingsBody & Static<TObject<Fields>>;
  /** Whether the store chose this method; a method refuses its own fields otherwise. */
  chosen: boolean;
  deps: SettingsDeps;
  tenantId: string;
}

/** An option with the method that priced it (carried into the order, spec-notes Q8). */
export type SourcedOption = DeliveryOption & { source: QuoteMethod };

/** What one method gave for a quote. */
export type MethodAnswer =
  | {
      method: QuoteMethod;
      kind: 'options';
      packages: { items: QuotePackage['items']; delivery_options: SourcedOption[] }[];
      /** The call that gave them (seller API, gateway), for the log. */
      call?: QuoteCallResult;
    }
  /** A freight-table method without a row for this zipcode, weight and volume. */
  | { method: QuoteMethod; kind: 'no_rate' }
  /** A call that did not end `ok`: the logged result. */
  | { method: QuoteMethod; kind: 'call_failed'; call: QuoteCallResult }
  /** The seller (or gateway) answered a business error: out_of_stock, delivery_not_available, invalid_zipcode. */
  | { method: QuoteMethod; kind: 'business_error'; call: QuoteCallResult; error: QuoteSellerError };

export interface MethodInput {
  tenantId: string;
  settings: ShippingSettings;
  request: QuoteRequest;
  lines: readonly FreightLine[];
}

/** What a method may use to answer: the narrowest slice of the shipping services. */
export type QuoteMethodServices = Pick<PlatformContext, 'database' | 'outbound' | 'box' | 'config'> & {
  /** Parsed weight bands of freight-table versions. */
  freightBands: BoundedCache<number, [number, number][]>;
};

/**
 * Everything a quote method declares (spec-notes Q8). The settings schema,
 * its validation, the stored row, the quote, backup rates, the OpenAPI
 * document and the console read these; a new method is a module of this
 * shape plus its line in `QUOTE_METHOD_MODULES` (methods/index.ts).
 */
export interface QuoteMethodModule<Fields extends TProperties = TProperties> {
  /** The name in the settings (`method`, `methods`), in an option's `source` and in the order. */
  readonly name: QuoteMethod;
  /** What it is, in a few words: the OpenAPI description of the method names. */
  readonly description: string;
  /** Its label in the console: a key of both catalogues (i18n/), or the words for each locale (a method of an embedding app). */
  readonly labelKey: MessageKey | LocalizedText;
  /** The settings fields it owns, each `Type.Optional` (merged into the settings body schema). */
  readonly settingsFields: Fields;
  /**
   * Whether a failed call (timeout, http_error, invalid_response) may be backed
   * up by the store freight tables (`fallback`); methods that call nobody have
   * nothing to back up.
   */
  readonly backedUp: boolean;
  /** Checks its fields from the body alone, before the store is looked up: a 422 naming the field. */
  checkSettings?(context: SettingsContext<Fields>): Promise<void> | void;
  /** Once the store is known: validates against the database and gives the columns it stores. */
  writeSettings?(context: SettingsContext<Fields>): Promise<Partial<ShippingSettingsRow>>;
  /** Its part of the stored settings, read from the row. */
  readSettings?(row: ShippingSettingsRow, chosen: boolean): Partial<Omit<ShippingSettings, 'tenantId' | 'methods'>>;
  /** Its part of the settings as the admin API shows them (secrets never). */
  presentSettings?(settings: ShippingSettings): Record<string, unknown>;
  /** Prices a quote. */
  answer(services: QuoteMethodServices, input: MethodInput): Promise<MethodAnswer>;
}

/** The answer of a method that called a seller-API-shaped endpoint: options, the business error, or the failed call. */
export function callAnswer(method: QuoteMethod, call: QuoteCallResult): MethodAnswer {
  if (call.outcome === 'ok' && call.response) {
    return {
      method,
      kind: 'options',
      call,
      packages: call.response.packages.map((pkg) => ({
        items: pkg.items,
        delivery_options: pkg.delivery_options.map((option) => ({ ...option, source: method })),
      })),
    };
  }
  if (call.sellerError) return { method, kind: 'business_error', call, error: call.sellerError };
  return { method, kind: 'call_failed', call };
}
