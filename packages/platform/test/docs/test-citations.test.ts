import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The docs cite tests by name so a reader can find the test that shows a rule or a defence. A test
// renamed without its citation leaves the doc pointing at nothing; these checks keep the two together
// without starting a server.

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const CITING_DOCS = ['docs/spec-rule-tests.md', 'docs/security.md', 'docs/console.md'];

function walk(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, found);
    else found.push(path);
  }
  return found;
}

const packages = readdirSync(join(root, 'packages')).map((name) => `packages/${name}`);
const sourceFiles = [...packages, 'examples', 'bench'].flatMap((dir) => walk(dir)).filter((path) => path.endsWith('.ts'));
const testFiles = sourceFiles.filter((path) => path.endsWith('.test.ts'));

/** Short names in the file table of spec-rule-tests.md (`| contract-quote | packages/contract/src/quote.test.ts |`). */
function fileTable(): Map<string, string> {
  const table = new Map<string, string>();
  for (const line of readFileSync(join(root, 'docs/spec-rule-tests.md'), 'utf8').split('\n')) {
    const row = /^\| ([^|]+) \| (\S+\.test\.ts)\b/.exec(line);
    if (!row?.[1] || !row[2] || row[2].includes('*')) continue;
    for (const name of row[1].split(',')) table.set(name.trim(), row[2]);
  }
  return table;
}

/** The test files a cited file name may mean: a path, a name from the file table, or a file's base name. */
function resolveFile(cited: string, table: Map<string, string>): string[] {
  const name = cited.replace(/\.test\.ts$/, '');
  const fromTable = table.get(name);
  if (fromTable) return [fromTable];
  const byPath = testFiles.filter((path) => path === cited || path.endsWith(`/${name}.test.ts`));
  if (byPath.length > 0) return byPath;
  return testFiles.filter((path) => basename(path) === `${basename(name)}.test.ts`);
}

const TEST_FUNCTIONS = new Set(['it', 'test', 'describe', 'suite']);

function calleeRoot(node: ts.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return calleeRoot(node.expression);
  if (ts.isCallExpression(node)) return calleeRoot(node.expression);
  return undefined;
}

function literalText(node: ts.Expression, source: ts.SourceFile): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  // A template's substitutions stay as written (`${x}`); the words around them are what a doc cites.
  if (ts.isTemplateExpression(node)) return node.getText(source).slice(1, -1);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = literalText(node.left, source);
    const right = literalText(node.right, source);
    return left !== undefined && right !== undefined ? left + right : undefined;
  }
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression, source);
  return undefined;
}

/** A test or suite: its title as written, and the names a doc may cite it by. */
interface Titled {
  names: string[];
}

const titleCache = new Map<string, Titled[]>();

/**
 * Every `it`, `test` and `describe` of a file (`it.each(…)('title')` included): its title as written,
 * and a test's full name as vitest reports it (its suites' titles, then its own, joined by spaces).
 */
function titlesOf(path: string): Titled[] {
  const cached = titleCache.get(path);
  if (cached) return cached;
  const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
  const titles: Titled[] = [];
  const visit = (node: ts.Node, suites: string[]): void => {
    if (ts.isCallExpression(node) && node.arguments[0]) {
      const rootName = calleeRoot(node.expression);
      const title = rootName && TEST_FUNCTIONS.has(rootName) ? literalText(node.arguments[0], source) : undefined;
      if (title !== undefined) {
        const path = [...suites, title];
        titles.push({ names: suites.length > 0 ? [title, path.join(' '), path.join(' > ')] : [title] });
        for (const argument of node.arguments.slice(1)) visit(argument, path);
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, suites));
  };
  visit(source, []);
  titleCache.set(path, titles);
  return titles;
}

interface Citation {
  doc: string;
  line: number;
  file: string;
  name: string;
}

/** A table cell's parts joined by "; ", outside parentheses (a remark in parentheses may hold a ";"). */
function partsOf(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < cell.length; i++) {
    if (cell[i] === '(') depth++;
    else if (cell[i] === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && cell.startsWith('; ', i)) {
      parts.push(cell.slice(start, i));
      start = i + 2;
    }
  }
  parts.push(cell.slice(start));
  return parts;
}

/**
 * Every `file :: name` of a doc. The cited name is the text after `::` up to the first "…" or ";", the
 * next citation or the end of the table cell, trimmed: a doc may shorten a long name with "…". Several
 * names of one file are joined with "; ": a part of the cell without a file of its own names another
 * test of the file cited before it (`money :: R1: one test; R1: another`), unless it starts with "…",
 * which marks the rest of a name shared with the one before (`login-throttle :: a; … b`), or with "(",
 * a remark, or is a file's path alone. A `[row]` naming one row of an `it.each` ends the name too (the
 * title holds a `%s` there). An empty name has nothing more to check.
 */
