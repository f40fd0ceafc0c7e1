#!/usr/bin/env node
// The `feira` command as npm links it. This file is committed (not built), so
// the link exists even on the first `npm install` of a fresh clone, where npm
// links bins before the workspace's `prepare` script has compiled dist/.
// It only loads the compiled entry point.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('feira: the CLI is not built yet; run `npm run build` in the repository root\n');
  process.exit(1);
}
await import(entry.href);
