// Shared steps of the freight-table tests: spreadsheets in the VTEX layout,
// uploads through the admin API, and a store quoting from its tables.
import type { TestPlatform } from '../../src/testing.js';
import { admin, putSettings } from './shipping-kit.js';

export const VTEX_HEADER =
  'ZipCodeStart;ZipCodeEnd;PolygonName;WeightStart;WeightEnd;AbsoluteMoneyCost;PricePercent;PriceByExtraWeight;MaxVolume;TimeCost;Country;MinimumValueInsurance';

/** A spreadsheet: the VTEX header and these rows, `;`-separated, CRLF line ends. */
export function vtexCsv(rows: string[]): string {
  return `${[VTEX_HEADER, ...rows].join('\r\n')}\r\n`;
}

/**
 * `count` valid rows of distinct zipcode ranges (from 00000010 up), none overlapping another or the
 * 01000000-01999999 range the tests use: enough of them (2,000, a batch) for an import to claim its table.
 */
export function distinctRows(count: number): string[] {
  const zip = (n: number) => String(n).padStart(8, '0');
  return Array.from({ length: count }, (_, i) => `${zip(10 + i * 10)};${zip(19 + i * 10)};;0;1000;10;0;0;;2;BRA;0`);
}

/** Rows the reader hands over as one batch (INSERT_BATCH_ROWS): an import claims its table with them (D124). */
export const CLAIMING_ROWS = 2000;

export function tableUrl(tenantId: string | null, tableId: string, query: Record<string, string> = {}): string {
  const base =
    tenantId === null
      ? `/admin/v1/delivery-service/freight-tables/${tableId}`
      : `/admin/v1/tenants/${tenantId}/shipping/freight-tables/${tableId}`;
  const qs = new URLSearchParams(query).toString();
  return qs ? `${base}?${qs}` : base;
}

/** PUT of a spreadsheet as text/csv (tenantId null: the marketplace delivery service). */
export function putTable(
  platform: TestPlatform,
  tenantId: string | null,
  tableId: string,
  csv: string | Buffer,
  query: Record<string, string> = { name: tableId },
) {
  return platform.app.inject({
    method: 'PUT',
    url: tableUrl(tenantId, tableId, query),
    headers: { ...admin, 'content-type': 'text/csv' },
    payload: csv,
  });
}

/** As putTable, failing the test unless the table was stored. */
export async function uploadTable(
  platform: TestPlatform,
  tenantId: string | null,
  tableId: string,
  csv: string | Buffer,
  query: Record<string, string> = { name: tableId },
): Promise<void> {
  const res = await putTable(platform, tenantId, tableId, csv, query);
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`table refused: ${res.statusCode} ${res.body}`);
}

/** A store whose settings are `body` (method or methods …), with no products yet. */
export async function storeWithSettings(platform: TestPlatform, body: object): Promise<string> {
  const tenantId = (await platform.createSeller()).tenantIds[0] as string;
  const res = await putSettings(platform, tenantId, { distribution_centers: [], ...body });
  if (res.statusCode !== 200) throw new Error(`settings refused: ${res.body}`);
  return tenantId;
}

export async function quote(
  platform: TestPlatform,
  tenantId: string,
  zipcode: string,
  items: { sku: string; quantity: number }[],
) {
  const res = await platform.app.inject({
    method: 'POST',
    url: '/storefront/v1/quotes',
    payload: { tenant_id: tenantId, zipcode, items },
  });
  if (res.statusCode !== 200) throw new Error(`quote refused: ${res.statusCode} ${res.body}`);
  return res.json() as {
    available: boolean;
    session_id: string | null;
    packages: {
      items: { sku: string; quantity: number }[];
      options: {
        id: string;
        name: string;
        price: number;
        delivery_days: number;
        source: string;
        labels: string[];
        origin: unknown;
      }[];
    }[];
    reason: { code: string; message: string } | null;
  };
}

/** `[id, price, days, labels]` of the shown options of the first package. */
export function shown(body: Awaited<ReturnType<typeof quote>>) {
  return (body.packages[0]?.options ?? []).map((o) => [o.id, o.price, o.delivery_days, o.labels]);
}
