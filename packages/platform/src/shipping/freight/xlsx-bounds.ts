import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import type { UploadLimits } from '../../core/config.js';
import { UploadLimitExceeded, type UploadLimitHit } from './upload-limits.js';

/** A part (file) of the workbook's zip, as its central directory and local header say. */
interface ZipPart {
  name: string;
  method: number;
  compressedSize: number;
  /** The inflated size the central directory declares: believed only to refuse early, never to allocate. */
  declaredSize: number;
  dataStart: number;
}

/** The workbook is not a zip a streaming reader would read as this scan does. */
export class NotAWorkbook extends Error {}

/** Ratios are judged once a part has inflated this far: a small part's ratio says nothing. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** workbook.xml and its relationships are read whole, to name sheets, when this small. */
const SHEET_INDEX_BYTES = 1024 * 1024;
/** Compressed bytes handed to the inflater at a time (the count is taken between two). */
const SLICE_BYTES = 64 * 1024;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const DESCRIPTOR = 0x08074b50;

/**
 * The parts of a zip, from its central directory, checked against the local
 * headers a streaming reader walks (the spreadsheet library reads those): the
 * first at offset 0, each next one right after the previous one's data (and
 * its data descriptor), the last followed by the central directory, every
 * name the same in both. A zip where the two disagree could show this scan
 * one content and the library another, so it is refused.
 */
function zipParts(zip: Buffer): ZipPart[] {
  const tail = Math.max(0, zip.length - 65_557);
  let eocd = -1;
  for (let i = zip.length - 22; i >= tail; i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new NotAWorkbook('no zip end record');
  const count = zip.readUInt16LE(eocd + 10);
  const directorySize = zip.readUInt32LE(eocd + 12);
  const directoryStart = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || directoryStart === 0xffffffff) throw new NotAWorkbook('zip64 is not taken');
  if (directoryStart + directorySize > eocd) throw new NotAWorkbook('central directory out of bounds');
  const parts: Array<ZipPart & { localOffset: number; descriptor: boolean }> = [];
  let at = directoryStart;
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || zip.readUInt32LE(at) !== CENTRAL) throw new NotAWorkbook('bad central directory entry');
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const declaredSize = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (flags & 1) throw new NotAWorkbook('encrypted part');
    if (compressedSize === 0xffffffff || declaredSize === 0xffffffff) throw new NotAWorkbook('zip64 is not taken');
    if (localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL) throw new NotAWorkbook('bad local header');
    const localNameLength = zip.readUInt16LE(localOffset + 26);
    const localExtraLength = zip.readUInt16LE(localOffset + 28);
    if (zip.toString('utf8', localOffset + 30, localOffset + 30 + localNameLength) !== name) {
      throw new NotAWorkbook('local and central names differ');
    }
    const dataStart = localOffset + 30 + localNameLength + localExtraLength;
    if (dataStart + compressedSize > directoryStart) throw new NotAWorkbook('part data out of bounds');
    parts.push({ name, method, compressedSize, declaredSize, dataStart, localOffset, descriptor: (flags & 8) !== 0 });
    at += 46 + nameLength + extraLength + commentLength;
  }
  // The local headers, walked as a streaming reader walks them, are exactly these parts.
  const byOffset = [...parts].sort((a, b) => a.localOffset - b.localOffset);
  let expected = 0;
  for (const part of byOffset) {
    if (part.localOffset !== expected) throw new NotAWorkbook('data between parts');
    expected = part.dataStart + part.compressedSize;
    if (part.descriptor) expected += zip.readUInt32LE(expected) === DESCRIPTOR ? 16 : 12;
  }
  if (expected !== directoryStart) throw new NotAWorkbook('data before the central directory');
  return parts.map(({ name, method, compressedSize, declaredSize, dataStart }) => ({
    name,
    method,
    compressedSize,
    declaredSize,
    dataStart,
  }));
}

/**
 * A part's bytes as they inflate, counted: past `partInflatedBytes`, or past
 * `compressionRatio` times the compressed bytes the inflater has taken so far
 * (the ratio of what was read, not of what the header declares), it throws,
 * and nothing more of the part is inflated.
 */
async function* inflated(zip: Buffer, part: ZipPart, limits: UploadLimits): AsyncGenerator<Buffer> {
  const hit = (limit: 'partInflatedBytes' | 'compressionRatio'): never => {
    throw new UploadLimitExceeded({ limit, value: limits[limit], part: part.name });
  };
  // What the directory declares is refused before anything inflates; a lie is caught as the bytes come.
  if (part.declaredSize > limits.partInflatedBytes) hit('partInflatedBytes');
  if (part.declaredSize > RATIO_FLOOR_BYTES && part.declaredSize > limits.compressionRatio * part.compressedSize) {
    hit('compressionRatio');
  }
  const data = zip.subarray(part.dataStart, part.dataStart + part.compressedSize);
  if (part.method === 0) {
    if (data.length > limits.partInflatedBytes) hit('partInflatedBytes');
    for (let at = 0; at < data.length; at += SLICE_BYTES) yield data.subarray(at, at + SLICE_BYTES);
    return;
  }
  if (part.method !== 8) throw new NotAWorkbook(`compression method ${part.method}`);
  const inflater = createInflateRaw({ chunkSize: SLICE_BYTES });
  const input = Readable.from(
    (function* () {
      for (let at = 0; at < data.length; at += SLICE_BYTES) yield data.subarray(at, at + SLICE_BYTES);
    })(),
  );
  input.pipe(inflater);
  let total = 0;
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limits.partInflatedBytes) hit('partInflatedBytes');
      if (total > RATIO_FLOOR_BYTES && total > limits.compressionRatio * Math.max(1, inflater.bytesWritten)) {
        hit('compressionRatio');
      }
      yield chunk;
    }
  } finally {
    input.destroy();
    inflater.destroy();
  }
}

