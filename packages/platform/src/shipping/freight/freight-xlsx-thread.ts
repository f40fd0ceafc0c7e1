import { constants, setPriority } from 'node:os';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import type { UploadLimits } from '../../core/config.js';
import type { FreightCsvResult, FreightRow } from './freight-csv.js';
import { UploadLimitExceeded } from './upload-limits.js';
import { checkWorkbookBounds, NotAWorkbook } from './xlsx-bounds.js';

/** What the main thread hands over (freight-xlsx-isolated.ts). */
export interface XlsxThreadInput {
  zip: Uint8Array;
  limits: UploadLimits;
  batchRows: number;
}

/** What the thread posts: a batch of rows (answered with `ack`), then its end. */
export type XlsxThreadMessage =
  | { type: 'rows'; rows: FreightRow[] }
  | { type: 'done'; result: FreightCsvResult }
  | { type: 'limit'; hit: UploadLimitExceeded['hit'] };

/**
 * The workbook's own thread: it checks every bound on the zip as it inflates
 * (xlsx-bounds.ts), then reads the rows with the library and posts them a
 * batch at a time, waiting for the main thread to write each one. The main
 * thread gives it a heap limit and a deadline and ends it at either, so a
 * workbook that gets past the checks still cannot take the process.
 */
async function run(input: XlsxThreadInput): Promise<XlsxThreadMessage> {
  const port = parentPort;
  if (!port) throw new Error('not a worker thread');
  const zip = Buffer.from(input.zip.buffer, input.zip.byteOffset, input.zip.byteLength);
  try {
    await checkWorkbookBounds(zip, input.limits);
  } catch (error) {
    if (error instanceof UploadLimitExceeded) return { type: 'limit', hit: error.hit };
    if (error instanceof NotAWorkbook) {
      return {
        type: 'done',
        result: {
          rowCount: 0,
          problems: [
            { line: 1, column: '(workbook)', sheet: '', message: `not readable as an .xlsx workbook: ${error.message}` },
          ],
          problemCount: 1,
          weightBands: [],
          decimalMark: 'point',
        },
      };
    }
    throw error;
  }
  // The library is loaded only for a workbook that passed: a refused one costs the thread no parser.
  const { readFreightXlsx } = await import('./freight-xlsx.js');
  let acknowledged: (() => void) | undefined;
  port.on('message', (message: unknown) => {
    if (message === 'ack') acknowledged?.();
  });
  const result = await readFreightXlsx(
    Readable.from([zip]),
    (rows) =>
      new Promise<void>((resolve) => {
        acknowledged = resolve;
        port.postMessage({ type: 'rows', rows } satisfies XlsxThreadMessage);
      }),
    { batchRows: input.batchRows, maxRows: input.limits.rows },
  );
  return { type: 'done', result };
}

/**
 * On Linux a thread's nice value is its own (setpriority(2), "a per-thread
 * attribute" under NPTL), and `setPriority()` without a pid sets the calling
 * thread's: a workbook's thread yields the core to every request thread of the
 * host, so one tenant's import never outbids another tenant's checkout for CPU.
 * Elsewhere the same call would lower the whole process, so it is Linux only.
 */
function yieldTheCore(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(constants.priority.PRIORITY_LOW);
  } catch {
    // Not permitted here (a restricted container): the thread keeps the default priority.
  }
}

yieldTheCore();
run(workerData as XlsxThreadInput).then(
  (message) => {
    parentPort?.postMessage(message);
    parentPort?.close();
  },
  (error: unknown) => {
    // Thrown to the thread's top: the main thread sees it as the worker's 'error' event.
    throw error;
  },
);
