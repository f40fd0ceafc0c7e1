// The four recipes of docs/architecture.md, as a contributor follows them for
// something Feira itself ships: each step is one file, created or changed at a
// line that says where the new entry goes. check-recipes.ts applies them to a
// copy of the tree. A step's `documented` is the path as the doc's numbered
// list writes it; a step without one is the second file of the numbered item
// before it ("messages-en.ts and messages-pt-br.ts").

export interface RecipeStep {
  file: string;
  documented?: string;
  /** The file's text after the step (before: undefined for a file the step creates). */
  change?(before: string | undefined): string;
  /** Or the command that writes the file again from what the steps before changed (a generated file). */
  regenerate?: string[];
}

export interface Recipe {
  heading: string;
  steps: RecipeStep[];
}

function create(text: string): (before: string | undefined) => string {
  return (before) => {
    if (before !== undefined) throw new Error('the recipe creates a file that exists');
    return text;
  };
}

/** Puts `text` after the line holding `anchor` (the one place the new entry belongs). */
function after(anchor: string, text: string): (before: string | undefined) => string {
  return (before) => {
    const at = before?.indexOf(anchor) ?? -1;
    if (before === undefined || at < 0) throw new Error(`the recipe looks for ${JSON.stringify(anchor)} and finds nothing`);
    const lineEnd = before.indexOf('\n', at) + 1;
    return before.slice(0, lineEnd) + text + before.slice(lineEnd);
  };
}

function replace(from: string, to: string): (before: string | undefined) => string {
  return (before) => {
    if (!before?.includes(from)) throw new Error(`the recipe looks for ${JSON.stringify(from)} and finds nothing`);
    return before.replace(from, to);
  };
}

function steps(...changes: Array<(before: string | undefined) => string>): (before: string | undefined) => string {
  return (before) => changes.reduce<string | undefined>((text, change) => change(text), before) as string;
}

const RETURN_KIND = `import { RETURN_REASONS, Return, ReturnInput, ReturnPatch, type Return as ReturnRecord } from '@feira/contract';
import { defineListResource } from '../../lists/list-resource.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../record-kind.js';

declare module '../record-tables.js' {
  interface RecordTables {
    returns: { id: string; tenant_id: string; order_id: string; reason: string; created_at: string; updated_at: string };
  }
}

type ReturnRow = RowOf<'returns'>;

function presentReturn(row: ReturnRow): ReturnRecord {
  return {
    id: row.id,
    order_id: row.order_id,
    reason: row.reason as ReturnRecord['reason'],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Goods a shopper sent back (topic \`return\`). */
export const returnKind: RecordKind<'returns', ReturnRecord, ReturnInput, ReturnPatch> = {
  table: 'returns',
  topic: 'return',
  scope: 'open:return:read',
  readPath: '/seller/v1/returns',
  label: 'Return',
  labelKey: { en: 'Returns', 'pt-BR': 'Devoluções' },
  fieldLabels: { reason: { en: 'Reason', 'pt-BR': 'Motivo' } },
  openApiTag: 'Returns (scope \`open:return:read\`)',
  demoCount: 30,
  schemas: { record: Return, input: ReturnInput, patch: ReturnPatch },
  list: defineListResource<ReturnRow, ReturnRecord>({
    name: 'returns',
    fields: {
      ...COMMON_LIST_FIELDS,
      order_id: { column: 'order_id', type: 'id' },
      reason: { column: 'reason', type: 'enum', values: RETURN_REASONS },
    },
    sorts: ['created_at', 'updated_at'],
    defaultSort: [{ field: 'created_at', direction: 'desc' }],
    present: presentReturn,
  }),
  present: presentReturn,
  create: (input) => ({ order_id: input.order_id, reason: input.reason }),
  patch: (_current, patch) => ({
    ...(patch.order_id !== undefined && { order_id: patch.order_id }),
    ...(patch.reason !== undefined && { reason: patch.reason }),
  }),
  seed: {
    columns: ['order_id', 'reason'],
    fill(v, at, _i, { pick, seededId }) {
      v[at] = seededId('orders');
      v[at + 1] = pick(RETURN_REASONS);
    },
  },
  trigger: { create: (tag) => ({ order_id: \`order-\${tag}\`, reason: 'regret' }), update: { reason: 'damaged' } },
  storage: {
    columns: { order_id: { type: 'text' }, reason: { type: 'text' } },
    listIndexes: [[], ['created_at'], ['updated_at']],
  },
};
`;

const RETURN_SCHEMAS = `
export const RETURN_REASONS = ['damaged', 'wrong_item', 'regret'] as const;
export const Return = Type.Object({
  id: timestamps.id,
  order_id: Type.String({ minLength: 1, maxLength: 100 }),
  reason: literalUnion(RETURN_REASONS),
  created_at: timestamps.created_at,
  updated_at: timestamps.updated_at,
});
export type Return = Static<typeof Return>;
export const ReturnInput = Type.Object(
  { order_id: Type.String({ minLength: 1, maxLength: 100 }), reason: literalUnion(RETURN_REASONS) },
  { additionalProperties: false },
);
export type ReturnInput = Static<typeof ReturnInput>;
export const ReturnPatch = Type.Partial(ReturnInput, { additionalProperties: false, minProperties: 1 });
export type ReturnPatch = Static<typeof ReturnPatch>;
`;

