import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { resolveStartSettings, settingAt, settingFromEnv } from '../config/start-config.js';

// `feira backup <folder>` and `feira restore <folder>` (docs/deploy.md "Backup
// and restore"): a SQLite platform's database, its quote log's file and the
// data folder's secrets, copied while it runs, and put back. Without the
// secret key a copy's signing keys and webhook secrets cannot be opened, so
// the key goes with it (the folder is 0700, its files 0600: protect it as the
// key itself). PostgreSQL is backed up with pg_dump.

/** The data folder's secrets a restored platform needs: the server key (sealed values) and the admin token. */
const SECRETS = ['secret-key', 'admin-token'] as const;

class BackupError extends Error {}

interface Flags {
  database?: string;
  dataDir?: string;
}

function sqliteFileOf(flags: Flags): { file: string; dataDir: string } {
  const settings = resolveStartSettings(
    { ...(flags.database && { database: flags.database }), ...(flags.dataDir && { dataDir: flags.dataDir }) },
    process.env,
  );
  if (!settings.databaseUrl.startsWith('sqlite:') || settings.databaseUrl === 'sqlite::memory:') {
    throw new BackupError(
      'this copies a SQLite database file; back up PostgreSQL with pg_dump and pg_restore (docs/deploy.md "Backup and restore")',
    );
  }
  return { file: settings.databaseUrl.slice('sqlite:'.length), dataDir: settings.dataDir };
}

function copySecret(from: string, to: string): void {
  copyFileSync(from, to);
  chmodSync(to, 0o600);
}

async function backup(folder: string, flags: Flags): Promise<string[]> {
  const { backupSqliteFile, quoteLogFileOf } = await import('@feira/platform');
  const { file, dataDir } = sqliteFileOf(flags);
  if (!existsSync(file)) throw new BackupError(`no database at ${file}`);
  if (existsSync(folder) && readdirSync(folder).length > 0) throw new BackupError(`${folder} is not empty: name a new folder`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const written: string[] = [];
  for (const source of [file, quoteLogFileOf(file)]) {
    if (!existsSync(source)) continue;
    const copy = join(folder, basename(source));
    await backupSqliteFile(source, copy);
    chmodSync(copy, 0o600);
    written.push(copy);
  }
  for (const name of SECRETS) {
    if (!existsSync(join(dataDir, name))) continue;
    copySecret(join(dataDir, name), join(folder, name));
    written.push(join(folder, name));
  }
  if (settingFromEnv('platform.secretKey')) {
    console.error('feira backup: the secret key came from FEIRA_SECRET_KEY, not the data folder: keep it with this backup');
  }
  return written;
}

async function restore(folder: string, flags: Flags): Promise<string[]> {
  const { quoteLogFileOf } = await import('@feira/platform');
  const { file, dataDir } = sqliteFileOf(flags);
  const saved = join(folder, basename(file));
  if (!existsSync(saved)) throw new BackupError(`${folder} holds no ${basename(file)}`);
  if (existsSync(file))
    throw new BackupError(`${file} exists: stop the platform and move it away first (a restore never overwrites)`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const name of SECRETS) {
    const kept = join(dataDir, name);
    const backed = join(folder, name);
    if (existsSync(kept) && existsSync(backed) && readFileSync(kept, 'utf8') !== readFileSync(backed, 'utf8')) {
      throw new BackupError(
        `${kept} differs from the backup's: move it away first (the backup's sealed values need the backup's key)`,
      );
    }
  }
  const written: string[] = [];
  for (const [from, to] of [
    [saved, file],
    [join(folder, basename(quoteLogFileOf(file))), quoteLogFileOf(file)],
  ] as const) {
    if (!existsSync(from)) continue;
    copySecret(from, to);
    written.push(to);
  }
  for (const name of SECRETS) {
    if (!existsSync(join(folder, name)) || existsSync(join(dataDir, name))) continue;
    copySecret(join(folder, name), join(dataDir, name));
    written.push(join(dataDir, name));
  }
  return written;
}

function withDatabaseOptions(command: Command): Command {
  return command
    .option(
      settingAt('database').schema.flag as string,
      `database URL (env ${settingAt('database').schema.env}; default: the data folder's SQLite file)`,
    )
    .option(
      settingAt('dataDir').schema.flag as string,
      `data folder (env ${settingAt('dataDir').schema.env}; default ${settingAt('dataDir').schema.default})`,
    );
}

function action(name: string, run: (folder: string, flags: Flags) => Promise<string[]>) {
  return async (folder: string, flags: Flags) => {
    try {
      for (const path of await run(folder, flags)) console.log(path);
    } catch (error) {
      if (!(error instanceof BackupError || error instanceof ConfigError)) throw error;
      console.error(`feira ${name}: ${error.message}`);
      process.exitCode = 1;
    }
  };
}

export function register(program: Command): void {
  withDatabaseOptions(
    program
      .command('backup')
      .description(
        "Copy a SQLite platform's database (while it runs), its quote log and the data folder's secrets into a new folder",
      )
      .argument('<folder>', 'where the copy goes (new or empty; made 0700)'),
  ).action(action('backup', backup));
  withDatabaseOptions(
    program
      .command('restore')
      .description('Put a `feira backup` folder back: the database where none is, the secrets into the data folder')
      .argument('<folder>', 'a folder `feira backup` wrote'),
  ).action(action('restore', restore));
}
