import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  bearerToken,
  type LogFormat,
  type LogLevel,
  type PlatformSettings,
  type ProcessSettings,
  parseTrustedProxies,
  SETTING_LEAVES,
  type SettingAnnotation,
  type SettingCommand,
  type SettingLeaf,
  type SettingReader,
} from '@feira/platform/cli';
import { Option } from 'commander';
import { ConfigError } from './config-error.js';

export { LOG_LEVELS, type LogFormat, type LogLevel } from '@feira/platform/cli';

/**
 * The settings of `feira start` and `feira dispatch`, read from flags and `FEIRA_*` environment variables here
 * and nowhere else, against the one settings schema (`SETTINGS` of @feira/platform: each setting's flag,
 * variable, default and bounds). Precedence: flag, then environment, then default. `platform` is what
 * `createPlatform` is configured with, handed over whole.
 */
export type StartSettings = Omit<ProcessSettings, 'database' | 'http' | 'logLevel' | 'logFormat' | 'outboundCa'> & {
  /** `sqlite:<path>` or `postgres://…`. */
  databaseUrl: string;
  /** Absolute path of the data folder (admin token, secret key, demo credentials, the default SQLite file). */
  dataDir: string;
  /**
   * Serve HTTPS with a certificate of the data folder's local CA: sandbox mode unless `--http` (FEIRA_HTTP=1).
   * Strict mode serves plain HTTP, TLS ending at the reverse proxy in front (docs/deploy.md).
   */
  https: boolean;
  /** Default `warn` in sandbox mode (a readable banner), `info` in strict. */
  logLevel: LogLevel;
  /** Default pretty on a terminal, else json. */
  logFormat: LogFormat;
  /** The PEM the `--outbound-ca` file holds. */
  outboundCa: string | undefined;
  platform: PlatformSettings;
};

/** Raw flag values as commander hands them over: strings, `true` for a switch, undefined when absent. */
export type StartFlags = { readonly [attribute: string]: string | boolean | string[] | undefined };

/** A setting's flag without its argument (`--port`). */
function flagName(setting: SettingAnnotation): string | undefined {
  return setting.flag?.split(' ')[0];
}

/** The settings a command takes, in the schema's order. */
export function settingsOf(command: SettingCommand): SettingLeaf[] {
  return SETTING_LEAVES.filter((leaf) => leaf.schema.commands.includes(command));
}

/** The setting at the end of `path` (`'platform.trustProxy'`). */
export function settingAt(path: string): SettingLeaf {
  const leaf = SETTING_LEAVES.find((candidate) => candidate.path.join('.') === path);
  if (!leaf) throw new Error(`no setting ${path}`);
  return leaf;
}

/** The shown default: as the help says it. */
function shownDefault(setting: SettingAnnotation & { default?: unknown }): string {
  return setting.shown ?? String(setting.default);
}

/** The commander option of a setting: its flag, its help with its variable and default. */
export function settingOption(leaf: SettingLeaf): Option {
  const setting = leaf.schema;
  if (!setting.flag) throw new Error(`${leaf.path.join('.')} has no flag`);
  return new Option(
    setting.flag,
    `${setting.help} (${setting.env ? `env ${setting.env}; ` : ''}default ${shownDefault(setting)})`,
  );
}

/** A Markdown table cell: code marks around flags and names, pipes escaped. */
function cell(text: string, code = false): string {
  const escaped = text.replaceAll('|', '\\|');
  return code ? `\`${escaped}\`` : escaped;
}

/**
 * The options table of docs/sandbox.md, generated from the settings schema so the
 * documentation, `--help` and the code cannot disagree (start-config.test.ts
 * compares; FEIRA_WRITE_DOCS=1 rewrites it).
 */
