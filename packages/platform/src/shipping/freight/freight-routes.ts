import { PassThrough, Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ErrorDetail } from '@feira/contract';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import ExcelJS from 'exceljs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import Papa from 'papaparse';
import {
  type ApiRateDecision,
  listTenantsOfSeller,
  rememberedApiRefusal,
  takeApiRequest,
  tenantExists,
} from '../../accounts/index.js';
import type { UploadLimits } from '../../core/config.js';
import type { PlatformError } from '../../core/platform-error.js';
import { refusalDetail, refuse, refuseDetails, refuseField } from '../../core/refusals.js';
import { requireAdminToken } from '../../http/admin-auth.js';
import { documentedList, errorResponse, type RawBodyRouteConfig } from '../../http/openapi-document.js';
import { TenantParams } from '../../http/route-params.js';
import { csrfTokenValid, sessionSellerId } from '../../identity/index.js';
import { defineListResource } from '../../lists/list-resource.js';
import { listRoute } from '../../lists/list-route.js';
import type { Database } from '../../storage/database.js';
import type { Schema } from '../../storage/schema.js';
import type { ShippingServices } from '../shipping-services.js';
import { FREIGHT_COLUMNS, type FreightRowProblem, FREIGHT_CELL_MAXIMUMS as MAX } from './freight-csv.js';
import {
  deleteFreightTable,
  type FreightTableRow,
  findFreightTable,
  freightRowsOf,
  importFreightTable,
  MARKETPLACE_OWNER,
} from './freight-table-store.js';
import { XLSX_MEDIA_TYPE } from './freight-xlsx.js';
import { holdImpatientUpload } from './impatient-uploads.js';
import { UPLOAD_LIMIT_NAMES, UploadLimitExceeded, uploadLimitError, uploadLimitsOf } from './upload-limits.js';

/**
 * The largest cubic-weight factor, in kg per m³ (Correios: 166.67). Nothing
 * shipped is denser than about 22,600 kg/m³; the bound keeps a factor of
 * hundreds of digits from being stored as Infinity.
 */
const MAX_CUBIC_WEIGHT_FACTOR = 100_000;

const adminSecurity = [{ adminToken: [] }];

const SPREADSHEET_EXAMPLE = `${FREIGHT_COLUMNS.join(';')}\r\n01000000;09999999;;0;30000;15,90;0;0;1000000;3.00:00:00;BRA;0\r\n`;

/**
 * The media types a freight-table PUT takes, each with what its body holds: the
 * OpenAPI document's `requestBody` (the body is read as a stream, never parsed
 * against a schema) and the content-type parsers of these routes, both from
 * this one map. A new format (a workbook) is one more key and its reader.
 */
const FREIGHT_UPLOAD_BODY: NonNullable<RawBodyRouteConfig['rawBody']> = {
  content: {
    'text/csv': {
      schema: {
        type: 'string',
        description: 'The spreadsheet in the VTEX layout, UTF-8 (application/csv is accepted as the same)',
        examples: [SPREADSHEET_EXAMPLE],
      },
    },
    [XLSX_MEDIA_TYPE]: {
      schema: {
        type: 'string',
        format: 'binary',
        description:
          'An .xlsx workbook (D62): its first sheet in the same layout; numbers as numbers or as text with a decimal comma and thousands dots (1.234,56); a zipcode stored as a number gets its leading zeros back',
      },
    },
  },
};
/** Media types read as a freight spreadsheet: the documented ones and their aliases. */
const FREIGHT_UPLOAD_TYPES = [...Object.keys(FREIGHT_UPLOAD_BODY.content), 'application/csv'];

/**
 * The body of a `text/csv` request: the request stream itself, behind a
 * private field, so hooks that walk a parsed body (the NUL guard) see an
 * object with no properties instead of a socket.
 */
class CsvBody {
  readonly #stream: Readable;
  constructor(stream: Readable) {
    this.#stream = stream;
  }
  get stream(): Readable {
    return this.#stream;
  }
}

