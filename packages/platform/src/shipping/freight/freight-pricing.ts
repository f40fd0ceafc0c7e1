/** One package as a freight table prices it (spec-notes Q9): the whole cart, from one distribution centre. */
export interface FreightPackage {
  /** Σ weight × quantity in grams, or the cubic weight when the table has a factor and it is larger. */
  weightGrams: number;
  /** Σ depth × height × width × quantity in cm³. */
  volumeCm3: number;
  /** Σ unit price × quantity in reais. */
  itemsValue: number;
}

/** The catalogue columns pricing reads (cents, centimetres, grams). */
export interface FreightLine {
  product: { price_cents: number; depth_cm: number; height_cm: number; width_cm: number; weight_g: number };
  quantity: number;
}

/** The row columns pricing reads. */
export interface PricedRow {
  weight_start: number;
  absolute_money_cost: number;
  price_percent: number;
  price_by_extra_weight: number;
  minimum_value_insurance: number;
  max_volume: number | null;
}

/**
 * spec-notes Q9: the package of a cart for a table. `cubicWeightFactor` is in
 * kg per m³ (Correios' 1 kg per 6,000 cm³ is 166.67), so the cubic weight in
 * grams is the volume in cm³ × factor ÷ 1,000.
 */
export function freightPackageOf(lines: readonly FreightLine[], cubicWeightFactor: number | null): FreightPackage {
  let weightGrams = 0;
  let volumeCm3 = 0;
  let itemsCents = 0;
  for (const { product, quantity } of lines) {
    weightGrams += product.weight_g * quantity;
    volumeCm3 += product.depth_cm * product.height_cm * product.width_cm * quantity;
    itemsCents += product.price_cents * quantity;
  }
  const cubicGrams = cubicWeightFactor === null ? 0 : (volumeCm3 * cubicWeightFactor) / 1000;
  return { weightGrams: Math.max(weightGrams, cubicGrams), volumeCm3, itemsValue: itemsCents / 100 };
}

/** Rounds to cents; the `toPrecision` step keeps 1.005 from landing on 1.00 through binary noise. */
function roundToCents(value: number): number {
  return Math.round(Number((value * 100).toPrecision(12))) / 100;
}

/** spec-notes Q9: the row applies only when the package fits its MaxVolume (when the cell had one). */
export function fitsVolume(row: Pick<PricedRow, 'max_volume'>, pkg: FreightPackage): boolean {
  return row.max_volume === null || pkg.volumeCm3 <= row.max_volume;
}

/**
 * spec-notes Q9: AbsoluteMoneyCost + max(PricePercent % × items value,
 * MinimumValueInsurance) + PriceByExtraWeight × kilograms above WeightStart,
 * rounded to 2 decimals.
 */
export function freightPrice(row: PricedRow, pkg: FreightPackage): number {
  const insurance = Math.max((row.price_percent / 100) * pkg.itemsValue, row.minimum_value_insurance);
  const extraKg = Math.max(0, pkg.weightGrams - row.weight_start) / 1000;
  return roundToCents(row.absolute_money_cost + insurance + row.price_by_extra_weight * extraKg);
}