export function startOptionsTable(): string {
  const rows = settingsOf('start').map(
    ({ schema: setting }) =>
      `| ${[
        setting.flag ? cell(setting.flag, true) : '—',
        setting.env ? cell(setting.env, true) : '—',
        cell(shownDefault(setting)),
        cell(setting.help.charAt(0).toUpperCase() + setting.help.slice(1)),
      ].join(' | ')} |`,
  );
  return ['| Flag | Environment | Default | Meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Where a setting's text came from: the flag or the variable the refusal names. */
interface Given {
  text: string | boolean | string[];
  name: string;
}

/** The text a setting was given, flag first, then environment (empty counts as unset); undefined: its default. */
function givenOf(leaf: SettingLeaf, flags: StartFlags, env: Record<string, string | undefined>): Given | undefined {
  const setting = leaf.schema;
  const flag = flagName(setting);
  if (setting.flag) {
    const value = flags[new Option(setting.flag).attributeName()];
    if (value !== undefined) return { text: value, name: flag as string };
  }
  const value = setting.env ? env[setting.env] : undefined;
  if (value !== undefined && value !== '') return { text: value, name: setting.env as string };
  return undefined;
}

/** The text a setting was given, for a reader outside this file (`--workers`, read before the rest). */
export function settingText(path: string, flags: StartFlags, env: Record<string, string | undefined>): string | undefined {
  const given = givenOf(settingAt(path), flags, env);
  return given === undefined ? undefined : String(given.text);
}

/**
 * The value a setting's environment variable holds (empty counts as unset), for the commands that reach a running
 * sandbox with the same admin token, data folder or secret as `feira start` was given.
 */
export function settingFromEnv(path: string, env: Record<string, string | undefined> = process.env): string | undefined {
  const name = settingAt(path).schema.env;
  const value = name ? env[name] : undefined;
  return value === '' ? undefined : value;
}

const MIN_SECRET_LENGTH = 16;

interface ReadContext {
  cwd: string;
  mode: 'sandbox' | 'strict';
}

/** A setting's text read as its reader says; the refusal names the flag or variable and never repeats a secret. */
const READERS: Record<SettingReader, (text: string, name: string, context: ReadContext) => unknown> = {
  database: (text, name) => {
    if (/^postgres(ql)?:\/\/.+/.test(text) || /^sqlite:.+/.test(text)) return text;
    throw new ConfigError(`${name} must be sqlite:<path> or a postgres:// URL`);
  },
  publicUrl: (text, name) => {
    if (!URL.canParse(text)) throw new ConfigError(`${name} must be an absolute http(s) URL (got "${text}")`);
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https`);
    if (url.search || url.hash) throw new ConfigError(`${name} must not carry a query or fragment`);
    return text.replace(/\/+$/, '');
  },
  // A gateway's base URL: absolute, no query or fragment, https in strict mode.
  gatewayUrl: (text, name, { mode }) => {
    if (!URL.canParse(text)) throw new ConfigError(`${name} must be an absolute http(s) URL (got "${text}")`);
    const url = new URL(text);
    if (url.protocol !== 'https:' && (mode === 'strict' || url.protocol !== 'http:'))
      throw new ConfigError(`${name} must use https${mode === 'sandbox' ? ' (or http in the sandbox)' : ''}`);
    if (url.search || url.hash || url.username)
      throw new ConfigError(`${name} must not carry credentials, a query or a fragment`);
    return text.replace(/\/+$/, '');
  },
  secret: (text, name) => readSecret(name, text),
  /**
   * A secret sent as `Authorization: Bearer <token>` (the admin and metrics tokens): also refused unless the
   * platform's one bearer parser reads it back whole (RFC 6750 token68), since a token with a space, `!` or `:`
   * could be set but never presented, locking its holder out.
   */
  bearerSecret: (text, name) => {
    const secret = readSecret(name, text);
    if (bearerToken(`Bearer ${secret}`) !== secret)
      throw new ConfigError(
        `${name} may hold only letters, digits and - . _ ~ + / (then = at the end): it is sent as "Authorization: Bearer <token>"`,
      );
    return secret;
  },
  // A comma-separated list, each as long as a secret must be.
  secretList: (text, name) =>
    text
      .split(',')
      .map((secret) => secret.trim())
      .filter((secret) => secret !== '')
      .map((secret, i) => readSecret(`${name} (secret ${i + 1})`, secret)),
  proxies: (text, name) => {
    try {
      return parseTrustedProxies(text);
    } catch (error) {
      throw new ConfigError(`${name}: ${(error as Error).message}`);
    }
  },
  // An e-mail address sent in a header: one address, printable ASCII, no parentheses or spaces.
  email: (text, name) => {
    if (text.length > 254 || !/^[^\s@()<>",;]+@[^\s@()<>",;]+\.[^\s@()<>",;]+$/.test(text) || !/^[\x21-\x7e]+$/.test(text))
      throw new ConfigError(`${name} must be one e-mail address, e.g. ops@example.com (got "${text}")`);
    return text;
  },
  pemFile: (text, name, { cwd }) => {
    let pem: string;
    try {
      pem = readFileSync(resolve(cwd, text), 'utf8');
    } catch {
      throw new ConfigError(`${name}: cannot read ${text}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`${name}: ${text} holds no PEM certificate`);
    return pem;
  },
  // A switch given by environment: 1/true on, 0/false off.
  switch: (text, name) => {
    if (text === '0' || text === 'false') return false;
    if (text === '1' || text === 'true') return true;
    throw new ConfigError(`${name} must be 1 or 0 (got "${text}")`);
  },
};

function readSecret(name: string, text: string): string {
  if (text.length < MIN_SECRET_LENGTH) throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  return text;
}

/** A setting's value from what it was given, checked against its schema: type, bounds, pattern, allowed values. */
function settingValue(leaf: SettingLeaf, given: Given, context: ReadContext): unknown {
  const schema = leaf.schema as SettingLeaf['schema'] & {
    type?: string;
    minimum?: number;
    maximum?: number;
    pattern?: string;
    anyOf?: Array<{ const: string }>;
  };
  // A switch given by flag (commander's `--http`, `--no-dispatcher`) is its value already.
  if (typeof given.text === 'boolean') return given.text;
  const text = String(given.text);
  const got = schema.secret ? '' : ` (got "${text}")`;
  if (schema.reader) return READERS[schema.reader](text, given.name, context);
  if (schema.type === 'integer') {
    const { minimum = 0, maximum = Number.MAX_SAFE_INTEGER } = schema;
    if (!/^\d{1,15}$/.test(text) || Number(text) < minimum || Number(text) > maximum) {
      const what = schema.unit === 'seconds' ? 'a whole number of seconds' : 'an integer';
      throw new ConfigError(`${given.name} must be ${what} from ${minimum} to ${maximum}${got}`);
    }
    return Number(text);
  }
  if (schema.anyOf) {
    const allowed = schema.anyOf.map((option) => option.const);
    if (!allowed.includes(text)) throw new ConfigError(`${given.name} must be one of ${allowed.join(', ')}${got}`);
    return text;
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(text))
    throw new ConfigError(`${given.name} must be ${schema.expected ?? `like ${schema.pattern}`}${got}`);
  return text;
}

/** Puts a value at its path, making the groups on the way; an absent value is left out. */
function place(into: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = into;
  for (const key of path.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  if (value !== undefined) at[path[path.length - 1] as string] = value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Resolves and validates the start settings, each against its row of the schema. `cwd` anchors relative paths.
 * Throws ConfigError (exit code 2) with a message naming the flag or variable given and its bounds; the
 * message never repeats a secret value.
 */
export function resolveStartSettings(
  flags: StartFlags,
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
  stderrIsTty: boolean = process.stderr.isTTY === true,
): Readonly<StartSettings> {
  const modeLeaf = settingAt('platform.mode');
  const modeGiven = givenOf(modeLeaf, flags, env);
  const mode = (modeGiven ? settingValue(modeLeaf, modeGiven, { cwd, mode: 'sandbox' }) : modeLeaf.schema.default) as
    | 'sandbox'
    | 'strict';
  const context: ReadContext = { cwd, mode };
  const read: Record<string, unknown> = {};
  for (const leaf of SETTING_LEAVES) {
    const given = givenOf(leaf, flags, env);
    const fallback = (leaf.schema as { default?: unknown }).default;
    place(read, leaf.path, given ? settingValue(leaf, given, context) : Array.isArray(fallback) ? [...fallback] : fallback);
  }
  const { database, http, logLevel, logFormat, platform, ...own } = read as ProcessSettings & {
    platform: PlatformSettings;
  };
  const dataDir = isAbsolute(own.dataDir) ? own.dataDir : resolve(cwd, own.dataDir);
  let databaseUrl = database ?? `sqlite:${join(dataDir, 'feira.db')}`;
  if (databaseUrl.startsWith('sqlite:')) {
    // A relative SQLite path is relative to where the command runs, like the data folder.
    const file = databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !isAbsolute(file)) databaseUrl = `sqlite:${resolve(cwd, file)}`;
  }
  if (platform.signingKeys.publishDelaySeconds < platform.signingKeys.refreshSeconds)
    throw new ConfigError(
      '--key-publish-delay-s must be at least --key-refresh-s: every process must load a key before it signs',
    );
  const https = mode === 'sandbox' && !http;
  // The URL clients are given must say what is served: an http:// one in front of HTTPS sends every
  // printed command, link and discovery document to a port that answers only TLS.
  const publicUrlGiven = givenOf(settingAt('platform.publicUrl'), flags, env);
  if (https && publicUrlGiven && platform.publicUrl?.startsWith('http:'))
    throw new ConfigError(
      `${publicUrlGiven.name} is an http:// URL, but the sandbox serves HTTPS unless told --http: give --http (or FEIRA_HTTP=1) to serve plain HTTP, or an https:// URL`,
    );
  return deepFreeze({
    ...own,
    dataDir,
    databaseUrl,
    https,
    // Sandbox mode logs requests only when they go wrong, so the banner stays readable.
    logLevel: logLevel ?? (mode === 'sandbox' ? 'warn' : 'info'),
    logFormat: logFormat ?? (stderrIsTty ? 'pretty' : 'json'),
    outboundCa: own.outboundCa,
    platform,
  });
}