/** The body as chunks, cut off (a 413 naming the limit) once it passes `limit` bytes. */
async function* capped(stream: Readable, limit: number, name: 'csvBytes' | 'workbookBytes'): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new UploadLimitExceeded({ limit: name, value: limit });
    yield chunk as Buffer;
  }
}

/** Whose bucket a store's uploads take from, beside the apps' API buckets (a name no client id has). */
const STORE_UPLOADS_BUCKET = 'feira:freight-uploads';
/**
 * A refused body up to this size is read and dropped, so its sender gets the 429; a larger one's
 * connection is closed, and so is any refused upload's once its store was refused before without
 * waiting for the `Retry-After` it was given (reading those bodies is most of what a store sending
 * files without pause would cost the platform), after holding it unread until that `Retry-After`.
 */
const DRAINED_REFUSAL_BYTES = 1024 * 1024;

/**
 * One store's uploads take from a bucket of their own, shared by every process
 * (the same GCRA upsert as an app's API calls, spec-notes I20): a tenant
 * sending hostile files without pause gets 429 before its body is read. A
 * large body's connection is closed rather than drained, so what it sends
 * costs the platform nothing more; a small one is dropped as it arrives so its
 * sender reads the 429, unless it was refused already and did not wait
 * (docs/security.md, "Tenant isolation").
 */
async function admitStoreUpload(
  platform: FastifyInstance['shipping'],
  owner: string,
  limits: UploadLimits,
  reply: FastifyReply,
): Promise<void> {
  const taken = await takeApiRequest(
    platform.database,
    { clientId: STORE_UPLOADS_BUCKET, bucket: owner },
    { requestsPerSecond: limits.storeUploadsPerSecond, burst: limits.storeUploadBurst },
    platform.clock.now(),
  );
  if (!taken.admitted) throw await uploadsTooFast(taken, limits, reply, owner);
}

/**
 * The store's upload bucket as this process last saw it refuse, from memory
 * (no statement): checked before the store is looked up, so a store sending
 * uploads without pause is answered with no database work at all (D124).
 */
async function refuseRememberedStoreUpload(
  platform: FastifyInstance['shipping'],
  store: string,
  limits: UploadLimits,
  reply: FastifyReply,
): Promise<void> {
  const refused = await rememberedApiRefusal(platform.database, { clientId: STORE_UPLOADS_BUCKET, bucket: store }, () =>
    platform.clock.now(),
  );
  if (refused) throw await uploadsTooFast(refused, limits, reply, store);
}

async function uploadsTooFast(
  taken: ApiRateDecision,
  limits: UploadLimits,
  reply: FastifyReply,
  store: string,
): Promise<PlatformError> {
  const declared = Number(reply.request.headers['content-length']);
  if (!(declared <= DRAINED_REFUSAL_BYTES) || taken.repeated) reply.header('connection', 'close');
  // Sent again before the Retry-After: answered no sooner than if it had waited (D164).
  if (taken.repeated) await holdImpatientUpload(reply.request, store, taken.retryAfterSeconds);
  return refuse('SHIPPING_UPLOADS_TOO_FAST', {
    perSecond: limits.storeUploadsPerSecond,
    burst: limits.storeUploadBurst,
    retryAfter: taken.retryAfterSeconds,
  });
}

/**
 * What an upload can be refused for from its headers alone, run before the
 * route's guard so no refusal of them costs a statement (D124): a body that is
 * neither a CSV nor a workbook (415), and a declared length past the format's
 * bound (413) before a byte of it is read.
 */
function uploadHeadersWithinBounds(limits: UploadLimits) {
  return async function uploadHeadersWithinBounds(request: FastifyRequest): Promise<void> {
    if (!(request.body instanceof CsvBody)) {
      throw refuse('SHIPPING_UPLOAD_MEDIA_TYPE', { xlsx: XLSX_MEDIA_TYPE });
    }
    const bodyLimitName = uploadFormat(request) === 'xlsx' ? 'workbookBytes' : 'csvBytes';
    const declared = Number(request.headers['content-length']);
    if (declared > limits[bodyLimitName]) throw uploadLimitError({ limit: bodyLimitName, value: limits[bodyLimitName] });
  };
}

