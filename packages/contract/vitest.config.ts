import { defineConfig } from 'vitest/config';

// `npx vitest run` inside packages/contract runs this package's tests alone (the
// root config runs them with every other package's).
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
});