const FLAT_RATE_METHOD = `import type { QuoteMethodModule } from './quote-method.js';

/** The shopper collects the order at the store: free, ready in a day, priced without calling anyone. */
export const storePickupMethod: QuoteMethodModule<Record<never, never>> = {
  name: 'store_pickup',
  description: 'the shopper collects the order at the store',
  labelKey: 'shipping.method.store_pickup',
  settingsFields: {},
  backedUp: false,
  answer: async (_services, input) => ({
    method: 'store_pickup',
    kind: 'options',
    packages: [
      {
        items: input.request.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
        delivery_options: [{ id: 'pickup', name: 'Store pickup', price: 0, delivery_days: 1, type: 'Normal', source: 'store_pickup' }],
      },
    ],
  }),
};
`;

const NOTEPAD_SECTION = `import { hiddenFields } from '../http/html-page.js';
import type { ConsoleSection } from './console-section.js';

/** A store's notes: one note, kept in memory. */
export function notesSection(): ConsoleSection {
  const notes = new Map<string, string>();
  return {
    name: 'notes',
    nav: { slug: 'notes', label: 'notes.title' },
    async routes(app, kit) {
      app.get<{ Params: { store: string } }>('/console/stores/:store/notes', async (request, reply) => {
        const owned = await kit.storeOf(request, reply, request.params.store);
        if (!owned) return reply;
        const t = kit.translator(request);
        return kit.page(request, reply, t, owned.seller, {
          title: t.text('notes.title'),
          body: \`\${kit.storeNav(t, owned.store.id, 'notes')}
<h1>\${t.html('notes.title')}</h1>
<p id="note">\${notes.has(owned.store.id) ? t.html('notes.note', { note: notes.get(owned.store.id) ?? '' }) : t.html('notes.empty')}</p>
<form method="post">\${hiddenFields({ csrf: kit.csrfToken(request, reply) })}
<label for="text">\${t.html('notes.title')}</label><textarea id="text" name="text"></textarea>
<button type="submit">\${t.html('notes.save')}</button></form>\`,
        });
      });
      app.post<{ Params: { store: string }; Body: Record<string, unknown> }>('/console/stores/:store/notes', async (request, reply) => {
        const owned = await kit.storeOf(request, reply, request.params.store);
        if (!owned) return reply;
        if (!kit.csrfValid(request, request.body?.csrf)) return reply.code(403).send();
        if (typeof request.body?.text === 'string') notes.set(owned.store.id, request.body.text);
        return kit.seeOther(reply, \`/console/stores/\${owned.store.id}/notes\`);
      });
    },
  };
}
`;

const TOPICS_COMMAND = `import { TOPIC_NAMES, TOPICS } from '@feira/contract';
import type { Command } from 'commander';

// \`feira topics\`: the webhook topics and the scope that reads each.

export function register(program: Command): void {
  program
    .command('topics')
    .description('List the webhook topics and the scope each needs')
    .action(() => {
      for (const topic of TOPIC_NAMES) console.log(\`\${topic}\\t\${TOPICS[topic].scope}\`);
    });
}
`;

const TOPICS_TEST = `import { TOPIC_NAMES } from '@feira/contract';
import { describe, expect, it, vi } from 'vitest';
import { createProgram } from '../program.js';

describe('feira topics', () => {
  it('prints every topic with its scope, one a line', async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      await createProgram().parseAsync(['node', 'feira', 'topics']);
    } finally {
      log.mockRestore();
    }
    expect(lines.map((line) => line.split('\\t')[0])).toEqual(TOPIC_NAMES);
  });
});
`;

const MESSAGES = 'packages/platform/src/i18n/messages-en.ts';
const POSTMAN: RecipeStep = {
  file: 'packages/platform/postman/feira.postman_collection.json',
  documented: 'packages/platform/postman/feira.postman_collection.json',
  regenerate: [
    'env',
    'FEIRA_WRITE_POSTMAN=1',
    'npx',
    'vitest',
    'run',
    'packages/platform/test/openapi/postman-collection.test.ts',
  ],
};
const MESSAGES_PT = 'packages/platform/src/i18n/messages-pt-br.ts';

