import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { request } from 'undici';
import { findSandbox, NoSandboxError, sandboxOptions } from '../sandbox/find-sandbox.js';

// `feira freight import <file>` (spec-notes Q8): uploads a freight spreadsheet
// (VTEX layout) to a store's table, or with --delivery-service to the
// marketplace delivery service's, streaming the file with a progress bar. The
// server parses it as it arrives and replaces the table only if every row is valid.

interface ImportOptions {
  tenant?: string;
  deliveryService?: boolean;
  table: string;
  name?: string;
  distributionCenter?: string;
  cubicWeightFactor?: string;
  url: string;
  adminToken?: string;
  dataDir: string;
  progress: boolean;
  json?: boolean;
}

class FreightError extends Error {}

/** An .xlsx file goes as a workbook (D62), anything else as a CSV. */
export function spreadsheetType(file: string): string {
  return /\.xlsx$/i.test(file) ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv';
}

function adminTokenOf(options: ImportOptions): string {
  if (options.adminToken) return options.adminToken;
  try {
    return readFileSync(join(resolve(options.dataDir), 'admin-token'), 'utf8').trim();
  } catch {
    throw new FreightError('no admin token: pass --admin-token, set FEIRA_ADMIN_TOKEN, or run from the folder of `feira start`');
  }
}

/** The table's URL with its query (name, centre, factor). */
function freightTablePath(
  options: Pick<ImportOptions, 'tenant' | 'deliveryService' | 'table' | 'name' | 'distributionCenter' | 'cubicWeightFactor'>,
): string {
  const base = options.deliveryService
    ? '/admin/v1/delivery-service/freight-tables'
    : `/admin/v1/tenants/${encodeURIComponent(options.tenant ?? '')}/shipping/freight-tables`;
  const query = new URLSearchParams();
  if (options.name) query.set('name', options.name);
  if (options.distributionCenter) query.set('distribution_center_id', options.distributionCenter);
  if (options.cubicWeightFactor) query.set('cubic_weight_factor', options.cubicWeightFactor);
  const qs = query.toString();
  return `${base}/${encodeURIComponent(options.table)}${qs ? `?${qs}` : ''}`;
}

async function importFile(file: string, options: ImportOptions): Promise<{ status: number; body: unknown }> {
  if (!options.deliveryService && !options.tenant) throw new FreightError('pass --tenant <id> (or --delivery-service)');
  const token = adminTokenOf(options);
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new FreightError(`cannot read ${file}`);
  }
  const bar = new SingleBar(
    { format: 'uploading |{bar}| {percentage}% {value}/{total} bytes', hideCursor: true },
    Presets.shades_classic,
  );
  if (options.progress) bar.start(size, 0);
  let sent = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      if (options.progress) bar.update(sent);
      done(null, chunk);
    },
  });
  try {
    const response = await request(new URL(freightTablePath(options), options.url), {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': spreadsheetType(file) },
      body: createReadStream(file).pipe(counting),
      // A large table is validated and written before the answer: no headers timeout.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : null };
  } catch (error) {
    if (error instanceof SyntaxError) throw new FreightError('the server answered something that is not JSON');
    throw new FreightError(`cannot reach the platform at ${options.url} (is \`feira start\` running?)`);
  } finally {
    if (options.progress) bar.stop();
  }
}

/** The query parameters this command sends, by the flag that sets each. */
const FLAG_OF_FIELD: Record<string, string> = {
  name: '--name',
  distribution_center_id: '--distribution-center',
  cubic_weight_factor: '--cubic-weight-factor',
};

/** One refused field as the API names it, with the flag that sets it when there is one. */
export function detailLine(detail: { field?: string; message: string }): string {
  if (!detail.field) return detail.message;
  const flag = FLAG_OF_FIELD[detail.field];
  return `${detail.field}: ${detail.message}${flag ? ` (${flag})` : ''}`;
}

export function register(program: Command): void {
  const freight = program.command('freight').description('Freight tables (spreadsheet quote method)');
  const importCommand = freight
    .command('import')
    .description('Create or replace a freight table from a VTEX-layout spreadsheet (CSV or .xlsx), streamed to the platform')
    .argument('<file>', 'the CSV file, or an .xlsx workbook (its first sheet)')
    .requiredOption('--table <id>', 'the table id (1-32 characters): the option id shoppers and orders see')
    .option('--tenant <id>', 'the store (tenant) whose table it is')
    .option('--delivery-service', "the marketplace delivery service's table instead of a store's")
    .option('--name <name>', 'the option name shown to shoppers (required for a new table)')
    .option('--distribution-center <id>', 'the distribution centre the options ship from')
    .option('--cubic-weight-factor <kg-per-m3>', 'use the cubic weight when larger (Correios: 166.67)')
    .option('--admin-token <token>', 'admin API token (env FEIRA_ADMIN_TOKEN; default <data-dir>/admin-token)')
    .option('--no-progress', 'no progress bar')
    .option('--json', 'print the answer as JSON');
  // The running sandbox is found through its data folder, as every other command finds it.
  sandboxOptions(importCommand).action(
    async (file: string, raw: Omit<ImportOptions, 'url' | 'dataDir'> & { url?: string; dataDir?: string }) => {
      let options: ImportOptions;
      try {
        const sandbox = findSandbox(raw);
        options = { ...raw, url: sandbox.url, dataDir: sandbox.dataDir, adminToken: raw.adminToken ?? sandbox.adminToken };
      } catch (error) {
        if (!(error instanceof NoSandboxError)) throw error;
        console.error(`feira freight import: ${error.message}`);
        process.exitCode = 1;
        return;
      }
      try {
        const { status, body } = await importFile(file, options);
        if (options.json) console.log(JSON.stringify({ status, body }));
        const answer = body as {
          row_count?: number;
          message?: string;
          details?: Array<{ field?: string; message: string }>;
        } | null;
        if (status === 200 || status === 201) {
          if (!options.json)
            console.log(`table ${options.table}: ${answer?.row_count} rows ${status === 201 ? 'created' : 'replaced'}`);
          return;
        }
        if (!options.json) {
          console.error(`feira freight import: ${status} ${answer?.message ?? ''}`);
          for (const detail of answer?.details ?? []) console.error(`  ${detailLine(detail)}`);
        }
        process.exitCode = 1;
      } catch (error) {
        if (!(error instanceof FreightError)) throw error;
        if (options.json) console.log(JSON.stringify({ error: error.message }));
        console.error(`feira freight import: ${error.message}`);
        process.exitCode = 1;
      }
    },
  );
}