function citationsOf(doc: string, markdown = readFileSync(join(root, doc), 'utf8')): Citation[] {
  const citations: Citation[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const cell of text.replace(/\s\|\s*$/, '').split(/ \| /)) {
      let file: string | undefined;
      for (const part of partsOf(cell)) {
        const cited = [...part.matchAll(/`?([\w./-]+?)(?:\.test\.ts)?`? :: /g)];
        const names =
          cited.length > 0
            ? cited.map((match, i) => {
                file = match[1];
                return { file: match[1] ?? '', text: part.slice((match.index ?? 0) + match[0].length, cited[i + 1]?.index) };
              })
            : file && !/^\s*[…[(]/.test(part) && !/^\s*`[\w./-]+`\s*$/.test(part)
              ? [{ file, text: part }]
              : [];
        for (const { file: cut, text: rest } of names) {
          const end = rest.search(/…|\[|\s\|$/);
          // A table cell escapes "|" as "\\|"; a name cut at "…" may end on a comma.
          const name = (end === -1 ? rest : rest.slice(0, end)).replaceAll('\\|', '|').trim().replace(/,$/, '');
          // `file :: name` itself, where a doc explains the form.
          if (cut === 'file' || name === '') continue;
          citations.push({ doc, line: index + 1, file: cut, name });
        }
      }
    }
  });
  return citations;
}

const COUNT = new Map(
  ['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'].map((word, index) => [word, index + 2]),
);

/**
 * The texts a title must hold for a cited name: the name as written, then without the notes a doc adds
 * at its end — a closing "." or ")" of the sentence around it, parenthesised remarks such as
 * "(PostgreSQL)" or "(suite: …)", a sentence of prose after the name — taken off one at a time.
 * "(five tests: …)" after a shared prefix also asks that many titles to hold it.
 */
function readings(name: string): { text: string; atLeast: number }[] {
  const found: { text: string; atLeast: number }[] = [];
  const sentence = name.indexOf('. ');
  if (sentence > 0) found.push({ text: name.slice(0, sentence), atLeast: 1 });
  const unbalanced = name.split('(').length < name.split(')').length;
  let text = unbalanced ? name.replace(/\)\.?$/, '') : name;
  let atLeast = 1;
  for (;;) {
    found.push({ text, atLeast });
    const counted = /\((\w+) tests\b[^()]*(?:\([^()]*\)[^()]*)*\)?$/.exec(text);
    const withoutNote = text
      .replace(/\.$/, '')
      .replace(/\s*\((?:[^()]|\([^()]*\))*\)?$/, '')
      .trim();
    if (withoutNote === text || withoutNote === '') return found;
    text = withoutNote;
    if (counted) atLeast = COUNT.get(counted[1] ?? '') ?? (Number(counted[1]) || 1);
  }
}

function broken(citation: Citation, table: Map<string, string>): string | undefined {
  const where = `${citation.doc}:${citation.line}  ${citation.file} :: ${citation.name}`;
  const files = resolveFile(citation.file, table);
  if (files.length === 0) return `${where}\n    no test file is called ${citation.file}`;
  const titles = files.flatMap(titlesOf);
  const found = readings(citation.name).some(
    ({ text, atLeast }) => titles.filter(({ names }) => names.some((title) => title.includes(text))).length >= atLeast,
  );
  return found ? undefined : `${where}\n    no test or describe title in ${files.join(', ')} holds this text`;
}

describe('the docs cite tests that exist', () => {
  it('every `file :: name` in spec-rule-tests.md, security.md and console.md names a test title of that file', () => {
    const table = fileTable();
    const citations = CITING_DOCS.flatMap((doc) => citationsOf(doc));
    expect(citations.length).toBeGreaterThan(100);
    const failures = citations.map((citation) => broken(citation, table)).filter((failure) => failure !== undefined);
    expect(failures, `broken citations:\n${failures.join('\n')}`).toEqual([]);
  });

  it('a renamed test title is reported as a broken citation', () => {
    const table = fileTable();
    const real = { doc: 'x.md', line: 1, file: 'test-citations', name: 'a renamed test title is reported' };
    expect(broken(real, table)).toBeUndefined();
    expect(broken({ ...real, name: 'a title nobody wrote' }, table)).toContain('no test or describe title');
    expect(broken({ ...real, file: 'no-such-file' }, table)).toContain('no test file is called');
    // "(two tests: …)" after a prefix: two titles must hold the prefix, and only one here does.
    expect(broken({ ...real, name: 'a renamed test title (two tests: one, two)' }, table)).toContain('no test');
    expect(broken({ ...real, name: 'the docs cite tests that exist a renamed test title' }, table)).toBeUndefined();
  });

  it('a doc line is read as the docs write it: "…" shortens a name, "; " joins names of one file, "[row]" is a row of an it.each', () => {
    const line =
      '| Q1 | rule | quote-rules :: spec "Q": refuses a request where %s [zipcode has 7 digits]; … [no items]; ' +
      'money :: R1: one…; R1: two (PostgreSQL); (see above) | `http/edges.test.ts` :: a (b; c) d |';
    expect(citationsOf('x.md', line).map(({ file, name }) => `${file} :: ${name}`)).toEqual([
      'quote-rules :: spec "Q": refuses a request where %s',
      'money :: R1: one',
      'money :: R1: two (PostgreSQL)',
      'http/edges :: a (b; c) d',
    ]);
  });
});

const ISSUE_REFERENCE = /\bissue[- ]?#?\d+/i;

describe('no work-item numbers a reader cannot open', () => {
  it('no docs/*.md and no source file (comments, test names) says "issue <number>"', () => {
    const docs = readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    const offenders: string[] = [];
    for (const path of [...docs, ...sourceFiles]) {
      readFileSync(join(root, path), 'utf8')
        .split('\n')
        .forEach((text, index) => {
          if (ISSUE_REFERENCE.test(text)) offenders.push(`${relative(root, join(root, path))}:${index + 1}  ${text.trim()}`);
        });
    }
    expect(offenders, `"issue N" references:\n${offenders.join('\n')}`).toEqual([]);
  });
});
