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
    // Vitest's default is one file at a time on two cores (cores - 1). Most files wait on
    // real servers, processes, PostgreSQL and Chromium rather than compute, so two at a
    // time keeps both cores busy; each file has a database schema of its own.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