const LT = 0x3c;
const GT = 0x3e;
/** Bytes of a tag kept to read its name and `r` attribute; the rest of a long tag is only counted. */
const TAG_KEPT = 256;

/** `A` → 0, `AB` → 27: a cell reference's column. */
function columnIndex(reference: string): number {
  let index = 0;
  for (let i = 0; i < reference.length; i++) {
    const c = reference.charCodeAt(i);
    if (c < 65 || c > 90) break;
    index = index * 26 + (c - 64);
  }
  return index - 1;
}

/**
 * Bounds on a worksheet's or the shared strings' XML, checked byte by byte as
 * the part inflates, keeping only counters: a cell's text (all its text from
 * `<c` to `</c>`, or a shared string's from `<si>` to `</si>`), any run of
 * text or any tag outside them, the cells of a row, the rows, the shared
 * strings and their total text. Text is counted in bytes as stored (UTF-8,
 * entities as written), so a bound of N characters is never looser than N.
 */
class XmlBounds {
  private inTag = false;
  private keep = false;
  private tag = '';
  private tagLength = 0;
  /** The last three bytes of the tag being read, to see `</c>` and `</si>` without keeping the tag. */
  private tail = 0;
  /** Text since the last tag. */
  private run = 0;
  /** Inside a cell (a sheet) or a shared string, and its text so far. */
  private open = false;
  private openText = 0;
  private row = 0;
  private rows = 0;
  private cells = 0;
  private cell = '';
  private strings = 0;
  private stringsBytes = 0;

  constructor(
    private readonly kind: 'sheet' | 'strings',
    private readonly limits: UploadLimits,
    private readonly where: { part: string; sheet?: string },
  ) {}

  scan(chunk: Buffer): void {
    const maxCell = this.limits.cellChars;
    const maxText = this.limits.sharedStringsBytes;
    const strings = this.kind === 'strings';
    // `</c>` in a sheet, `</si>` in the shared strings, as the tag's last bytes (`/c`, `/si`).
    const closing = strings ? 0x2f7369 : 0x2f63;
    const closingMask = strings ? 0xffffff : 0xffff;
    const n = chunk.length;
    // A plain loop over the bytes with the state in locals: most runs between two brackets are a few
    // bytes long, where a native indexOf per run costs more than it saves.
    let inTag = this.inTag;
    let keep = this.keep;
    let tagLength = this.tagLength;
    let tail = this.tail;
    let run = this.run;
    let open = this.open;
    let openText = this.openText;
    let text = this.stringsBytes;
    let tagStart = 0;
    const save = () => {
      this.inTag = inTag;
      this.keep = keep;
      this.tagLength = tagLength;
      this.tail = tail;
      this.run = run;
      this.open = open;
      this.openText = openText;
      this.stringsBytes = text;
    };
    for (let i = 0; i < n; i++) {
      const c = chunk[i] as number;
      if (inTag) {
        if (c === GT) {
          inTag = false;
          if (keep) {
            if (this.tag.length < TAG_KEPT) this.tag += chunk.toString('latin1', tagStart, Math.min(i, tagStart + TAG_KEPT));
            save();
            if (this.closeTag()) {
              // A cell or shared string opens (unless it closes itself, `<c r="A1"/>`).
              open = tail !== 0x2f && (tail & 0xff) !== 0x2f;
              openText = 0;
            }
          } else if ((tail & closingMask) === closing) open = false;
        } else {
          tail = ((tail << 8) | c) & 0xffffff;
          if (++tagLength > maxCell) {
            save();
            this.fail('cellChars', maxCell);
          }
        }
      } else if (c === LT) {
        inTag = true;
        tagLength = 0;
        tail = 0;
        run = 0;
        tagStart = i + 1;
        this.tag = '';
        // r(ow), c, s(i); at a chunk's end the next byte is not known yet, so the tag is kept.
        const next = i + 1 < n ? (chunk[i + 1] as number) : 0;
        keep = next === 0 || next === 0x72 || next === 0x63 || next === 0x73;
      } else {
        if (++run > maxCell || (open && ++openText > maxCell)) {
          save();
          this.fail('cellChars', maxCell);
        }
        if (strings && ++text > maxText) {
          save();
          this.fail('sharedStringsBytes', maxText);
        }
      }
    }
    // A tag cut by the chunk's end: its start so far is kept for the next chunk.
    if (inTag && keep && this.tag.length < TAG_KEPT)
      this.tag += chunk.toString('latin1', tagStart, Math.min(n, tagStart + TAG_KEPT));
    save();
  }

