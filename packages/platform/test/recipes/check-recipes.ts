// `npm run check:recipes`: docs/architecture.md's recipes followed in a copy
// of the tree, as a contributor follows them. Each recipe below changes the
// files its section of the doc numbers, and only those: a kind, a quote method,
// a console page and a `feira` command added to the registries Feira itself
// ships. Then the copy is type-checked and the suites that pin those
// registries' lists run in it. A recipe whose file list is short of what the
// change needs fails here: a list a test pins by hand, a type that must name
// the new entry, a catalogue key. The working tree is never changed.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECIPES, type Recipe } from './recipes.js';

const root = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));

/** The suites that pin the lists the recipes extend, run in the copy. */
const PINNING_SUITES = [
  'packages/contract/src',
  'packages/platform/src/records/record-kinds.test.ts',
  'packages/platform/src/i18n',
  'packages/platform/test/records/record-kind-recipe.test.ts',
  'packages/platform/test/shipping/quote-method-registry.test.ts',
  'packages/platform/test/console/console-page-recipe.test.ts',
  'packages/platform/test/openapi/openapi-document.test.ts',
  'packages/platform/test/openapi/postman-collection.test.ts',
  'packages/sdk/test/record-paths.test.ts',
  'packages/cli/src/commands/index.test.ts',
];

/** The numbered files of one recipe's section, as the doc writes them. */
function documentedFiles(doc: string, heading: string): string[] {
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no section ${heading}`);
  const rest = doc.slice(start + heading.length);
  const end = rest.search(/\n##/);
  const section = end < 0 ? rest : rest.slice(0, end);
  // The first path of each numbered item ("3. A test: `…`" too).
  return [...section.matchAll(/^\d+\. [^`\n]*`([^`]+)`/gm)].map((match) => match[1] as string);
}

function copyTree(): string {
  const copy = mkdtempSync(join(tmpdir(), 'feira-recipes-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\0')
    .filter((file) => file && !file.startsWith('peers/') && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  // Installed packages are shared, not copied; peers/ too, so its installer finds them installed already.
  for (const modules of [
    'node_modules',
    'peers',
    ...['contract', 'platform', 'sdk', 'cli'].map((p) => `packages/${p}/node_modules`),
  ]) {
    if (existsSync(join(root, modules))) symlinkSync(join(root, modules), join(copy, modules), 'dir');
  }
  return copy;
}

function apply(copy: string, recipe: Recipe, doc: string): string[] {
  const problems: string[] = [];
  const documented = documentedFiles(doc, recipe.heading);
  const followed = recipe.steps.flatMap((step) => (step.documented ? [step.documented] : []));
  if (JSON.stringify(documented) !== JSON.stringify(followed)) {
    problems.push(
      `${recipe.heading}: the doc numbers ${JSON.stringify(documented)}, the recipe changed ${JSON.stringify(followed)}`,
    );
  }
  for (const step of recipe.steps) {
    const file = join(copy, step.file);
    const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (step.regenerate) {
      const [command, ...args] = step.regenerate as [string, ...string[]];
      if (!run(copy, command, args)) problems.push(`${recipe.heading}: ${step.file} could not be generated again`);
    } else if (step.change) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, step.change(before));
    }
    const after = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (after === before) problems.push(`${recipe.heading}: ${step.file} is a step that changes nothing`);
  }
  return problems;
}

function run(copy: string, command: string, args: string[]): boolean {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  // The lists are the same on every database: SQLite alone keeps the check short.
  const env = { ...process.env, CI: 'true', FEIRA_TEST_DATABASE_URL: '' };
  const result = spawnSync(command, args, { cwd: copy, stdio: 'inherit', env });
  return result.status === 0;
}

const copy = copyTree();
let failed = false;
try {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const problems = RECIPES.flatMap((recipe) => apply(copy, recipe, doc));
  for (const problem of problems) console.error(`recipe: ${problem}`);
  failed = problems.length > 0;
  failed = !run(copy, 'npx', ['tsc', '-p', 'tsconfig.typecheck.json', '--noEmit']) || failed;
  // What a recipe adds is imported where it is used: no export left dead (npm run check:exports).
  failed = !run(copy, 'npx', ['knip', '--include', 'exports,types']) || failed;
  failed = !run(copy, 'npx', ['vitest', 'run', ...PINNING_SUITES]) || failed;
} finally {
  if (process.env.FEIRA_KEEP_RECIPE_COPY) console.log(`the copy stays at ${copy}`);
  else rmSync(copy, { recursive: true, force: true });
}
if (failed) {
  console.error('\nA recipe of docs/architecture.md does not hold: see above.');
  process.exitCode = 1;
} else {
  console.log(
    `\nEvery recipe holds: ${RECIPES.map((recipe) => `${recipe.heading.slice(4)} (${recipe.steps.length} files)`).join(', ')}.`,
  );
}
