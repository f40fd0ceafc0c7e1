// Counts the work one request makes the platform do: statements sent to the database (better-sqlite3
// statement runs, pg client queries, BEGIN and COMMIT included), WebCrypto signatures and verifications
// (jose signs and verifies through crypto.subtle), HMACs and hashes (node:crypto), JSON.parse and
// JSON.stringify calls, and the Fastify hooks of the route that served it. Counts, not timings: a busy
// host cannot move them, and a change that adds a round trip or a verification moves them by one.
//
// It wraps the libraries' own entry points for the duration of a measurement and reads the route's hook
// lists from find-my-way's match (the route context Fastify stores there), without changing the app.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { DefaultQueryCompiler } from 'kysely';

const require = createRequire(import.meta.url);

export interface WorkCount {
  /** Statements sent to the database, BEGIN and COMMIT included. */
  databaseStatements: number;
  /** crypto.subtle.verify calls (JWT signature checks). */
  signatureVerifications: number;
  /** crypto.subtle.sign calls (JWTs signed). */
  signatures: number;
  /** createHmac calls (cursor tokens signed or checked, webhook signatures). */
  hmacs: number;
  /** createHash calls (code and secret hashes, cursor bindings). */
  hashes: number;
  jsonParses: number;
  jsonStringifies: number;
  /**
   * Nodes of the query trees Kysely compiled to SQL: a statement built with the query builder on every
   * request counts its whole tree each time; one compiled once (CompiledOnce, StatementsAround) counts none,
   * or only the caller's starting query.
   */
  queryNodesCompiled: number;
}

/** Operation nodes in a Kysely query tree: each is a frozen object with a `kind`. */
function countNodes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countNodes(item), 0);
  if (value === null || typeof value !== 'object' || typeof (value as { kind?: unknown }).kind !== 'string') return 0;
  return Object.values(value).reduce((sum: number, child) => sum + countNodes(child), 1);
}

/** The Fastify hooks of the route a request matched, by lifecycle stage, as function names. */
export type RouteHooks = Record<string, string[]>;

const LIFECYCLE = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'] as const;

type Wrapped = { restore(): void };

function wrapMethod<T extends object>(target: T, name: keyof T & string, count: () => void): Wrapped {
  const original = target[name] as unknown as (...args: unknown[]) => unknown;
  const wrapper = function (this: unknown, ...args: unknown[]) {
    count();
    return original.apply(this, args);
  };
  Object.defineProperty(target, name, { value: wrapper, configurable: true, writable: true });
  return {
    restore() {
      Object.defineProperty(target, name, { value: original, configurable: true, writable: true });
    },
  };
}

function statementPrototype(): object {
  const BetterSqlite = require('better-sqlite3') as new (
    file: string,
  ) => {
    prepare(sql: string): object;
    close(): void;
  };
  const probe = new BetterSqlite(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as object;
  probe.close();
  return prototype;
}

/** The work of `run()`, counted while it runs; the route hooks are those of the last request matched. */
export async function countWork<T>(run: () => Promise<T>): Promise<{ result: T; work: WorkCount; hooks: RouteHooks }> {
  const work: WorkCount = {
    databaseStatements: 0,
    signatureVerifications: 0,
    signatures: 0,
    hmacs: 0,
    hashes: 0,
    jsonParses: 0,
    jsonStringifies: 0,
    queryNodesCompiled: 0,
  };
  let lastRoute: Record<string, unknown> | null = null;
  const wrapped: Wrapped[] = [];
  const statement = statementPrototype();
  for (const method of ['all', 'get', 'run', 'iterate'] as const) {
    wrapped.push(wrapMethod(statement as Record<string, unknown>, method, () => work.databaseStatements++));
  }
  const pg = require('pg') as { Client: { prototype: Record<string, unknown> } };
  const compiler = DefaultQueryCompiler.prototype as unknown as Record<string, (node: unknown, ...rest: unknown[]) => unknown>;
  const compileQuery = compiler.compileQuery as (node: unknown, ...rest: unknown[]) => unknown;
  Object.defineProperty(compiler, 'compileQuery', {
    configurable: true,
    writable: true,
    value: function (this: unknown, node: unknown, ...rest: unknown[]) {
      work.queryNodesCompiled += countNodes(node);
      return compileQuery.call(this, node, ...rest);
    },
  });
  wrapped.push({
    restore: () => Object.defineProperty(compiler, 'compileQuery', { value: compileQuery, configurable: true, writable: true }),
  });
  wrapped.push(wrapMethod(pg.Client.prototype, 'query', () => work.databaseStatements++));
  const subtle = Object.getPrototypeOf(globalThis.crypto.subtle) as Record<string, unknown>;
  wrapped.push(wrapMethod(subtle, 'verify', () => work.signatureVerifications++));
  wrapped.push(wrapMethod(subtle, 'sign', () => work.signatures++));
  const crypto = require('node:crypto') as Record<string, unknown>;
  wrapped.push(wrapMethod(crypto, 'createHmac', () => work.hmacs++));
  wrapped.push(wrapMethod(crypto, 'createHash', () => work.hashes++));
  wrapped.push(wrapMethod(JSON as unknown as Record<string, unknown>, 'parse', () => work.jsonParses++));
  wrapped.push(wrapMethod(JSON as unknown as Record<string, unknown>, 'stringify', () => work.jsonStringifies++));
  const Router = require('find-my-way') as { prototype: Record<string, unknown> };
  const find = Router.prototype.find as (...args: unknown[]) => { store?: Record<string, unknown> } | null;
  Object.defineProperty(Router.prototype, 'find', {
    configurable: true,
    writable: true,
    value: function (this: unknown, ...args: unknown[]) {
      const match = find.apply(this, args);
      if (match?.store) lastRoute = match.store;
      return match;
    },
  });
  wrapped.push({
    restore: () => Object.defineProperty(Router.prototype, 'find', { value: find, configurable: true, writable: true }),
  });
  // ES module imports of node:crypto (`import { createHmac } from 'node:crypto'`) see the wrappers only after this.
  syncBuiltinESMExports();
  try {
    const result = await run();
    const hooks: RouteHooks = {};
    for (const stage of LIFECYCLE) {
      const list = (lastRoute as Record<string, unknown> | null)?.[stage];
      hooks[stage] = Array.isArray(list) ? list.map((fn: { name?: string }) => fn.name || '(anonymous)') : [];
    }
    return { result, work, hooks };
  } finally {
    for (const w of wrapped.reverse()) w.restore();
    syncBuiltinESMExports();
  }
}

/** One request through `app.inject`, counted. */
export function countRequest(
  app: FastifyInstance,
  request: InjectOptions,
): Promise<{ result: LightMyRequestResponse; work: WorkCount; hooks: RouteHooks }> {
  return countWork(() => app.inject(request));
}

/** How many hooks run, all stages together. */
export function hookCount(hooks: RouteHooks): number {
  return Object.values(hooks).reduce((sum, list) => sum + list.length, 0);
}
