import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string, file = 'index.ts') => fileURLToPath(new URL(`./packages/${pkg}/src/${file}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources, so a change needs no rebuild to be tested.
    alias: [
      { find: /^@feira\/contract$/, replacement: src('contract') },
      { find: /^@feira\/platform\/testing$/, replacement: src('platform', 'testing.ts') },
      { find: /^@feira\/platform\/cli$/, replacement: src('platform', 'cli.ts') },
      { find: /^@feira\/platform$/, replacement: src('platform') },
      { find: /^@feira\/sdk$/, replacement: src('sdk') },
    ],
  },
  test: {
    // The interop tests' peers (openid-client, svix, Redocly…) live in peers/, out of the default install (D72).
    globalSetup: ['./peers/install.mjs'],
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs its files one after another in one module graph (Vitest's default gives each file a
    // fresh one). Each file opens its own platform, database schema, servers and browser and closes
    // them, and a file that changes process state (undici's global dispatcher) puts it back; what
    // modules keep between files (compiled schemas, statement texts, caches keyed by a database handle)
    // is the same for every file. So the platform's few hundred modules load once per worker, not once
    // per file, and run warm (docs/decisions.md D161 has the measurement).
    isolate: false,
    // Vitest's default is one file at a time on two cores (cores - 1). Most files wait on
    // real servers, processes, PostgreSQL and Chromium rather than compute, so two at a
    // time keeps both cores busy; each file has a database schema of its own.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
