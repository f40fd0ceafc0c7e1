/**
 * Import rules checked by `npm run check:circles` (CI runs it): no circle
 * between files of packages/*\/src, type-only imports included (a circle of
 * types still couples the files: neither can be read, moved or tested alone).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files import each other, directly or through others: break the circle (docs/architecture.md, "Import rules").',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'no-app-import',
      severity: 'error',
      comment: 'app.ts builds the HTTP app; only the composition root (platform.ts) and the package index import it.',
      from: { path: '^packages/platform/src/', pathNot: '^packages/platform/src/(platform|index)\\.ts$|\\.test\\.ts$' },
      to: { path: '^packages/platform/src/app\\.ts$' },
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
