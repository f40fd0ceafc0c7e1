import type { DeliveryOption, QuoteRequest } from '@feira/contract';
import {
  centimetres,
  daysOf,
  type GatewayAdapter,
  type GatewayOrigin,
  gatewayOption,
  isRecord,
  moneyOf,
  textOf,
  wholeCartResponse,
} from './gateway-adapter.js';

/** The request body of `POST /api/v2/me/shipment/calculate` (Melhor Envio's public API documentation). */
interface MelhorEnvioCalculateBody {
  from: { postal_code: string };
  to: { postal_code: string };
  products: {
    id: string;
    width: number;
    height: number;
    length: number;
    weight: number;
    insurance_value: number;
    quantity: number;
  }[];
}

function melhorEnvioBody(request: QuoteRequest, origin: GatewayOrigin): MelhorEnvioCalculateBody {
  return {
    from: { postal_code: origin.zipcode },
    to: { postal_code: request.zipcode },
    products: request.items.map((item) => ({
      id: item.sku,
      width: centimetres(item.dimensions.width),
      height: centimetres(item.dimensions.height),
      length: centimetres(item.dimensions.depth),
      weight: item.dimensions.weight,
      insurance_value: item.price,
      quantity: item.quantity,
    })),
  };
}

/**
 * Melhor Envio (D57): Bearer token; centimetres and kilograms; an array of
 * services, each priced (`custom_price`, `custom_delivery_time`: the account's
 * own markups and extra days, else `price`, `delivery_time`) or carrying
 * `error` (left out, D58); one without id, price or delivery time is left out
 * too and named in the quote log (D107). Every request carries the
 * `User-Agent: Application (contact e-mail)` Melhor Envio requires. Option ids are `melhor-envio-<service id>`.
 */
export const melhorEnvioAdapter: GatewayAdapter = {
  kind: 'melhor_envio',
  label: 'Melhor Envio',
  baseUrlSetting: 'melhorEnvio',
  path: '/api/v2/me/shipment/calculate',
  protocol(credential, origin, userAgent) {
    const authorization = /^bearer\s/i.test(credential) ? credential : `Bearer ${credential}`;
    return {
      encode: (request) => ({
        body: JSON.stringify(melhorEnvioBody(request, origin)),
        headers: { authorization, 'user-agent': userAgent },
      }),
      decode(answer, request) {
        if (!Array.isArray(answer)) return { invalid: 'gateway.shape: the Melhor Envio answer is not an array of services' };
        const options: DeliveryOption[] = [];
        const refused: string[] = [];
        const malformed: string[] = [];
        for (const [i, service] of answer.entries()) {
          if (!isRecord(service)) return { invalid: `gateway.shape: service [${i}] is not an object` };
          const name = textOf(service.name) ?? `service ${i}`;
          const carrier = isRecord(service.company) ? textOf(service.company.name) : undefined;
          if (service.error !== undefined && service.error !== null && service.error !== false) {
            refused.push(`${carrier ? `${carrier} ` : ''}${name}: ${String(textOf(service.error) ?? 'error')}`);
            continue;
          }
          const id = textOf(service.id);
          const price = moneyOf(service.custom_price ?? service.price);
          const days = daysOf(service.custom_delivery_time ?? service.delivery_time);
          if (id === undefined || price === undefined || days === undefined) {
            malformed.push(`service [${i}] (${name}) has no id, price or delivery_time`);
            continue;
          }
          options.push(gatewayOption({ id: `melhor-envio-${id}`, carrier, service: name, price, days }, origin));
        }
        return wholeCartResponse(request, options, refused, 'Melhor Envio', malformed);
      },
    };
  },
};
