import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A route plugin is a route table: each route one line (or one call) naming its options and its handler, and
// each handler a named function of its own (docs/architecture.md, "Routes"). A plugin grown past a screen is
// the closure it was meant to stop being, so the longest function that registers a route is bounded.

const MAX_LINES = 80;

/**
 * Plugins still longer than the bound, each with the length it had when the bound came: none is left (D133,
 * D158). Should a plugin ever be let in over the bound, its entry may only shrink and goes when its plugin is
 * cut down (the third test fails while a listed plugin is already within the bound).
 */
const NOT_YET_CUT: Record<string, number> = {};

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all']);

function sources(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support') sources(path, found);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** `x.get('/path', …)` (any HTTP verb, the path a literal or a template) or `x.route({ … })`: Fastify's ways to add a route. */
function registersRoute(call: ts.CallExpression): boolean {
  if (!ts.isPropertyAccessExpression(call.expression)) return false;
  const verb = call.expression.name.text;
  const [first] = call.arguments;
  if (!first) return false;
  if (verb === 'route') return ts.isObjectLiteralExpression(first);
  if (!METHODS.has(verb)) return false;
  return (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first)) && /^['"`](\/|\$\{)/.test(first.getText());
}

type FunctionNode = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)
  );
}

function nameOf(fn: FunctionNode): string {
  if (fn.name) return fn.name.getText();
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return `(anonymous at line ${fn.getSourceFile().getLineAndCharacterOfPosition(fn.getStart()).line + 1})`;
}

/** Every function that registers a route itself (a call in a function nested in it counts for the nested one), with its length in lines. */
function routeRegisteringFunctions(): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const path of sources(src)) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, enclosing: FunctionNode | undefined): void => {
      const fn = isFunction(node) ? node : enclosing;
      if (fn && ts.isCallExpression(node) && registersRoute(node)) {
        const first = file.getLineAndCharacterOfPosition(fn.getStart()).line;
        const last = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
        lengths.set(`${relative(src, path)} ${nameOf(fn)}`, last - first + 1);
      }
      node.forEachChild((child) => visit(child, fn));
    };
    visit(file, undefined);
  }
  return lengths;
}

describe('route plugins are route tables over named handlers', () => {
  const lengths = routeRegisteringFunctions();

  it('finds the route plugins it bounds (a change of how routes are written must not leave it measuring nothing)', () => {
    for (const plugin of ['shipping/shipping-routes.ts shippingRoutes', 'admin/seller-routes.ts sellerRoutes']) {
      expect(lengths.has(plugin), plugin).toBe(true);
    }
  });

  it(`no function that registers a route is longer than ${MAX_LINES} lines`, () => {
    const over = [...lengths]
      .filter(([name, lines]) => lines > MAX_LINES && !(name in NOT_YET_CUT && lines <= (NOT_YET_CUT[name] ?? 0)))
      .map(([name, lines]) => `${name}: ${lines} lines`);
    expect(over).toEqual([]);
  });

  it('the plugins not yet cut down are listed while, and only while, they are over the bound', () => {
    const stale = Object.keys(NOT_YET_CUT).filter((name) => (lengths.get(name) ?? 0) <= MAX_LINES);
    expect(stale).toEqual([]);
  });
});
