// Cost of the duplicate-key check of the JSON body parser (http/json-body-parser.ts):
// JSON.parse alone against JSON.parse + firstDuplicateKey, on an admin order
// body (~1.5 kB) and on a 1 MiB body, alternated three times in one process.
// Run: node --import tsx bench/tools/json-body-parse.ts
import { firstDuplicateKey } from '../../packages/platform/src/http/json-body-parser.js';
import { opsPerSecond } from '../lib/micro-loop.js';

const order = JSON.stringify({
  customer: { id: 'cust-1', name: 'Ana Souza' },
  currency: 'BRL',
  items: Array.from({ length: 12 }, (_, i) => ({ sku: `SKU-${i}`, quantity: i + 1, price: 10.5 + i })),
  shipping: { id: 'exp', name: 'Express', price: 9.9, delivery_days: 2, origin: { distribution_center: { id: 'dc-sp' } } },
});
const large = JSON.stringify({
  rows: Array.from({ length: 9000 }, (_, i) => ({ id: i, name: `row ${i} with some text \\"quoted\\"`, tags: ['a', 'b'] })),
});

for (const [name, text] of [
  ['order body', order],
  ['1 MiB body', large],
] as const) {
  const ratios: number[] = [];
  for (let run = 0; run < 3; run++) {
    const parseOnly = opsPerSecond(() => JSON.parse(text), 300, 1500);
    const parseAndCheck = opsPerSecond(
      () => {
        JSON.parse(text);
        firstDuplicateKey(text);
      },
      300,
      1500,
    );
    ratios.push(parseAndCheck / parseOnly);
    console.log(
      `${name} (${text.length} chars) run ${run + 1}: parse ${parseOnly.toFixed(0)}/s, parse+check ${parseAndCheck.toFixed(0)}/s, ratio ${(parseAndCheck / parseOnly).toFixed(2)}`,
    );
  }
  ratios.sort((a, b) => a - b);
  console.log(`${name}: median throughput ratio (parse+check / parse) ${ratios[1]?.toFixed(2)}`);
}
