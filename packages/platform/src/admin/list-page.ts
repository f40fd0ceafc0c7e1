import { invalidParameter } from '../core/platform-error.js';
import type { PageRequest } from './seller-repository.js';

// A plain `_limit`/`_offset` page for the admin lists, following the list
// conventions of the spec (List operations) and SPEC-DECISIONS L1/L2. The
// shared list engine (src/lists/) replaces this once it lands.

export const ADMIN_DEFAULT_LIMIT = 20;
export const ADMIN_MAX_LIMIT = 100;

function nonNegativeInteger(value: string | undefined, field: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min)
    throw invalidParameter(field, 'query', min === 1 ? 'must be an integer ≥ 1' : 'must be an integer ≥ 0');
  return Number(value);
}

/** L1: `_limit` < 1 or not an integer → 422; above max_limit → clamped. L2: `_offset` defaults to 0. */
export function parsePageQuery(query: { _limit?: string; _offset?: string }): PageRequest {
  const limit = Math.min(nonNegativeInteger(query._limit, '_limit', 1) ?? ADMIN_DEFAULT_LIMIT, ADMIN_MAX_LIMIT);
  const offset = nonNegativeInteger(query._offset, '_offset', 0) ?? 0;
  return { limit, offset };
}

/** The spec's list envelope: `meta.page`, `meta.links`, `meta.total` (L5), `results`. */
export function pageEnvelope<T>(baseUrl: string, page: PageRequest, total: number, results: T[]) {
  const link = (offset: number) => `${baseUrl}?_limit=${page.limit}&_offset=${offset}`;
  return {
    meta: {
      page: { limit: page.limit, offset: page.offset, count: results.length, max_limit: ADMIN_MAX_LIMIT },
      links: {
        previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
        self: link(page.offset),
        next: page.offset + results.length < total ? link(page.offset + page.limit) : null,
      },
      total,
    },
    results,
  };
}
