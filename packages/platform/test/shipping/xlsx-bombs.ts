// Workbooks built byte by byte for the upload bounds' tests: a zip of XML parts,
// each part deflated as a run of independently compressed pieces (each ends
// with a sync flush, so pieces concatenate into one valid deflate stream), so
// a part that inflates to gigabytes is built from one compressed piece
// repeated, without ever materialising what it inflates to.
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { FREIGHT_COLUMNS } from '../../src/shipping/freight/freight-csv.js';
import { columnLetter } from '../../src/shipping/freight/freight-xlsx.js';

/** A part of the zip: its name, compressed bytes, and what its headers say. */
export interface BombPart {
  name: string;
  data: Buffer;
  /** 8: deflate; 0: stored. */
  method: 0 | 8;
  crc: number;
  /** The inflated size written in the headers (a bomb may lie). */
  declaredSize: number;
}

/** Deflated pieces that concatenate: each ends on a byte boundary, none is final. */
function piece(bytes: Buffer): Buffer {
  return deflateRawSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH, level: 9 });
}
/** The empty final block that ends a deflate stream (BFINAL=1, fixed Huffman, end of block). */
const FINAL = Buffer.from([0x03, 0x00]);

/** A small XML part, deflated whole, with its true size and CRC. */
export function xmlPart(name: string, xml: string): BombPart {
  const bytes = Buffer.from(xml, 'utf8');
  return { name, data: Buffer.concat([piece(bytes), FINAL]), method: 8, crc: crc32(bytes), declaredSize: bytes.length };
}

/**
 * A part that inflates to `prefix`, then `chunk` `times` times, then `suffix`:
 * the chunk is deflated once and its piece repeated. The headers declare
 * `declaredSize` (default: a lie of 1 KiB) and a CRC of 0: the bounds must
 * stop it as it inflates, before anything could check the CRC.
 */
export function repeatedPart(
  name: string,
  prefix: string,
  chunk: string,
  times: number,
  suffix: string,
  declaredSize = 1024,
): BombPart & { inflatedSize: number } {
  const repeated = piece(Buffer.from(chunk, 'utf8'));
  const data = Buffer.concat([
    piece(Buffer.from(prefix, 'utf8')),
    ...Array.from({ length: times }, () => repeated),
    piece(Buffer.from(suffix, 'utf8')),
    FINAL,
  ]);
  const inflatedSize = Buffer.byteLength(prefix) + Buffer.byteLength(chunk) * times + Buffer.byteLength(suffix);
  return { name, data, method: 8, crc: 0, declaredSize, inflatedSize };
}

/** The zip of these parts, in this order: local headers and data, then the central directory. */
export function zipOf(parts: BombPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(part.method, 8);
    local.writeUInt32LE(part.crc >>> 0, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(part.method, 10);
    central.writeUInt32LE(part.crc >>> 0, 16);
    central.writeUInt32LE(part.data.length, 20);
    central.writeUInt32LE(part.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.data);
    centrals.push(central, name);
    offset += 30 + name.length + part.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Frete" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;
const SHEET_OPEN = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`;
const SHEET_CLOSE = '</sheetData></worksheet>';
const STRINGS_OPEN = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`;

const HEADER = FREIGHT_COLUMNS;
const letter = columnLetter;

/** A row of inline strings (`<c t="inlineStr">`), as the sheet's XML. */
export function inlineRow(row: number, cells: readonly string[]): string {
  return `<row r="${row}">${cells.map((text, i) => `<c r="${letter(i)}${row}" t="inlineStr"><is><t>${text}</t></is></c>`).join('')}</row>`;
}

/** The header row and one valid row of the VTEX layout, inline. */
export const VALID_ROWS = `${inlineRow(1, HEADER)}${inlineRow(2, ['01000000', '01999999', 'Capital', '0', '30000', '12,90', '0', '0', '', '3', 'BRA', '0'])}`;

/** A workbook of the sheet "Frete" whose parts are these (the sheet and, if given, the shared strings). */
export function workbookOf(sheet: BombPart, sharedStrings?: BombPart): Buffer {
  return zipOf([
    xmlPart('[Content_Types].xml', CONTENT_TYPES),
    xmlPart('_rels/.rels', ROOT_RELS),
    xmlPart('xl/workbook.xml', WORKBOOK),
    xmlPart('xl/_rels/workbook.xml.rels', WORKBOOK_RELS),
    ...(sharedStrings ? [sharedStrings] : []),
    sheet,
  ]);
}

/** A valid sheet: the header and one row. */
export function validSheet(rows = VALID_ROWS): BombPart {
  return xmlPart('xl/worksheets/sheet1.xml', `${SHEET_OPEN}${rows}${SHEET_CLOSE}`);
}

/**
 * The shared-strings bomb: `strings` strings of `length` characters in
 * xl/sharedStrings.xml (2.5 million of 1,000 by default: about 2.5 GB
 * inflated from about 5 MB), the sheet a valid one referring to none.
 */
export function sharedStringsBomb(strings = 2_500_000, length = 1000, declaredSize = 1024) {
  const perChunk = 1000;
  const one = `<si><t>${'x'.repeat(length)}</t></si>`;
  const part = repeatedPart(
    'xl/sharedStrings.xml',
    `${STRINGS_OPEN.replace('<sst ', `<sst count="${strings}" uniqueCount="${strings}" `)}`,
    one.repeat(perChunk),
    Math.ceil(strings / perChunk),
    '</sst>',
    declaredSize,
  );
  return { zip: workbookOf(validSheet(), part), inflatedSize: part.inflatedSize };
}

/** One inline cell of `bytes` characters at C2 (PolygonName), in an otherwise valid sheet. */
export function hugeInlineCell(bytes = 700 * 1024 * 1024) {
  const chunk = 'x'.repeat(1024 * 1024);
  const cells = ['01000000', '01999999'];
  const before = `${SHEET_OPEN}${inlineRow(1, HEADER)}<row r="2">${cells.map((text, i) => `<c r="${letter(i)}2" t="inlineStr"><is><t>${text}</t></is></c>`).join('')}<c r="C2" t="inlineStr"><is><t>`;
  const after = `</t></is></c></row>${SHEET_CLOSE}`;
  const part = repeatedPart('xl/worksheets/sheet1.xml', before, chunk, Math.ceil(bytes / chunk.length), after);
  return { zip: workbookOf(part), inflatedSize: part.inflatedSize };
}
