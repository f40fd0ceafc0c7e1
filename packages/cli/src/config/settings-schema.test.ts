import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLATFORM_SETTINGS, platformConfig, SETTING_LEAVES } from '@feira/platform';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

/** Every source file (tests left out) under a package's src/. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const SCHEMA_FLAGS = new Set(SETTING_LEAVES.flatMap((leaf) => (leaf.schema.flag ? [leaf.schema.flag.split(' ')[0]] : [])));
const SCHEMA_VARIABLES = new Set(SETTING_LEAVES.flatMap((leaf) => (leaf.schema.env ? [leaf.schema.env] : [])));

/**
 * Variables read that are not settings of the server, each with why: what the commands that reach a running
 * sandbox are given (their own options), the cluster's word to its workers, and the test kit's.
 */
const NOT_SETTINGS: Record<string, string> = {
  FEIRA_URL: 'feira login/listen/trigger…: the address of the sandbox to reach',
  FEIRA_ACCESS_TOKEN: 'feira listen: a seller access token',
  FEIRA_LISTEN_TLS_CERT: "feira listen: its local receiver's certificate",
  FEIRA_LISTEN_TLS_KEY: "feira listen: its local receiver's key",
  FEIRA_CLIENT_SECRET: 'feira login: the client secret of an app',
  FEIRA_CLUSTER_WORKER: 'set by the feira start --workers primary on the workers it forks; no operator sets it',
  FEIRA_CHROMIUM_PATH: 'the test kit: the browser the page tests drive',
  FEIRA_TEST_DATABASE_URL: 'the test kit: the PostgreSQL server the tests use',
};

/** `env.FEIRA_X`, `env['FEIRA_X']`, or a `'FEIRA_X'` string handed to an env lookup: each variable a source reads, with where. */
function variablesRead(): Array<{ name: string; file: string }> {
  const read = /env(?:\.|\[\s*['"`])(FEIRA_[A-Z0-9_]+)|['"`](FEIRA_[A-Z0-9_]+)['"`]/g;
  return ['cli', 'platform'].flatMap((pkg) =>
    sources(join(PACKAGES, pkg, 'src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(read)].map((match) => ({
        name: (match[1] ?? match[2]) as string,
        file: file.slice(PACKAGES.length),
      })),
    ),
  );
}

describe('one settings schema: each setting declared once, with its flag, variable, default and bounds', () => {
  it('every option of feira start and feira dispatch is a setting of the schema (dispatch --redeliver is an action)', () => {
    const program = createProgram();
    for (const name of ['start', 'dispatch']) {
      const command = program.commands.find((c) => c.name() === name);
      const flags = (command?.options ?? []).map((option) => option.long as string);
      expect(flags.length).toBeGreaterThan(0);
      const outside = flags.filter((flag) => !SCHEMA_FLAGS.has(flag) && !(name === 'dispatch' && flag === '--redeliver'));
      expect(outside, `options of feira ${name} declared outside the schema`).toEqual([]);
    }
  });

  it('every FEIRA_* variable the platform and the CLI read is a setting of the schema, read through it, or a named non-setting', () => {
    const reads = variablesRead();
    expect(reads.length).toBeGreaterThan(0);
    // A setting's variable spelled out in code is a copy of its declaration: it is read through the schema.
    const copies = reads.filter(({ name, file }) => SCHEMA_VARIABLES.has(name) && !file.endsWith('core/settings.ts'));
    expect(copies, 'setting variables read by name outside the schema').toEqual([]);
    const undeclared = reads.filter(({ name }) => !SCHEMA_VARIABLES.has(name) && !(name in NOT_SETTINGS));
    expect(undeclared, 'variables declared outside the schema').toEqual([]);
  });

  it('every setting has its help, commands, and a bound or an allowed value list wherever it is a number or a choice', () => {
    for (const { path, schema } of SETTING_LEAVES) {
      expect(schema.help, path.join('.')).toMatch(/\w/);
      expect(schema.commands.length, path.join('.')).toBeGreaterThan(0);
      expect(schema.flag ?? schema.env, `${path.join('.')} is given somehow`).toBeDefined();
      const typed = schema as { type?: string; minimum?: number; maximum?: number };
      if (typed.type === 'integer') expect([typed.minimum, typed.maximum], path.join('.')).not.toContain(undefined);
    }
    // No flag or variable names two settings.
    const flags = SETTING_LEAVES.flatMap((leaf) => (leaf.schema.flag ? [leaf.schema.flag] : []));
    const variables = SETTING_LEAVES.flatMap((leaf) => (leaf.schema.env ? [leaf.schema.env] : []));
    expect(new Set(flags).size).toBe(flags.length);
    expect(new Set(variables).size).toBe(variables.length);
  });

  it('every key of the platform config an operator sets is a setting of the schema: PlatformConfig is derived from it', () => {
    const config = platformConfig({ mode: 'sandbox', publicUrl: 'http://x', adminToken: 'a', secretKey: 's' });
    const derived = [
      'authUrl',
      'publicUrl',
      'adminToken',
      'secretKey',
      'accessTokenTtlSeconds',
      'refreshTokenTtlSeconds',
      'bodyLimitBytes',
    ];
    expect(Object.keys(config).filter((key) => !(key in PLATFORM_SETTINGS.properties) && !derived.includes(key))).toEqual([]);
  });
});
