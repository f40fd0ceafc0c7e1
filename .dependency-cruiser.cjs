/**
 * Import rules checked by `npm run check:circles` (CI runs it); the layering
 * they keep is drawn in docs/architecture.md ("Import rules"). Type-only
 * imports count: TypeScript erases them, the reader does not.
 *
 * Layers of packages/platform/src, from the ground up:
 *   core/                          leaf services
 *   storage/ outbound/ lists/ i18n/ http/   foundations every capability builds on
 *   accounts/ identity/ records/ webhooks/ shipping/   capabilities
 *   admin/ console/ demo/          operator and seller faces over the capabilities
 *   app.ts browser-pages.ts platform.ts prepare-database.ts server.ts workers.ts testing.ts test-databases.ts index.ts   composition
 */
const src = '^packages/platform/src/';
const capabilities = '(accounts|identity|lists|records|webhooks|shipping|outbound|storage|http|i18n|core)';
const foundations = '(storage|outbound|lists|i18n|http)';
const aboveFoundations = '(accounts|identity|records|webhooks|shipping|admin|console|demo)';
const rootFiles = '[^/]+\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Files import each other, directly or through others: break the circle. A circle of types still couples the files: neither can be read, moved or tested alone.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'no-app-import',
      severity: 'error',
      comment: 'app.ts builds the HTTP app; only the composition root (platform.ts) and the package index import it.',
      from: { path: src, pathNot: `${src}(platform|index)\\.ts$|\\.test\\.ts$` },
      to: { path: `${src}app\\.ts$` },
    },
    {
      name: 'capabilities-below-faces',
      severity: 'error',
      comment:
        'admin/, console/ and demo/ are faces over the capabilities: they call them, never the other way round. A piece two of them share (the HTML page kit, the admin-token guard) lives in a lower folder.',
      from: { path: `${src}${capabilities}/`, pathNot: '\\.test\\.ts$' },
      to: { path: `${src}(admin|console|demo)/` },
    },
    {
      name: 'core-imports-no-capability',
      severity: 'error',
      comment:
        'core/ holds the leaf services every folder uses (clock, random, config, errors, caches, hashing); importing another folder from it would tie that folder to everything. The context that bundles them with the open database (http/platform-context.ts) sits above storage/ for that reason.',
      from: { path: `${src}core/`, pathNot: '\\.test\\.ts$' },
      to: { path: src, pathNot: `${src}core/` },
    },
    {
      name: 'foundations-below-capabilities',
      severity: 'error',
      comment:
        'storage/, outbound/, lists/, i18n/ and http/ know no capability: a capability plugs into them (a list declaration, a route, a migration), not the reverse.',
      from: { path: `${src}${foundations}/`, pathNot: `\\.test\\.ts$|${src}storage/schema\\.ts$` },
      to: { path: `${src}${aboveFoundations}/` },
    },
    {
      name: 'schema-takes-table-types-only',
      severity: 'error',
      comment:
        "The one exception to foundations-below-capabilities: storage/schema.ts composes each capability's own table types into Kysely's one Schema. It takes their *-tables.ts files, type-only, and nothing else.",
      from: { path: `${src}storage/schema\\.ts$` },
      to: {
        path: `${src}${aboveFoundations}/`,
        pathNot: `${src}[a-z]+/[a-z-]+-tables\\.ts$`,
      },
    },
    {
      name: 'schema-table-imports-are-type-only',
      severity: 'error',
      comment: 'storage/schema.ts may name the table types, never run code of a capability.',
      from: { path: `${src}storage/schema\\.ts$` },
      to: { path: `${src}${aboveFoundations}/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'capability-public-face',
      severity: 'error',
      comment:
        "A capability (accounts, identity, records, webhooks, shipping) shows one face: its index.ts. Other folders and the composition files import that file only, so what a capability keeps to itself can change without touching its callers. Files inside a capability import each other directly. Tests may reach in. One exception: the package's `cli` entry (src/cli.ts) names the few light files the command line needs, since a face loads its whole capability and that entry exists not to.",
      // $1 is the importing file's folder (or root file): inside its own folder every file is fair game.
      from: { path: '^packages/platform/src/([^/]+)', pathNot: '\\.test\\.ts$|/test-support/|^packages/platform/src/cli\\.ts$' },
      to: {
        path: `${src}(accounts|identity|records|webhooks|shipping)/`,
        pathNot: [
          '^packages/platform/src/$1/',
          `${src}(accounts|identity|records|webhooks|shipping)/index\\.ts$`,
          `${src}[a-z]+/[a-z-]+-tables\\.ts$`,
        ],
      },
    },
    {
      name: 'table-types-stay-home',
      severity: 'error',
      comment:
        "A capability's *-tables.ts (its row types) is read by the capability itself and by storage/schema.ts, which composes them into Kysely's one Schema. Anyone else asks the owner's store, which returns domain types.",
      from: { path: '^packages/platform/src/([^/]+)', pathNot: `\\.test\\.ts$|/test-support/|${src}storage/schema\\.ts$` },
      to: { path: `${src}[a-z]+/[a-z-]+-tables\\.ts$`, pathNot: '^packages/platform/src/$1/' },
    },
    {
      name: 'no-composition-import',
      severity: 'error',
      comment:
        'The files at the root of src/ compose the platform (app, browser-pages, platform, prepare-database, server, workers, testing, test-databases, index); a folder below them imports none of them. Tests may (testing.ts is the test kit).',
      from: { path: `${src}[^/]+/`, pathNot: '\\.test\\.ts$' },
      to: { path: `${src}${rootFiles}` },
    },
  ],
  options: {
    // Count `import type` and type-only re-exports: TypeScript erases them, the reader does not.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.typecheck.json' },
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '(^|/)(node_modules|dist)/' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
    },
  },
};
