import type { Scope, Topic } from '@feira/contract';
import type { TSchema } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { PlatformError } from '../core/platform-error.js';
import type { Random } from '../core/random.js';
import type { LocalizedText, MessageKey } from '../i18n/i18n.js';
import type { ListField, ListResource } from '../lists/list-resource.js';
import type { RecordTables } from './record-tables.js';

/** The tables that hold a kind of business record (every one has id, tenant_id, created_at, updated_at). */
export type RecordTable = Exclude<keyof RecordTables, 'outbox_events'>;

/** A stored row of a record table (of any of them, for a union of tables). */
export type RowOf<T extends RecordTable> = T extends RecordTable ? Selectable<RecordTables[T]> : never;

/** The columns every record table has, written by the generic writer and the seeder, never by a kind. */
export type RecordKeyColumn = 'id' | 'tenant_id' | 'created_at' | 'updated_at';

/** What a kind fills in when it creates a row: everything but the key columns. */
export type RecordFields<T extends RecordTable> = T extends RecordTable ? Omit<RowOf<T>, RecordKeyColumn> : never;

/** The columns of a table a kind writes itself. */
type KindColumn<T extends RecordTable> = T extends RecordTable ? Exclude<keyof RowOf<T>, RecordKeyColumn> & string : never;

/**
 * What a kind's seed-row generator may draw on (records/seed-records.ts): one
 * fast generator for every choice, the run tag that keeps unique values unique
 * when a tenant is seeded twice, and ids of kinds seeded before this one.
 */
export interface SeedRowContext {
  /** A uniform draw in [0, 1) from the seeder's fast generator. */
  next(): number;
  /** One of `values`, drawn with `next`. */
  pick<V>(values: readonly V[]): V;
  /** Six hex digits, different at every seeding run. */
  run: string;
  /** An id of a row of `table` seeded earlier in this run (among its first 10,000), or null if none was. */
  seededId(table: RecordTable): string | null;
}

/**
 * A kind's seed-row generator. The seeder writes `id`, `tenant_id`,
 * `created_at` and `updated_at`; `fill` writes row `i`'s other values at
 * `values[at …]`, in `columns` order, as the flat bound parameters of one
 * multi-row INSERT (no object per row: see seed-records-values.ts).
 */
interface SeedRows<T extends RecordTable> {
  columns: ReadonlyArray<KindColumn<T>>;
  fill(values: unknown[], at: number, i: number, context: SeedRowContext): void;
}

/**
 * One kind of business record: everything the platform needs to store it,
 * serve it, announce its changes and seed it. Routes, lists, webhook topics,
 * `feira trigger` and the seeder all read the kinds in `record-kinds.ts`;
 * the one insert/update/delete that writes the outbox event is in
 * `record-write.ts`. docs/architecture.md has the recipe for a new kind.
 *
 * Functions are declared as methods on purpose: a kind of one table then
 * fits `RecordKind` of the union, so the registry needs no casts.
 */
