/** Shipping settings and the quote log: filled in by the shipping issue. */
// biome-ignore lint/suspicious/noEmptyInterface: the shipping capability adds its tables here.
export interface ShippingTables {}
