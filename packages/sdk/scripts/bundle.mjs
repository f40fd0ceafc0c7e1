// Builds the publishable @feira/sdk into dist/bundle (D53): the SDK and the parts
// of @feira/contract it uses in one ES module and one CommonJS file (esbuild),
// and one declaration file with the contract's types inlined (rollup-plugin-dts).
// @feira/contract is not published; @sinclair/typebox, node: built-ins stay imports.
// Run after `tsc -b` (the declarations are bundled from dist/index.d.ts).
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const sdk = here('../');
const target = here('../dist/bundle/');
// Written beside the target, then moved in file by file (each rename is atomic): a process that
// imports the SDK while a test packs it (the CLI's tests run beside it) never sees a missing file.
const out = here(`../dist/bundle-${process.pid}/`);
const contractSource = here('../../contract/src/index.ts');

/** Stays an import of the published package: typebox (a real dependency) and Node's built-ins. */
const external = (id) => id === '@sinclair/typebox' || id.startsWith('@sinclair/typebox/') || id.startsWith('node:');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await mkdir(target, { recursive: true });

const common = {
  absWorkingDir: sdk,
  entryPoints: ['src/index.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20.18',
  // The contract from its sources, so the bundle does not depend on a stale dist/.
  alias: { '@feira/contract': contractSource },
  external: ['@sinclair/typebox', '@sinclair/typebox/*'],
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};
await build({ ...common, format: 'esm', outfile: `${out}index.js` });
await build({ ...common, format: 'cjs', outfile: `${out}index.cjs` });

const contractTypes = here('../../contract/dist/index.d.ts');
const types = await rollup({
  input: here('../dist/index.d.ts'),
  external,
  plugins: [
    // The contract's declarations (its tsc output, built by `tsc -b` before this) are inlined.
    { name: 'feira-contract', resolveId: (id) => (id === '@feira/contract' ? contractTypes : null) },
    dts({ respectExternal: true }),
  ],
  onwarn(warning) {
    // An import left unresolved would ship as an import of an unpublished package.
    throw new Error(`bundling the SDK's declarations: ${warning.message}`);
  },
});
await types.write({ file: `${out}index.d.ts`, format: 'es' });
await types.close();
// The CommonJS entry's declarations: the same text, read by TypeScript as CommonJS.
await copyFile(`${out}index.d.ts`, `${out}index.d.cts`);

const built = await readdir(out);
for (const file of built) await rename(`${out}${file}`, `${target}${file}`);
for (const stale of await readdir(target)) if (!built.includes(stale)) await rm(`${target}${stale}`);
await rm(out, { recursive: true, force: true });
