import { Type } from '@sinclair/typebox';
import { refuseField } from '../../core/refusals.js';
import { outboundPolicyOf } from '../../outbound/address-policy.js';
import { callSellerQuote } from '../quote-caller.js';
import { checkQuoteUrl, quoteTargetOf } from '../quote-url.js';
import { callAnswer, type QuoteMethodModule } from './quote-method.js';

const settingsFields = {
  url: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'seller_api: the seller quote URL, called exactly as given (query string included)',
    }),
  ),
};

/** spec-notes Q1/Q3/Q4: the seller's own endpoint, at the URL in the store's settings. */
export const sellerApiMethod: QuoteMethodModule<typeof settingsFields> = {
  name: 'seller_api',
  description: 'the seller quote URL',
  labelKey: 'shipping.method.seller_api',
  settingsFields,
  backedUp: true,
  // spec-notes Q1, W9: the URL rules depend on the mode (strict: HTTPS, no port, public address; sandbox: also http, ports, loopback).
  async checkSettings({ body, chosen, deps }) {
    if (chosen) {
      if (body.url === undefined) throw refuseField('SHIPPING_URL_REQUIRED', 'url', 'body');
      await checkQuoteUrl(body.url, outboundPolicyOf(deps.config));
    } else if (body.url !== undefined) {
      throw refuseField('SHIPPING_URL_NOT_TAKEN', 'url', 'body');
    }
  },
  // The column is NOT NULL: a store without this method keeps an empty URL.
  async writeSettings({ body }) {
    return { url: body.url ?? '' };
  },
  readSettings: (row, chosen) => ({ url: chosen ? row.url : null }),
  presentSettings: (settings) => (settings.url !== null ? { url: settings.url } : {}),
  async answer(services, input) {
    const call = await callSellerQuote(services.outbound, quoteTargetOf(input.settings.url as string), input.request, {
      distributionCenterIds: input.settings.distributionCenterIds,
    });
    return callAnswer('seller_api', call);
  },
};
