import type { UploadLimits } from '../../core/config.js';
import type { PlatformError } from '../../core/platform-error.js';
import { refuseField } from '../../core/refusals.js';
import { DEFAULT_UPLOAD_LIMITS } from '../../core/settings.js';

/** The defaults of the freight upload's bounds: the settings schema's (core/settings.ts says why each). */
export { DEFAULT_UPLOAD_LIMITS } from '../../core/settings.js';

export function uploadLimitsOf(config: { uploads?: Readonly<Partial<UploadLimits>> }): UploadLimits {
  return { ...DEFAULT_UPLOAD_LIMITS, ...config.uploads };
}

/** The name a limit has in an error and in the settings table's environment variable (FEIRA_UPLOAD_MAX_…). */
export const UPLOAD_LIMIT_NAMES: Record<keyof UploadLimits, string> = {
  csvBytes: 'csv_bytes',
  workbookBytes: 'workbook_bytes',
  partInflatedBytes: 'part_inflated_bytes',
  compressionRatio: 'compression_ratio',
  sharedStrings: 'shared_strings',
  sharedStringsBytes: 'shared_strings_bytes',
  cellChars: 'cell_chars',
  columns: 'columns',
  rows: 'rows',
  workbookHeapMb: 'workbook_heap_mb',
  workbookSeconds: 'workbook_seconds',
  storeUploadsPerSecond: 'store_uploads_per_second',
  storeUploadBurst: 'store_upload_burst',
};

/** Limits of the whole upload's size answer 413; those of one cell or row's shape answer 422. */
const SHAPE_LIMITS: ReadonlySet<keyof UploadLimits> = new Set(['cellChars', 'columns']);

/**
 * Where a bound was passed: a CSV's line and column, a workbook's part, sheet,
 * row and cell (the column letter and the VTEX column name when the header
 * was read). Plain data, so the workbook's thread can post it.
 */
export interface UploadLimitHit {
  limit: keyof UploadLimits;
  value: number;
  line?: number;
  column?: string;
  sheet?: string;
  cell?: string;
  part?: string;
  /** A shared string's index (0-based, as cells refer to it). */
  sharedString?: number;
}

/** A bound passed while reading; the route answers it as uploadLimitError. */
export class UploadLimitExceeded extends Error {
  constructor(readonly hit: UploadLimitHit) {
    super(`upload limit ${UPLOAD_LIMIT_NAMES[hit.limit]} passed`);
    this.name = 'UploadLimitExceeded';
  }
}

const WHAT: Record<keyof UploadLimits, (value: string) => string> = {
  csvBytes: (v) => `the spreadsheet is over ${v} bytes`,
  workbookBytes: (v) => `the workbook is over ${v} bytes`,
  partInflatedBytes: (v) => `a part of the workbook inflates to over ${v} bytes`,
  compressionRatio: (v) => `a part of the workbook inflates to over ${v} times its compressed size`,
  sharedStrings: (v) => `the workbook has over ${v} shared strings`,
  sharedStringsBytes: (v) => `the workbook's shared strings hold over ${v} bytes of text`,
  cellChars: (v) => `a cell is longer than ${v} characters`,
  columns: (v) => `a row has more than ${v} cells`,
  rows: (v) => `the spreadsheet has more than ${v} rows`,
  workbookHeapMb: (v) => `reading the workbook needs more than ${v} MiB of memory`,
  workbookSeconds: (v) => `reading the workbook takes longer than ${v} seconds`,
  storeUploadsPerSecond: (v) => `the store sends more than ${v} uploads a second`,
  storeUploadBurst: (v) => `the store sends more than ${v} uploads at once`,
};

/** "line 3, PolygonName" / "sheet "Frete", row 12, cell C12 (PolygonName)" / "part xl/sharedStrings.xml, shared string 7". */
function whereOf(hit: UploadLimitHit): string {
  const parts: string[] = [];
  if (hit.sheet !== undefined) parts.push(`sheet "${hit.sheet}"`);
  else if (hit.part !== undefined) parts.push(`part ${hit.part}`);
  if (hit.sharedString !== undefined) parts.push(`shared string ${hit.sharedString}`);
  if (hit.line !== undefined) parts.push(`${hit.sheet !== undefined || hit.part !== undefined ? 'row' : 'line'} ${hit.line}`);
  if (hit.cell !== undefined) parts.push(`cell ${hit.cell}${hit.column ? ` (${hit.column})` : ''}`);
  else if (hit.column !== undefined) parts.push(hit.column);
  return parts.join(', ');
}

/** The field of the one detail: where the bound was hit, in the 422's `lines.…` / `sheets.…` form, or the limit. */
function fieldOf(hit: UploadLimitHit): string {
  if (hit.sheet !== undefined && hit.line !== undefined) {
    return `sheets.${hit.sheet}.rows.${hit.line}${hit.column ? `.${hit.column}` : ''}`;
  }
  if (hit.part !== undefined) return `parts.${hit.part}${hit.sharedString !== undefined ? `.strings.${hit.sharedString}` : ''}`;
  if (hit.line !== undefined) return `lines.${hit.line}${hit.column ? `.${hit.column}` : ''}`;
  return 'body';
}

/**
 * The refusal of an upload past one of its bounds, in the platform's error
 * shape: 413 for the size of the whole (bytes, inflated size, ratio, shared
 * strings, rows, the reading thread's memory and time), 422 for one cell's or
 * row's shape (cell length, cells in a row). The detail's slug names the
 * limit (`UPLOAD_LIMIT_CELL_CHARS`), its message the value and where it was hit.
 */
export function uploadLimitError(hit: UploadLimitHit): PlatformError {
  const what = WHAT[hit.limit](hit.value.toLocaleString('en'));
  const where = whereOf(hit);
  const values = { what, limit: UPLOAD_LIMIT_NAMES[hit.limit], limitSlug: UPLOAD_LIMIT_NAMES[hit.limit].toUpperCase() };
  const field = fieldOf(hit);
  if (SHAPE_LIMITS.has(hit.limit)) {
    return where
      ? refuseField('SHIPPING_UPLOAD_SHAPE_AT', field, 'body', { ...values, where })
      : refuseField('SHIPPING_UPLOAD_SHAPE', field, 'body', values);
  }
  return where
    ? refuseField('SHIPPING_UPLOAD_TOO_LARGE_AT', field, 'body', { ...values, where })
    : refuseField('SHIPPING_UPLOAD_TOO_LARGE', field, 'body', values);
}