export const RECIPES: Recipe[] = [
  {
    heading: '### Add a kind of record',
    steps: [
      {
        file: 'packages/contract/src/records.ts',
        documented: 'packages/contract/src/records.ts',
        change: (before) => `${before}${RETURN_SCHEMAS}`,
      },
      {
        file: 'packages/contract/src/scopes.ts',
        documented: 'packages/contract/src/scopes.ts',
        change: steps(
          after("'open:financial-transaction:read': {", "  'open:return:read': { description: 'Read your returns' },\n"),
          after(
            "financial_transaction: { scope: 'open:financial-transaction:read' },",
            "  return: { scope: 'open:return:read' },\n",
          ),
        ),
      },
      {
        file: 'packages/platform/src/records/kinds/returns.ts',
        documented: 'packages/platform/src/records/kinds/<kind>.ts',
        change: create(RETURN_KIND),
      },
      {
        file: 'packages/platform/src/records/record-kinds.ts',
        documented: 'packages/platform/src/records/record-kinds.ts',
        change: steps(
          after("import { productKind } from './kinds/products.js';", "import { returnKind } from './kinds/returns.js';\n"),
          replace('ticketKind, transactionKind] as const', 'ticketKind, transactionKind, returnKind] as const'),
        ),
      },
      {
        file: MESSAGES,
        documented: MESSAGES,
        change: after("'scope.open:financial-transaction:read'", "  'scope.open:return:read': 'Read your returns',\n"),
      },
      {
        file: MESSAGES_PT,
        change: after("'scope.open:financial-transaction:read'", "  'scope.open:return:read': 'Ver suas devoluções',\n"),
      },
      {
        file: 'packages/sdk/src/api/record-paths.ts',
        documented: 'packages/sdk/src/api/record-paths.ts',
        change: steps(
          replace(
            'import type { Order, Product, Ticket, Transaction }',
            'import type { Order, Product, Return, Ticket, Transaction }',
          ),
          after("  transactions: '/seller/v1/financial-analysis/transactions',", "  returns: '/seller/v1/returns',\n"),
          after("  '/seller/v1/financial-analysis/transactions': Transaction;", "  '/seller/v1/returns': Return;\n"),
        ),
      },
      POSTMAN,
    ],
  },
  {
    heading: '### Add a quote method',
    steps: [
      {
        file: 'packages/platform/src/shipping/methods/store-pickup.ts',
        documented: 'packages/platform/src/shipping/methods/<name>.ts',
        change: create(FLAT_RATE_METHOD),
      },
      {
        file: 'packages/platform/src/shipping/methods/index.ts',
        documented: 'packages/platform/src/shipping/methods/index.ts',
        change: steps(
          after(
            "import { freightTableMethod } from './freight-table.js';",
            "import { storePickupMethod } from './store-pickup.js';\n",
          ),
          replace(
            'marketplaceDeliveryMethod, gatewayMethod] as const',
            'marketplaceDeliveryMethod, gatewayMethod, storePickupMethod] as const',
          ),
        ),
      },
      {
        file: MESSAGES,
        documented: MESSAGES,
        change: after("'shipping.method.gateway'", "  'shipping.method.store_pickup': 'Store pickup',\n"),
      },
      {
        file: MESSAGES_PT,
        change: after("'shipping.method.gateway'", "  'shipping.method.store_pickup': 'Retirada na loja',\n"),
      },
      POSTMAN,
    ],
  },
  {
    heading: '### Add a console page',
    steps: [
      {
        file: 'packages/platform/src/console/notes-console.ts',
        documented: 'packages/platform/src/console/<name>-console.ts',
        change: create(NOTEPAD_SECTION),
      },
      {
        file: 'packages/platform/src/console/console-sections.ts',
        documented: 'packages/platform/src/console/console-sections.ts',
        change: steps(
          after("import { homeSection } from './console-home.js';", "import { notesSection } from './notes-console.js';\n"),
          after('  recordsSection,', '  notesSection(),\n'),
        ),
      },
      {
        file: MESSAGES,
        documented: MESSAGES,
        change: after(
          "'records.kinds'",
          "  'notes.title': 'Notes',\n  'notes.empty': 'Nothing written yet.',\n  'notes.note': 'Note: {note}',\n  'notes.save': 'Save the note',\n",
        ),
      },
      {
        file: MESSAGES_PT,
        change: after(
          "'records.kinds'",
          "  'notes.title': 'Anotações',\n  'notes.empty': 'Nada escrito ainda.',\n  'notes.note': 'Nota: {note}',\n  'notes.save': 'Salvar a nota',\n",
        ),
      },
    ],
  },
  {
    heading: '### Add a `feira` command',
    steps: [
      {
        file: 'packages/cli/src/commands/topics.ts',
        documented: 'packages/cli/src/commands/<name>.ts',
        change: create(TOPICS_COMMAND),
      },
      {
        file: 'packages/cli/src/commands/index.ts',
        documented: 'packages/cli/src/commands/index.ts',
        change: steps(
          after("import { register as start } from './start.js';", "import { register as topics } from './topics.js';\n"),
          replace('  start,\n  trigger,', '  start,\n  topics,\n  trigger,'),
        ),
      },
      {
        file: 'packages/cli/src/commands/topics.test.ts',
        documented: 'packages/cli/src/commands/<name>.test.ts',
        change: create(TOPICS_TEST),
      },
      {
        file: 'docs/cli.md',
        documented: 'docs/cli.md',
        change: after('| `feira token` |', '| `feira topics` | The webhook topics, each with the scope that reads it |\n'),
      },
    ],
  },
];
