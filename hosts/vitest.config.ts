import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string, file = 'index.ts') => fileURLToPath(new URL(`../packages/${pkg}/src/${file}`, import.meta.url));

// `npm run test:hosts`: the multi-host tests alone (root; minutes long, so out of `npm test`).
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@feira\/contract$/, replacement: src('contract') },
      { find: /^@feira\/platform\/testing$/, replacement: src('platform', 'testing.ts') },
      { find: /^@feira\/platform$/, replacement: src('platform') },
      { find: /^@feira\/sdk$/, replacement: src('sdk') },
    ],
  },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['hosts/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 400_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
