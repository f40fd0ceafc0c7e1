/** What the demo seller of `feira start` serves, so a bare `feira quote-check <demo url>` passes. */
export const DEFAULT_ZIPCODE = '20040002';
export const DEFAULT_SKUS = ['CAM-AZUL-M', 'CANECA-100'];
