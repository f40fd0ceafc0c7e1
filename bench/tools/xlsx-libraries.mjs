// Measures the freight workbook's candidate libraries on this machine, each run in a
// child process of its own (time and peak RSS), all in one run, so their figures compare.
// The libraries are installed in a scratch folder, not in the workspace:
//   mkdir /tmp/xlsxbench && cd /tmp/xlsxbench && npm init -y &&
//   npm install exceljs@4.4.0 excelts5@npm:@cj-tech-master/excelts@5.1.17
//   node <repo>/bench/tools/xlsx-libraries.mjs /tmp/xlsxbench 300000 1048575
// Write: rows paged 5,000 at a time as the download writes them (freight-routes.ts), no
// shared strings, no styles. Read: the first sheet streamed, every cell's text taken, as
// the upload reads it (freight-xlsx.ts).
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const LIBRARIES = {
  exceljs: (require) => {
    const ExcelJS = require('exceljs');
    return { Reader: ExcelJS.stream.xlsx.WorkbookReader, Writer: ExcelJS.stream.xlsx.WorkbookWriter };
  },
  'excelts 5': (require) => {
    const excelts = require('excelts5');
    return { Reader: excelts.WorkbookReader, Writer: excelts.WorkbookWriter };
  },
};

function row(i) {
  const zip = String(1_000_000 + i * 10).padStart(8, '0');
  const zipEnd = String(1_000_000 + i * 10 + 9).padStart(8, '0');
  return [zip, zipEnd, `Faixa ${i % 977}`, 0, 30000, 15.9 + (i % 100) / 100, 0, 1.5, 1000000, '3.00:00:00', 'BRA', 0];
}
const HEADER = [
  'ZipCodeStart',
  'ZipCodeEnd',
  'PolygonName',
  'WeightStart',
  'WeightEnd',
  'AbsoluteMoneyCost',
  'PricePercent',
  'PriceByExtraWeight',
  'MaxVolume',
  'TimeCost',
  'Country',
  'MinimumValueInsurance',
];

async function child(dir, library, op, rows, file) {
  const require = createRequire(join(dir, 'package.json'));
  const { Reader, Writer } = LIBRARIES[library](require);
  const started = performance.now();
  let count = 0;
  if (op === 'write') {
    const out = createWriteStream(file);
    const workbook = new Writer({ stream: out, useSharedStrings: false, useStyles: false });
    const sheet = workbook.addWorksheet('Frete');
    sheet.addRow(HEADER).commit();
    for (let page = 0; page < rows; page += 5000) {
      // A page comes from the database: a turn of the event loop between two.
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = page; i < Math.min(rows, page + 5000); i++) sheet.addRow(row(i)).commit();
    }
    sheet.commit();
    await workbook.commit();
    if (!out.writableFinished) await once(out, 'finish');
    count = rows;
  } else {
    const reader = new Reader(createReadStream(file), {
      entries: 'emit',
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      styles: 'ignore',
      worksheets: 'emit',
    });
    for await (const sheet of reader) {
      for await (const r of sheet) {
        const values = r.values;
        let text = '';
        for (let i = 1; i < values.length; i++) text = String(values[i] ?? '');
        if (text !== undefined) count += 1;
      }
      break;
    }
  }
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024, count }));
}

async function driver(dir, sizes) {
  const results = [];
  for (const rows of sizes) {
    for (const library of Object.keys(LIBRARIES)) {
      const file = join(dir, `${library.replace(' ', '')}-${rows}.xlsx`);
      for (const op of ['write', 'read']) {
        const run = spawnSync(
          process.execPath,
          [new URL(import.meta.url).pathname, '--child', dir, library, op, String(rows), file],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        if (run.status !== 0) {
          results.push({ library, op, rows, error: run.stderr.slice(0, 300) });
          continue;
        }
        const r = JSON.parse(run.stdout);
        const mb = op === 'write' ? statSync(file).size / 1e6 : undefined;
        results.push({
          library,
          op,
          rows,
          seconds: +(r.ms / 1000).toFixed(1),
          peakRssMb: Math.round(r.peakRssMb),
          rowsRead: r.count - (op === 'read' ? 1 : 0),
          fileMb: mb && +mb.toFixed(1),
        });
        console.error(JSON.stringify(results.at(-1)));
      }
    }
  }
  console.log(JSON.stringify(results, null, 1));
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1], args[2], args[3], Number(args[4]), args[5]);
else await driver(args[0], args.slice(1).map(Number));
