import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { settingAt, settingFromEnv } from '../config/start-config.js';
import { processIsAlive, readJsonFile } from './private-file.js';
import { readSandboxRecord, SANDBOX_RECORD_FILE, type SandboxRecord } from './sandbox-record.js';
import { trustSandboxCa } from './sandbox-trust.js';

/** A command's way to the sandbox: `--url` and `--data-dir` override what `feira start` recorded. */
export interface SandboxFlags {
  url?: string;
  dataDir?: string;
}

/** What a command needs of the running sandbox. */
export interface Sandbox {
  url: string;
  dataDir: string;
  /** The record `feira start` wrote, when the sandbox was found through it. */
  record: SandboxRecord | undefined;
  /** The admin token: FEIRA_ADMIN_TOKEN, else the data folder's file; undefined when neither exists. */
  adminToken: string | undefined;
  /** The demo seeded into the sandbox, as the data folder keeps it. */
  demo: DemoFile | undefined;
}

interface DemoFile {
  sellerLogin: string;
  sellerPassword: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  tenants: Array<{ id: string; name: string }>;
}

/** No sandbox to talk to; the message says why and what to do. */
export class NoSandboxError extends Error {}

/** The data folder: `--data-dir`, else FEIRA_DATA_DIR, else `./.feira` (as `feira start`). */
export function dataDirOf(flag: string | undefined, env = process.env, cwd = process.cwd()): string {
  const raw = flag ?? settingFromEnv('dataDir', env) ?? (settingAt('dataDir').schema.default as string);
  return isAbsolute(raw) ? raw : resolve(cwd, raw);
}

function readText(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/**
 * Finds the sandbox: `--url` (or FEIRA_URL) if given, else the record the
 * running `feira start` keeps in the data folder. A record whose process is
 * gone (a crash, a kill -9) is stale: no sandbox is running. A sandbox served
 * over HTTPS is trusted through the data folder's local CA from here on.
 */
export function findSandbox(flags: SandboxFlags, env = process.env): Sandbox {
  const dataDir = dataDirOf(flags.dataDir, env);
  const record = readSandboxRecord(dataDir);
  const explicitUrl = flags.url ?? (env.FEIRA_URL || undefined);
  const adminTokenFile = record?.admin_token_file ?? join(dataDir, 'admin-token');
  const adminToken = settingFromEnv('platform.adminToken', env) ?? readText(adminTokenFile);
  const demo = readJsonFile<DemoFile>(join(dataDir, 'demo-credentials.json'));
  if (explicitUrl) {
    const url = explicitUrl.replace(/\/+$/, '');
    // A sandbox of this data folder served over HTTPS: its certificate comes from the folder's CA.
    trustSandboxCa(dataDir, url, undefined);
    return { url, dataDir, record: undefined, adminToken, demo };
  }
  if (!record) {
    throw new NoSandboxError(
      `no sandbox is running: ${join(dataDir, SANDBOX_RECORD_FILE)} does not exist. Start one with \`npx feira start\` (or pass --url, or --data-dir for another data folder)`,
    );
  }
  if (!processIsAlive(record.pid)) {
    throw new NoSandboxError(
      `no sandbox is running: the one recorded in ${join(dataDir, SANDBOX_RECORD_FILE)} (pid ${record.pid}, ${record.url}) has stopped. Start it again with \`npx feira start\``,
    );
  }
  trustSandboxCa(dataDir, record.url, record.local_ca_file);
  return { url: record.url, dataDir, record, adminToken, demo };
}

/** Adds `--url` and `--data-dir` to a command that talks to the sandbox. */
export function sandboxOptions(command: Command): Command {
  return command
    .option('--url <url>', 'sandbox address (env FEIRA_URL; default: the running `feira start`, found in the data folder)')
    .option('--data-dir <path>', 'data folder of the sandbox (env FEIRA_DATA_DIR; default ./.feira)');
}
