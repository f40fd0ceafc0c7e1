import { type DeliveryOption, MAX_MONEY_AMOUNT } from '@feira/contract';
import type { Kysely } from 'kysely';
import type { BoundedCache } from '../../core/bounded-cache.js';
import type { Database } from '../../storage/database.js';
import type { Schema } from '../../storage/schema.js';
import { type FreightLine, type FreightPackage, fitsVolume, freightPackageOf, freightPrice } from './freight-pricing.js';
import type { FreightTableRow } from './freight-table-store.js';

/** SQLite allows 500 terms in a compound SELECT; probes are sent in groups below that. */
const PROBES_PER_QUERY = 200;

type Candidate = Pick<
  Schema['freight_rows'],
  | 'version_key'
  | 'zip_end'
  | 'weight_start'
  | 'absolute_money_cost'
  | 'price_percent'
  | 'price_by_extra_weight'
  | 'minimum_value_insurance'
  | 'max_volume'
  | 'delivery_days'
>;

interface Probe {
  table: FreightTableRow;
  pkg: FreightPackage;
  band: [number, number];
}

/** An option priced from a freight table, with the method it came from. */
export type FreightOption = DeliveryOption & { source: 'freight_table' | 'marketplace_delivery' };

/** The tables of these owners (a store, the marketplace), in a stable order. */
export function freightTablesOf(database: Database, owners: readonly string[]): Promise<FreightTableRow[]> {
  if (owners.length === 0) return Promise.resolve([]);
  return database.db
    .selectFrom('freight_tables')
    .selectAll()
    .where('owner', 'in', [...owners])
    .orderBy('owner')
    .orderBy('table_id')
    .execute();
}

function probeQuery(db: Kysely<Schema>, probe: Probe, zipcode: number) {
  return db
    .selectFrom('freight_rows')
    .select([
      'version_key',
      'zip_end',
      'weight_start',
      'absolute_money_cost',
      'price_percent',
      'price_by_extra_weight',
      'minimum_value_insurance',
      'max_volume',
      'delivery_days',
    ])
    .where('version_key', '=', probe.table.version_key)
    .where('weight_start', '=', probe.band[0])
    .where('weight_end', '=', probe.band[1])
    .where('zip_start', '<=', zipcode)
    .orderBy('zip_start', 'desc')
    .limit(1);
}

/**
 * spec-notes Q9: the row of each table that holds the zipcode and the
 * package's weight, priced. Within one weight band of a table the zip ranges
 * are disjoint (overlaps are refused at import), so the only candidate is the
 * row with the greatest zip_start ≤ zipcode: one backwards probe of the
 * (version, weight band, zip_start) index per band that holds the weight,
 * whatever the table's size. All probes of a quote go in one statement.
 * A table gives at most one option, its id and name, from its centre.
 */
export async function freightOptions(
  database: Database,
  tables: readonly FreightTableRow[],
  input: { zipcode: string; lines: readonly FreightLine[]; source: (table: FreightTableRow) => FreightOption['source'] },
  /** Parsed weight bands by version key: a version never changes, so its bands are read once. */
  bandsCache?: BoundedCache<number, [number, number][]>,
): Promise<FreightOption[]> {
  const zipcode = Number(input.zipcode);
  const probes: Probe[] = [];
  for (const table of tables) {
    const pkg = freightPackageOf(input.lines, table.cubic_weight_factor);
    let bands = bandsCache?.get(table.version_key);
    if (!bands) {
      bands = JSON.parse(table.weight_bands) as [number, number][];
      bandsCache?.set(table.version_key, bands);
    }
    for (const band of bands) if (band[0] <= pkg.weightGrams && pkg.weightGrams <= band[1]) probes.push({ table, pkg, band });
  }
  const found = new Map<number, { probe: Probe; row: Candidate }>();
  for (let at = 0; at < probes.length; at += PROBES_PER_QUERY) {
    const group = probes.slice(at, at + PROBES_PER_QUERY);
    const queries = group.map((probe) => database.db.selectFrom(probeQuery(database.db, probe, zipcode).as('p')).selectAll());
    let union = queries[0];
    for (const query of queries.slice(1)) union = union?.unionAll(query);
    if (!union) continue;
    const rows = (await union.execute()) as Candidate[];
    for (const row of rows) {
      if (row.zip_end < zipcode) continue;
      const probe = group.find((p) => p.table.version_key === row.version_key);
      if (!probe || !fitsVolume(row, probe.pkg)) continue;
      if (!found.has(row.version_key)) found.set(row.version_key, { probe, row });
    }
  }
  const options: FreightOption[] = [];
  for (const table of tables) {
    const hit = found.get(table.version_key);
    if (!hit) continue;
    const price = freightPrice(hit.row, hit.probe.pkg);
    // Every cell is bounded at import, but a heavy or dear cart multiplies them
    // (PricePercent × items value, PriceByExtraWeight × kg): a price past what
    // an order can hold is no rate, never a quote of 1e20 or null.
    if (!(price <= MAX_MONEY_AMOUNT)) continue;
    options.push({
      id: table.table_id,
      name: table.name,
      price,
      delivery_days: hit.row.delivery_days,
      type: 'conventional',
      ...(table.distribution_center_id && { origin: { distribution_center: { id: table.distribution_center_id } } }),
      source: input.source(table),
    });
  }
  return options;
}
