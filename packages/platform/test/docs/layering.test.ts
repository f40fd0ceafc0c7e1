import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What dependency-cruiser cannot see, because it is in a file's text rather than its imports: the layering
// rules of docs/architecture.md that concern SQL. Import rules are checked by `npm run check:circles`.

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support') sources(path, found);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const files = sources(src).map((path) => ({ path: relative(src, path), text: readFileSync(path, 'utf8') }));

describe('layering in the text of the code', () => {
  it('only storage/ names a dialect: everywhere else a store asks the dialect adapter what the database can do', () => {
    const naming = files
      .filter((file) => !file.path.startsWith('storage/'))
      // The test databases open each database the tests run on, by its name: support for tests, not a store.
      .filter((file) => file.path !== 'test-databases.ts')
      .filter((file) => /\.dialect\s*[!=]==|[!=]==\s*'(postgres|sqlite)'/.test(file.text))
      .map((file) => file.path);
    expect(naming).toEqual([]);
  });

  it("the faces (admin, console, demo) query no table: they call the owning capability's store", () => {
    const querying = files
      .filter((file) => /^(admin|console|demo)\//.test(file.path))
      .filter((file) => /\.(selectFrom|insertInto|updateTable|deleteFrom)\(/.test(file.text))
      .map((file) => file.path);
    expect(querying).toEqual([]);
  });
});
