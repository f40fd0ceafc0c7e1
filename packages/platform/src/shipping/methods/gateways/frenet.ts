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

/** The request body of `POST /shipping/quote` (Frenet's public API documentation). */
interface FrenetQuoteBody {
  SellerCEP: string;
  RecipientCEP: string;
  ShipmentInvoiceValue: number;
  ShippingItemArray: { Height: number; Length: number; Width: number; Weight: number; Quantity: number; SKU: string }[];
  RecipientCountry: 'BR';
}

function frenetBody(request: QuoteRequest, origin: GatewayOrigin): FrenetQuoteBody {
  const invoiceCents = request.items.reduce((sum, item) => sum + Math.round(item.price * 100) * item.quantity, 0);
  return {
    SellerCEP: origin.zipcode,
    RecipientCEP: request.zipcode,
    ShipmentInvoiceValue: invoiceCents / 100,
    ShippingItemArray: request.items.map((item) => ({
      Height: centimetres(item.dimensions.height),
      Length: centimetres(item.dimensions.depth),
      Width: centimetres(item.dimensions.width),
      Weight: item.dimensions.weight,
      Quantity: item.quantity,
      SKU: item.sku,
    })),
    RecipientCountry: 'BR',
  };
}

/**
 * Frenet (D57): `token` header; centimetres and kilograms; the services in
 * `ShippingSevicesArray` (sic), each priced or marked `Error` with `Msg`
 * (left out, D58); one without code, price or delivery time is left out too and
 * named in the quote log (D107). Option ids are `frenet-<ServiceCode>`.
 */
export const frenetAdapter: GatewayAdapter = {
  kind: 'frenet',
  label: 'Frenet',
  baseUrlSetting: 'frenet',
  path: '/shipping/quote',
  protocol(credential, origin, userAgent) {
    return {
      encode: (request) => ({
        body: JSON.stringify(frenetBody(request, origin)),
        headers: { token: credential, 'user-agent': userAgent },
      }),
      decode(answer, request) {
        const services = isRecord(answer) ? answer.ShippingSevicesArray : undefined;
        if (!Array.isArray(services)) return { invalid: 'gateway.shape: the Frenet answer has no ShippingSevicesArray' };
        const options: DeliveryOption[] = [];
        const refused: string[] = [];
        const malformed: string[] = [];
        for (const [i, service] of services.entries()) {
          if (!isRecord(service)) return { invalid: `gateway.shape: ShippingSevicesArray[${i}] is not an object` };
          const name = textOf(service.ServiceDescription) ?? `service ${i}`;
          const carrier = textOf(service.Carrier);
          if (service.Error === true || service.Error === 'true') {
            refused.push(`${carrier ? `${carrier} ` : ''}${name}: ${textOf(service.Msg) ?? 'error'}`);
            continue;
          }
          const code = textOf(service.ServiceCode);
          const price = moneyOf(service.ShippingPrice);
          const days = daysOf(service.DeliveryTime);
          if (code === undefined || price === undefined || days === undefined) {
            malformed.push(`ShippingSevicesArray[${i}] (${name}) has no ServiceCode, ShippingPrice or DeliveryTime`);
            continue;
          }
          options.push(gatewayOption({ id: `frenet-${code}`, carrier, service: name, price, days }, origin));
        }
        return wholeCartResponse(request, options, refused, 'Frenet', malformed);
      },
    };
  },
};
