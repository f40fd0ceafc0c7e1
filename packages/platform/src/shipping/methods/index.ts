import { freightTableMethod } from './freight-table.js';
import { gatewayMethod } from './gateway.js';
import { marketplaceDeliveryMethod } from './marketplace-delivery.js';
import type { QuoteMethod, QuoteMethodModule } from './quote-method.js';
import { sellerApiMethod } from './seller-api.js';

export type {
  CommonSettingsBody,
  MethodAnswer,
  MethodInput,
  QuoteMethod,
  QuoteMethodModule,
  QuoteMethodServices,
  SettingsDeps,
  ShippingSettings,
  ShippingSettingsRow,
  SourcedOption,
} from './quote-method.js';

/**
 * spec-notes Q8: the quote methods a store may combine, in the order the
 * settings schema, its OpenAPI description and the validation messages name
 * them. A new method is one module here (see quote-method.ts) plus its line,
 * and its label in the two catalogues (docs/architecture.md, "Add a quote method").
 */
export const QUOTE_METHOD_MODULES = [sellerApiMethod, freightTableMethod, marketplaceDeliveryMethod, gatewayMethod] as const;

/** The methods one app knows: the settings, the quote, the OpenAPI document and the console read it. */
export interface QuoteMethodRegistry {
  /** Every module, in order. */
  readonly modules: readonly QuoteMethodModule[];
  readonly names: readonly QuoteMethod[];
  /** The module of a method; undefined for a name no module has. */
  find(name: QuoteMethod): QuoteMethodModule | undefined;
  /** The module of a stored method: one the registry lacks is a programming error. */
  get(name: QuoteMethod): QuoteMethodModule;
}

/** `a, b or c`: how descriptions and messages name a choice of methods. */
export function eitherOf(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

const METHOD_NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** Builds a registry from modules; names must be unique snake_case and each field owned by one module. */
export function quoteMethodRegistry(modules: readonly QuoteMethodModule[]): QuoteMethodRegistry {
  const byName = new Map<QuoteMethod, QuoteMethodModule>();
  // The fields every store has belong to no method.
  const fieldOwners = new Map<string, QuoteMethod>(
    ['method', 'methods', 'fallback', 'distribution_centers'].map((field) => [field, 'the settings']),
  );
  for (const module of modules) {
    if (!METHOD_NAME.test(module.name)) throw new Error(`quote method name ${JSON.stringify(module.name)} is not snake_case`);
    if (byName.has(module.name)) throw new Error(`quote method ${module.name} is registered twice`);
    byName.set(module.name, module);
    for (const field of Object.keys(module.settingsFields)) {
      const owner = fieldOwners.get(field);
      if (owner) throw new Error(`settings field ${field} of quote method ${module.name} belongs to ${owner} already`);
      fieldOwners.set(field, module.name);
    }
  }
  return {
    modules: [...modules],
    names: [...byName.keys()],
    find: (name) => byName.get(name),
    get(name) {
      const module = byName.get(name);
      if (!module) throw new Error(`no quote method ${name} is registered`);
      return module;
    },
  };
}

/** The platform's methods: what every app uses unless its deps name others (tests add throw-away ones). */
export const BUILT_IN_QUOTE_METHODS = quoteMethodRegistry(QUOTE_METHOD_MODULES);
