import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (WCAG 2.1 A/AA rules) on the page as it is now and returns the
 * serious and critical violations. The script is evaluated through the
 * debugging protocol, which the pages' CSP (no inline script) does not block.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Every violation, of any impact, on the page as it is now (same rules as {@link seriousAxeViolations}). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // A page keeps axe until it navigates: evaluated again only where it is missing.
  if (await page.evaluate(`typeof axe === 'undefined'`)) await page.evaluate(`${axeSource};0`);
  // resultTypes: only violations are gathered in full (axe's documented way to spend less on passes it would list).
  const violations = (await page.evaluate(`(async () => {
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  })()`)) as AxeViolation[];
  return violations;
}