export interface RecordKind<T extends RecordTable, Rec, Input, Patch> {
  /** Table name; also the admin path segment (`/admin/v1/tenants/:tenant_id/<table>`) and the seed count's key. */
  table: T;
  /**
   * The webhook topic of its changes (spec-notes W7): one of the contract's
   * `TOPICS` for the platform's kinds. The registry in use maps it to `scope`
   * at run time (D92), so signup and deliveries follow the kinds registered.
   */
  topic: Topic | (string & {});
  /** The scope a seller token needs to read it (spec-notes I11). */
  scope: Scope;
  /** Seller read path of its list; `<readPath>/<id>` reads one and is the webhook `data.resource` (spec-notes W7). */
  readPath: string;
  /** Singular name in messages ("Order not found"). */
  label: string;
  /**
   * The console's name for the kind (plural): a key of both catalogues
   * (`records.kind.<table>`), or the name itself in every locale, carried by
   * the kind (D91).
   */
  labelKey: MessageKey | LocalizedText;
  /** Console labels of its list fields that the catalogues lack (`records.field.<name>` wins when present; else the API name). */
  fieldLabels?: Readonly<Record<string, LocalizedText>>;
  /**
   * Its table, declared (D90): a kind that declares it needs no migration file;
   * `createRecordKindTables` creates the table and its list indexes when a
   * registered kind's table is missing. The platform's own kinds leave it out:
   * their tables keep their numbered migrations (0003 and later).
   */
  storage?: T extends RecordTable ? KindStorage<T> : never;
  /** The kind's group in the OpenAPI document (named after the table): what it holds and the scope that reads it. */
  openApiTag: string;
  /** How many rows each demo store gets: enough for every list convention to show (several pages, filters that select). */
  demoCount: number;
  /** The contract's TypeBox schemas: the record as read, the create body, the patch body. */
  schemas: { record: TSchema; input: TSchema; patch: TSchema };
  /** What its lists may filter and sort on (spec-notes L1–L9). */
  list: ListResource<RowOf<T>, Rec>;
  /**
   * What the console's search box finds a record by besides its id, which is
   * always matched whole (D155): list fields whose column leads an index after
   * tenant_id (a list index, a unique set or a migration's), matched whole or,
   * for a `string` field, by its beginning.
   */
  search?: readonly RecordSearchField[];
  /** A stored row as the API returns it. */
  present(row: RowOf<T>): Rec;
  /** The columns of a new record from a validated create body (defaults applied, money in cents). */
  create(input: Input, random: Random): RecordFields<T>;
  /** The columns a validated patch changes. */
  patch(current: RowOf<T>, patch: Patch): Partial<RecordFields<T>>;
  /** The refusal for a write that breaks one of the table's unique constraints (none: the database error stands). */
  uniqueViolation?(): PlatformError;
  /** Generates plausible rows for `feira seed`, the demo and the benchmarks. */
  seed: SeedRows<T>;
  /** Minimal valid bodies `feira trigger` sends to make an event flow (`tag` keeps unique values unique). */
  trigger: { create(tag: string): Input; update: Patch };
}

export type { LocalizedText };

/** A field the console's record search matches (D155): whole (`exact`) or by its beginning (`prefix`, string fields only). */
export interface RecordSearchField {
  /** A public list field (`code`, `customer.id`). */
  field: string;
  match: 'exact' | 'prefix';
}

/** The SQL type of a declared column: text compares byte by byte on both dialects; money in cents is a bigint. */
export type KindColumnType = 'text' | 'integer' | 'bigint' | 'double precision';

/**
 * A kind's table as data: its own columns (the key columns id, tenant_id,
 * created_at and updated_at are added), the list indexes, one per allowed sort
 * (each becomes `(tenant_id, …columns, id)`; `[]` is the sort on id alone), and
 * unique column sets (each led by tenant_id).
 */
export interface KindStorage<T extends RecordTable> {
  columns: { readonly [C in KindColumn<T>]: { type: KindColumnType; nullable?: boolean } };
  listIndexes: ReadonlyArray<ReadonlyArray<KindColumn<T> | 'created_at' | 'updated_at'>>;
  unique?: ReadonlyArray<ReadonlyArray<KindColumn<T>>>;
}

/** List fields every record kind has. */
export const COMMON_LIST_FIELDS = {
  id: { column: 'id', type: 'id' },
  created_at: { column: 'created_at', type: 'datetime' },
  updated_at: { column: 'updated_at', type: 'datetime' },
} as const satisfies Record<string, ListField>;

/** The read path of one record: the webhook `data.resource` (spec-notes W7). */
export function recordPath(kind: { readPath: string }, id: string): string {
  return `${kind.readPath}/${id}`;
}

/** The list of any record kind, for code that runs every kind's list alike (the list engine is generic over rows). */
export type AnyRecordList = ListResource<RowOf<RecordTable>, unknown>;
