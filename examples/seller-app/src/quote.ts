import { type QuoteFunction, quoteErrors, roundPrice, singlePackageQuote } from '@feira/sdk';

/**
 * The seller's freight rule: no delivery to zipcodes starting with 9, a price
 * by weight, a standard and an express option. The SDK's handler validates the
 * request before and this answer after, with the platform's own rules.
 */
export const quoteFreight: QuoteFunction = (request) => {
  if (request.zipcode === '00000000') return quoteErrors.invalidZipcode();
  if (request.zipcode.startsWith('9')) return quoteErrors.deliveryNotAvailable(request);
  const weightKg = request.items.reduce((sum, item) => sum + item.dimensions.weight * item.quantity, 0);
  return singlePackageQuote(request, [
    { id: 'standard', name: 'Standard', type: 'conventional', price: roundPrice(12.9 + weightKg * 1.5), delivery_days: 6 },
    { id: 'express', name: 'Express', type: 'conventional', price: roundPrice(29.9 + weightKg * 3), delivery_days: 2 },
  ]);
};