function uploadFormat(request: FastifyRequest): 'csv' | 'xlsx' {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith(XLSX_MEDIA_TYPE) ? 'xlsx' : 'csv';
}

/** The upload's bounds as the OpenAPI description states them (each a setting; docs/security.md, "Tenant isolation"). */
function limitsText(limits: UploadLimits): string {
  const n = (value: number) => value.toLocaleString('en');
  const name = (key: keyof UploadLimits) => UPLOAD_LIMIT_NAMES[key];
  return `Upload limits (operator settings; a refusal names the limit, e.g. slug UPLOAD_LIMIT_CELL_CHARS, and where it was hit): body at most ${n(limits.csvBytes)} bytes for a CSV (${name('csvBytes')}) and ${n(limits.workbookBytes)} for a workbook (${name('workbookBytes')}), each workbook part inflating to at most ${n(limits.partInflatedBytes)} bytes (${name('partInflatedBytes')}) and ${n(limits.compressionRatio)} times its compressed size (${name('compressionRatio')}), at most ${n(limits.sharedStrings)} shared strings (${name('sharedStrings')}) holding ${n(limits.sharedStringsBytes)} bytes of text (${name('sharedStringsBytes')}), ${n(limits.rows)} rows (${name('rows')}): 413. A cell of more than ${n(limits.cellChars)} characters (${name('cellChars')}; a workbook's cell counted in bytes of its XML text) or a row of more than ${n(limits.columns)} cells (${name('columns')}): 422. A workbook is read on a thread of its own with ${n(limits.workbookHeapMb)} MiB of heap (${name('workbookHeapMb')}) and ${n(limits.workbookSeconds)} seconds (${name('workbookSeconds')}): 413 past either. A store's uploads (the marketplace's own tables aside) take from a bucket of ${n(limits.storeUploadBurst)} (${name('storeUploadBurst')}) refilled at ${n(limits.storeUploadsPerSecond)} a second (${name('storeUploadsPerSecond')}), shared by every process: 429 with Retry-After past it, before the body is read.`;
}

const FreightTableSummary = Type.Object(
  {
    id: Type.String({ description: 'The table id: the option id shown to the shopper and in orders (1-32 characters)' }),
    name: Type.String({ description: 'The option name shown to the shopper' }),
    distribution_center_id: Type.Union([Type.String(), Type.Null()], { description: 'The origin of its options' }),
    cubic_weight_factor: Type.Union([Type.Number(), Type.Null()], {
      description: 'kg per m³; the cubic weight is used when larger',
    }),
    row_count: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'FreightTable' },
);

