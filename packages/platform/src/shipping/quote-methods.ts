import type { QuotePackage } from '@feira/contract';
import type { MethodAnswer, MethodInput, QuoteMethod, QuoteMethodRegistry, QuoteMethodServices } from './methods/index.js';

/** spec-notes Q8: a failed call of a method that may be backed up; a business error is the seller's answer and stands. */
export function isBackedUp(methods: QuoteMethodRegistry, answer: MethodAnswer): boolean {
  return (
    answer.kind === 'call_failed' &&
    methods.get(answer.method).backedUp &&
    ['timeout', 'http_error', 'invalid_response'].includes(answer.call.outcome)
  );
}

/** Runs one configured method: its module's `answer` (methods/). */
export function answerOf(
  services: QuoteMethodServices & { quoteMethods: QuoteMethodRegistry },
  method: QuoteMethod,
  input: MethodInput,
): Promise<MethodAnswer> {
  return services.quoteMethods.get(method).answer(services, input);
}

/** `sku:quantity` pairs of a package, sorted: two packages hold the same items when their keys are equal. */
function itemsKey(items: QuotePackage['items']): string {
  return items
    .map((item) => `${item.sku}\u0000${item.quantity}`)
    .sort()
    .join('\u0001');
}

/**
 * spec-notes Q8: the options of every method that answered, merged before Q5.
 * Packages are matched by their items; the split of the first method (in the
 * store's order) that gave options decides the packages, and a method that split
 * the cart otherwise adds nothing. Within a package an option id already
 * offered by an earlier method is left out (the shopper chooses by id).
 */
export function mergeAnswers(answers: readonly MethodAnswer[]): QuotePackage[] | undefined {
  const withOptions = answers.filter((answer) => answer.kind === 'options');
  const base = withOptions[0];
  if (!base) return undefined;
  const packages = base.packages.map((pkg) => ({ items: pkg.items, delivery_options: [...pkg.delivery_options] }));
  const byItems = new Map(packages.map((pkg) => [itemsKey(pkg.items), pkg]));
  for (const answer of withOptions.slice(1)) {
    const targets = answer.packages.map((pkg) => byItems.get(itemsKey(pkg.items)));
    if (targets.some((target) => target === undefined)) continue;
    answer.packages.forEach((pkg, i) => {
      const target = targets[i] as (typeof packages)[number];
      for (const option of pkg.delivery_options) {
        if (!target.delivery_options.some((existing) => existing.id === option.id)) target.delivery_options.push(option);
      }
    });
  }
  return packages;
}