  /** Reads a kept tag; true when it opens a cell (a sheet) or a shared string. */
  private closeTag(): boolean {
    const tag = this.tag;
    const name = /^[A-Za-z:]+/.exec(tag)?.[0] ?? '';
    if (this.kind === 'strings') {
      if (name !== 'si') return false;
      this.strings += 1;
      if (this.strings > this.limits.sharedStrings) this.fail('sharedStrings', this.limits.sharedStrings);
      return true;
    }
    if (name === 'row') {
      this.rows += 1;
      const r = /\sr="(\d+)"/.exec(tag);
      this.row = r ? Number(r[1]) : this.row + 1;
      this.cells = 0;
      this.cell = '';
      if (this.rows > this.limits.rows || this.row > this.limits.rows) this.fail('rows', this.limits.rows);
      return false;
    }
    if (name !== 'c') return false;
    this.cells += 1;
    const r = /\sr="([A-Z]+)\d*"/.exec(tag);
    this.cell = r ? (r[1] as string) : '';
    const index = r ? columnIndex(r[1] as string) : this.cells - 1;
    if (this.cells > this.limits.columns || index >= this.limits.columns) this.fail('columns', this.limits.columns);
    return true;
  }

  private fail(limit: UploadLimitHit['limit'], value: number): never {
    const hit: UploadLimitHit = { limit, value, part: this.where.part };
    if (this.where.sheet !== undefined) hit.sheet = this.where.sheet;
    if (this.kind === 'strings') hit.sharedString = Math.max(0, this.strings - 1);
    else if (this.row > 0) {
      hit.line = this.row;
      if (limit !== 'rows' && this.cell) hit.cell = `${this.cell}${this.row}`;
      else if (limit === 'columns') hit.column = `cell ${this.cells}`;
    }
    throw new UploadLimitExceeded(hit);
  }
}

/** A small XML part read whole (the sheet index), or undefined when it is not small. */
async function smallPart(zip: Buffer, part: ZipPart | undefined, limits: UploadLimits): Promise<string | undefined> {
  if (!part || part.declaredSize > SHEET_INDEX_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of inflated(zip, part, limits)) {
    size += chunk.length;
    if (size > SHEET_INDEX_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Each worksheet part's sheet name, from xl/workbook.xml and its relationships (when both are small). */
async function sheetNames(zip: Buffer, parts: ZipPart[], limits: UploadLimits): Promise<Map<string, string>> {
  const byName = new Map(parts.map((part) => [part.name, part]));
  const workbook = await smallPart(zip, byName.get('xl/workbook.xml'), limits);
  const rels = await smallPart(zip, byName.get('xl/_rels/workbook.xml.rels'), limits);
  const names = new Map<string, string>();
  if (!workbook || !rels) return names;
  const targets = new Map<string, string>();
  for (const m of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\sId="([^"]+)"/.exec(m[0])?.[1];
    const target = /\sTarget="([^"]+)"/.exec(m[0])?.[1];
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target}`);
  }
  for (const m of workbook.matchAll(/<sheet\b[^>]*>/g)) {
    const name = /\sname="([^"]+)"/.exec(m[0])?.[1];
    const id = /\sr:id="([^"]+)"/.exec(m[0])?.[1];
    const target = id ? targets.get(id) : undefined;
    if (name && target)
      names.set(
        target,
        name
          .replace(/&amp;/g, '&')
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>'),
      );
  }
  return names;
}

/**
 * Checks a workbook against every bound before any library parses it: each
 * part inflated as a stream and counted (size, ratio), the worksheets' and
 * shared strings' XML scanned as it inflates (cell, cells per row, rows,
 * shared strings and their text). It throws UploadLimitExceeded at the first
 * bound, naming the part, sheet, row and cell, and inflates nothing after it;
 * NotAWorkbook when the zip is not one a streaming reader would read alike.
 */
export async function checkWorkbookBounds(zip: Buffer, limits: UploadLimits): Promise<void> {
  const parts = zipParts(zip);
  const sheets = await sheetNames(zip, parts, limits);
  for (const part of parts) {
    const isSheet = /^xl\/worksheets\/[^/]+\.xml$/i.test(part.name);
    const isStrings = /^xl\/sharedStrings[^/]*\.xml$/i.test(part.name);
    const sheet = sheets.get(part.name);
    const bounds =
      isSheet || isStrings
        ? new XmlBounds(isSheet ? 'sheet' : 'strings', limits, { part: part.name, ...(sheet !== undefined ? { sheet } : {}) })
        : undefined;
    for await (const chunk of inflated(zip, part, limits)) bounds?.scan(chunk);
  }
}