function presentFreightTable(row: FreightTableRow): Static<typeof FreightTableSummary> {
  return {
    id: row.table_id,
    name: row.name,
    distribution_center_id: row.distribution_center_id,
    cubic_weight_factor: row.cubic_weight_factor,
    row_count: Number(row.row_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Freight tables with the list conventions (spec-notes L1–L9). */
const freightTableList = defineListResource({
  name: 'admin.freight-tables',
  fields: {
    id: { column: 'table_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    distribution_center_id: { column: 'distribution_center_id', type: 'id', nullable: true },
    row_count: { column: 'row_count', type: 'integer' },
    created_at: { column: 'created_at', type: 'datetime' },
    updated_at: { column: 'updated_at', type: 'datetime' },
  },
  sorts: ['name', 'row_count', 'created_at', 'updated_at'],
  defaultSort: [{ field: 'id', direction: 'asc' }],
  present: presentFreightTable,
});

const TABLE_ID = Type.String({
  minLength: 1,
  maxLength: 32,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'Printable ASCII, 1-32 characters',
});

const ImportQuery = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Required when the table is new' })),
    distribution_center_id: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    cubic_weight_factor: Type.Optional(
      Type.String({
        pattern: '^[0-9]+([.,][0-9]+)?$',
        description: `kg per m³ (Correios: 166.67), at most ${MAX_CUBIC_WEIGHT_FACTOR.toLocaleString('en')}; 0 or empty removes it`,
      }),
    ),
  },
  { additionalProperties: false },
);
type ImportQuery = Static<typeof ImportQuery>;

const FreightImportProblems = Type.Object(
  {
    message: Type.String(),
    slug: Type.String(),
    details: Type.Array(
      Type.Object({ field: Type.String(), location: Type.String(), message: Type.String(), slug: Type.String() }),
      { description: 'One per bad cell (at most 100): field is lines.<line>.<Column>' },
    ),
    request_id: Type.Optional(Type.String()),
  },
  { $id: 'FreightImportProblems' },
);

/** Where a set of routes keeps its tables: a store's, or the marketplace delivery service's. */
interface TableScope {
  prefix: string;
  params: ReturnType<typeof Type.Object>;
  tag: string;
  operation: string;
  /** Who may call: the admin token, or a seller's console session for their own store. */
  guard: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  security: Array<Record<string, string[]>>;
  ownerOf(request: FastifyRequest): Promise<string>;
  /** The store the URL names, before it is looked up (its upload bucket is asked first); null for the marketplace's. */
  storeNamed(request: FastifyRequest): string | null;
}

/**
 * A seller's own store through the console session:
 * another seller's store answers 404 like an unknown one, and a change needs
 * the session's CSRF token in `X-CSRF-Token`.
 */
const GUARD_REFUSALS = {
  401: errorResponse('No admin token (admin routes), or no console session (seller routes)'),
  403: errorResponse("Seller routes: the session's CSRF token is missing or wrong in X-CSRF-Token"),
};

/** The console session's seller owns the store; a write carries the CSRF token (the seller routes of shipping/). */
export async function sellerStoreGuard(request: FastifyRequest): Promise<void> {
  const sellerId = await sessionSellerId(request);
  if (!sellerId) throw refuse('SHIPPING_SIGN_IN_REQUIRED');
  const tenantId = (request.params as { tenant_id: string }).tenant_id;
  const tenants = await listTenantsOfSeller(request.server.platform.database.db, sellerId);
  if (!tenants.some((tenant) => tenant.id === tenantId)) throw refuse('SHIPPING_TENANT_NOT_FOUND');
  if (request.method !== 'GET' && !csrfTokenValid(request, request.headers['x-csrf-token'])) {
    throw refuse('IDENTITY_SESSION_CSRF_INVALID');
  }
}

async function tenantOwner(database: Database, tenantId: string): Promise<string> {
  if (!(await tenantExists(database.db, tenantId))) throw refuse('SHIPPING_TENANT_NOT_FOUND');
  return tenantId;
}

/**
 * What a GET of a table answers: its summary (JSON), or its rows as a CSV or
 * a workbook. `?format=csv|xlsx` for a plain link (a browser cannot set Accept
 * on one), `?format=original` for the format it was uploaded in (D62); else
 * `Accept: text/csv` or the workbook's type, unless JSON is preferred.
 */
function downloadFormat(request: FastifyRequest, table: FreightTableRow): 'json' | 'csv' | 'xlsx' {
  const format = (request.query as { format?: unknown } | undefined)?.format;
  if (format === 'csv' || format === 'xlsx') return format;
  if (format === 'original') return table.source_format === 'xlsx' ? 'xlsx' : 'csv';
  const accept = request.headers.accept ?? '';
  if (/(^|,)\s*application\/json\b/i.test(accept)) return 'json';
  if (accept.toLowerCase().includes(XLSX_MEDIA_TYPE)) return 'xlsx';
  return /(^|,)\s*text\/csv\b/i.test(accept) ? 'csv' : 'json';
}

/** A refused cell as one detail of the 422: a CSV's line, or a workbook's sheet, row and cell (D62). */
function problemDetail(problem: FreightRowProblem): ErrorDetail {
  const { line, column, sheet, cell, message: problemText } = problem;
  if (sheet === undefined) {
    return refusalDetail('SHIPPING_LINE_INVALID', `lines.${line}.${column}`, 'body', { line, column, problem: problemText });
  }
  const field = `sheets.${sheet}.rows.${line}.${column}`;
  return cell
    ? refusalDetail('SHIPPING_SHEET_CELL_INVALID', field, 'body', { sheet, line, column, cell, problem: problemText })
    : refusalDetail('SHIPPING_SHEET_ROW_INVALID', field, 'body', { sheet, line, column, problem: problemText });
}

/**
 * A page of rows in the VTEX layout. OWASP "CSV injection": a text cell that
 * begins with = + - @, a tab or a carriage return would be run as a formula
 * by the spreadsheet program that opens the download, so Papa Parse's
 * `escapeFormulae` puts a single quote before it (the reader takes that quote
 * off again: FORMULA_MARK in freight-csv.ts, so a download imports to the same
 * table). Only PolygonName and Country can hold such text: the zipcodes are
 * digits, TimeCost is a duration, and the numeric cells are written as numbers,
 * which are never neutralised; none is negative (the reader refuses it), so
 * none begins with a minus sign.
 */
function rowsCsv(page: readonly Schema['freight_rows'][], comma: boolean): string {
  // A table uploaded with decimal commas downloads with them (D62): the number as text, its point a comma.
  const n = comma
    ? (value: number | null) => (value === null ? null : String(value).replace('.', ','))
    : (value: number | null) => value;
  // Money in reais as a Brazilian seller writes it: two decimals (12,90, not 12,9), unless it has more.
  const money = comma
    ? (value: number) => (Math.round(value * 100) === value * 100 ? value.toFixed(2).replace('.', ',') : n(value))
    : (value: number) => value;
  const cells = page.map((row) => [
    String(row.zip_start).padStart(8, '0'),
    String(row.zip_end).padStart(8, '0'),
    row.polygon_name,
    n(row.weight_start),
    n(row.weight_end),
    money(row.absolute_money_cost),
    n(row.price_percent),
    money(row.price_by_extra_weight),
    n(row.max_volume),
    row.time_cost,
    row.country,
    money(row.minimum_value_insurance),
  ]);
  return `${Papa.unparse(cells, { delimiter: ';', newline: '\r\n', escapeFormulae: true })}\r\n`;
}

async function* tableCsv(database: Database, versionKey: number, comma: boolean): AsyncGenerator<string> {
  yield `${FREIGHT_COLUMNS.join(';')}\r\n`;
  for await (const page of freightRowsOf(database, versionKey)) yield rowsCsv(page, comma);
}

/**
 * The rows as an .xlsx workbook (D62, D96), streamed by exceljs's WorkbookWriter:
 * one sheet in the VTEX layout, zipcodes and TimeCost as text, the numbers as
 * numbers. A text cell of a workbook is never run as a formula, so nothing is
 * marked. Uploaded again, it gives the same table.
 */
function tableXlsx(database: Database, versionKey: number): PassThrough {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet('Frete');
  (async () => {
    sheet.addRow([...FREIGHT_COLUMNS]).commit();
    for await (const page of freightRowsOf(database, versionKey)) {
      for (const row of page) {
        sheet
          .addRow([
            String(row.zip_start).padStart(8, '0'),
            String(row.zip_end).padStart(8, '0'),
            row.polygon_name,
            row.weight_start,
            row.weight_end,
            row.absolute_money_cost,
            row.price_percent,
            row.price_by_extra_weight,
            row.max_volume,
            row.time_cost,
            row.country,
            row.minimum_value_insurance,
          ])
          .commit();
      }
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/**
 * Freight tables in the admin API (spec-notes Q8): a store's own
 * (`/admin/v1/tenants/{tenant_id}/shipping/freight-tables`) and the
 * marketplace delivery service's (`/admin/v1/delivery-service/freight-tables`),
 * one set of handlers for both. A PUT of `text/csv` replaces a table
 * atomically; GET reads its summary or, with `Accept: text/csv`, its rows.
 */
/** The admin's freight tables: a store's, and the marketplace delivery service's. */
export async function freightRoutes(instance: FastifyInstance): Promise<void> {
  const platform = instance.shipping;
  await tableRoutes(instance, [
    {
      prefix: '/admin/v1/tenants/:tenant_id/shipping/freight-tables',
      params: TenantParams,
      tag: 'shipping',
      operation: 'StoreFreightTable',
      guard: requireAdminToken,
      security: adminSecurity,
      ownerOf: (request) => tenantOwner(platform.database, (request.params as { tenant_id: string }).tenant_id),
      storeNamed: (request) => (request.params as { tenant_id: string }).tenant_id,
    },
    {
      prefix: '/admin/v1/delivery-service/freight-tables',
      params: Type.Object({}),
      tag: 'delivery-service',
      operation: 'DeliveryServiceFreightTable',
      guard: requireAdminToken,
      security: adminSecurity,
      ownerOf: async () => MARKETPLACE_OWNER,
      storeNamed: () => null,
    },
  ]);
}

/**
 * A seller's own freight tables through the console session:
 * registered among the browser pages, the only routes with the cookie plugin.
 */
export async function sellerFreightRoutes(instance: FastifyInstance): Promise<void> {
  await tableRoutes(instance, [
    {
      prefix: '/seller/v1/stores/:tenant_id/shipping/freight-tables',
      params: TenantParams,
      tag: 'shipping',
      operation: 'SellerFreightTable',
      guard: sellerStoreGuard,
      security: [{ consoleSession: [] }],
      ownerOf: async (request) => (request.params as { tenant_id: string }).tenant_id,
      storeNamed: (request) => (request.params as { tenant_id: string }).tenant_id,
    },
  ]);
}

async function tableRoutes(instance: FastifyInstance, scopes: TableScope[]): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const platform = app.shipping;
  const limits = uploadLimitsOf(platform.config);
  app.addSchema(FreightTableSummary);
  app.addSchema(FreightImportProblems);
  // This plugin's routes only: the body stays a stream, parsed as it arrives.
  app.addContentTypeParser(FREIGHT_UPLOAD_TYPES, (_request, payload, done) => done(null, new CsvBody(payload)));

  for (const scope of scopes) {
    const itemParams = Type.Object({ ...scope.params.properties, table_id: TABLE_ID });

    instance.put(`${scope.prefix}/:table_id`, putTableOptions(scope, itemParams, limits), putTable(platform, scope, limits));
    instance.get(`${scope.prefix}/:table_id`, getTableOptions(scope, itemParams), getTable(platform, scope));
    instance.delete(`${scope.prefix}/:table_id`, deleteTableOptions(scope, itemParams), deleteTable(platform, scope));
    listRoute(instance, tableListOptions(platform, scope));
  }
}

/** PUT of a table: what it takes (a spreadsheet, read as a stream) and answers. */
function putTableOptions(scope: TableScope, itemParams: TObject, limits: UploadLimits): RouteShorthandOptions {
  return {
    preHandler: [uploadHeadersWithinBounds(limits), scope.guard],
    bodyLimit: Math.max(limits.csvBytes, limits.workbookBytes),
    config: { rawBody: FREIGHT_UPLOAD_BODY },
    schema: {
      operationId: `put${scope.operation}`,
      tags: [scope.tag],
      summary: 'Create or replace a freight table from a VTEX-layout spreadsheet (text/csv or .xlsx); atomic, all or nothing',
      description: `Columns ${FREIGHT_COLUMNS.join(', ')}; header names case-insensitive; ; or , between cells; decimal comma or point; UTF-8 with or without BOM. Numeric cells at most: money ${MAX.money.toLocaleString('en')} reais (PriceByExtraWeight per kg), with at most 2 decimal places (spec-notes R1), weights ${MAX.weightGrams.toLocaleString('en')} g, MaxVolume ${MAX.volumeCm3.toLocaleString('en')} cm³, PricePercent ${MAX.percent}, TimeCost ${MAX.deliveryDays} days; a leading ' before = + - @ in a text cell (a download's formula mark) is dropped. Quotes keep reading the previous rows until the new ones are committed. A spreadsheet with problems is refused with a 422 listing each bad cell (at most 100) and nothing changes. ${limitsText(limits)}`,
      security: scope.security,
      params: itemParams,
      querystring: ImportQuery,
      response: {
        ...GUARD_REFUSALS,
        200: Type.Ref(FreightTableSummary),
        201: Type.Ref(FreightTableSummary),
        404: errorResponse('No such store'),
        409: errorResponse('The same table is being imported by another request'),
        413: errorResponse(
          "An upload limit was passed (the body, a workbook part inflated or its compression ratio, shared strings, rows, the reading thread's memory or time); the one detail names the limit (slug UPLOAD_LIMIT_…) and where it was hit",
        ),
        415: errorResponse('The body is neither text/csv nor an .xlsx workbook'),
        422: Type.Ref(FreightImportProblems),
        429: errorResponse(
          'The store sends uploads faster than its upload rate (store_uploads_per_second, store_upload_burst); Retry-After says when; the body is not read',
        ),
      },
    },
  };
}

/** Creates or replaces a table from the uploaded spreadsheet, all or nothing. */
function putTable(platform: ShippingServices, scope: TableScope, limits: UploadLimits) {
  return async function putTable(request: FastifyRequest, reply: FastifyReply) {
    const format = uploadFormat(request);
    const bodyLimitName = format === 'xlsx' ? 'workbookBytes' : 'csvBytes';
    const body = request.body as CsvBody;
    const store = scope.storeNamed(request);
    if (store !== null) await refuseRememberedStoreUpload(platform, store, limits, reply);
    const owner = await scope.ownerOf(request);
    if (owner !== MARKETPLACE_OWNER) await admitStoreUpload(platform, owner, limits, reply);
    const { table_id: tableId } = request.params as { table_id: string };
    const query = request.query as ImportQuery;
    const existing = await findFreightTable(platform.database, owner, tableId);
    const name = query.name ?? existing?.name;
    if (!name) throw refuseField('SHIPPING_TABLE_NAME_REQUIRED', 'name', 'query');
    const factorText = query.cubic_weight_factor;
    const factor =
      factorText === undefined ? (existing?.cubic_weight_factor ?? null) : Number(factorText.replace(',', '.')) || null;
    if (factor !== null && !(factor <= MAX_CUBIC_WEIGHT_FACTOR)) {
      throw refuseField('SHIPPING_CUBIC_WEIGHT_FACTOR_TOO_LARGE', 'cubic_weight_factor', 'query', {
        max: MAX_CUBIC_WEIGHT_FACTOR.toLocaleString('en'),
      });
    }

    const result = await importFreightTable(
      platform,
      {
        owner,
        tableId,
        name,
        distributionCenterId: query.distribution_center_id ?? existing?.distribution_center_id ?? null,
        cubicWeightFactor: factor,
        format,
      },
      capped(body.stream, limits[bodyLimitName], bodyLimitName),
      limits,
    );
    if (!result.ok) {
      const { csv } = result;
      const details = csv.problems.map(problemDetail);
      const refusal =
        csv.problems.length < csv.problemCount
          ? refuseDetails('SHIPPING_SPREADSHEET_PROBLEMS_LISTED', details, {
              count: csv.problemCount,
              listed: csv.problems.length,
            })
          : refuseDetails('SHIPPING_SPREADSHEET_PROBLEMS', details, { count: csv.problemCount });
      return reply.code(refusal.statusCode).send({
        message: refusal.message,
        slug: refusal.slug,
        details: refusal.details,
        request_id: String(request.id),
      });
    }
    return reply.code(result.created ? 201 : 200).send(presentFreightTable(result.table));
  };
}

/** GET of a table: its summary, or its rows as a download. */
function getTableOptions(scope: TableScope, itemParams: TObject): RouteShorthandOptions {
  return {
    preHandler: scope.guard,
    schema: {
      operationId: `get${scope.operation}`,
      tags: [scope.tag],
      summary:
        'A freight table: its summary (JSON), or its rows in the VTEX layout: Accept text/csv or .xlsx, or ?format=csv|xlsx|original (the format it was uploaded in)',
      description:
        "The CSV download neutralises text cells a spreadsheet would run as formulas (OWASP CSV injection): a cell beginning with = + - @, a tab or a carriage return gets a leading '. Numeric cells are written as numbers (none is negative). Uploaded again, the download gives the same table.",
      security: scope.security,
      params: itemParams,
      produces: ['application/json', 'text/csv', XLSX_MEDIA_TYPE],
      response: {
        ...GUARD_REFUSALS,
        200: Type.Ref(FreightTableSummary),
        404: errorResponse('No such store or freight table'),
      },
    },
  };
}

/** A table as JSON, or its rows as CSV or .xlsx, as the request asks. */
function getTable(platform: ShippingServices, scope: TableScope) {
  return async function getTable(request: FastifyRequest, reply: FastifyReply) {
    const owner = await scope.ownerOf(request);
    const table = await findFreightTable(platform.database, owner, (request.params as { table_id: string }).table_id);
    if (!table) throw refuse('SHIPPING_FREIGHT_TABLE_NOT_FOUND');
    const wanted = downloadFormat(request, table);
    if (wanted === 'json') return presentFreightTable(table);
    const filename = table.table_id.replace(/[^A-Za-z0-9._-]/g, '_');
    if (wanted === 'xlsx') {
      return reply
        .type(XLSX_MEDIA_TYPE)
        .header('content-disposition', `attachment; filename="${filename}.xlsx"`)
        .send(tableXlsx(platform.database, table.version_key));
    }
    const comma = table.decimal_mark === 'comma';
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}.csv"`)
      .send(Readable.from(tableCsv(platform.database, table.version_key, comma)));
  };
}

/** DELETE of a table. */
function deleteTableOptions(scope: TableScope, itemParams: TObject): RouteShorthandOptions {
  return {
    preHandler: scope.guard,
    schema: {
      operationId: `delete${scope.operation}`,
      tags: [scope.tag],
      summary: 'Remove a freight table (quotes stop using it at once)',
      security: scope.security,
      params: itemParams,
      response: {
        ...GUARD_REFUSALS,
        204: { type: 'null', description: 'Removed' },
        404: errorResponse('No such store or freight table'),
      },
    },
  };
}

/** Removes a table; quotes stop using it at once. */
function deleteTable(platform: ShippingServices, scope: TableScope) {
  return async function deleteTable(request: FastifyRequest, reply: FastifyReply) {
    const owner = await scope.ownerOf(request);
    const deleted = await deleteFreightTable(platform.database, owner, (request.params as { table_id: string }).table_id);
    if (!deleted) throw refuse('SHIPPING_FREIGHT_TABLE_NOT_FOUND');
    return reply.code(204).send();
  };
}

/** The list of a scope's tables, with the list conventions. */
function tableListOptions(platform: ShippingServices, scope: TableScope): Parameters<typeof listRoute>[1] {
  return {
    url: scope.prefix,
    list: freightTableList,
    preHandler: scope.guard,
    schema: {
      operationId: `list${scope.operation}s`,
      tags: [scope.tag],
      summary: 'The freight tables, with the list conventions (filters on id, name, distribution_center_id, row_count, dates)',
      security: scope.security,
      params: scope.params,
      response: {
        ...GUARD_REFUSALS,
        200: documentedList('Freight tables (list conventions)'),
        404: errorResponse('No such store'),
      },
    },
    base: async (request) => {
      const owner = await scope.ownerOf(request);
      return platform.database.db.selectFrom('freight_tables').selectAll().where('owner', '=', owner);
    },
  };
}
