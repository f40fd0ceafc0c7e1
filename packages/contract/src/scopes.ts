/**
 * The scope catalogue (spec-notes I11): one table, used by the identity
 * provider (consent screen, validation), the record APIs (guards) and the SDK.
 */
export const SCOPES = {
  'open:portfolio:read': { description: 'Read your products (portfolio)' },
  'open:order-order:read': { description: 'Read your orders' },
  'open:ticket:read': { description: 'Read your customer-service tickets' },
  'open:financial-transaction:read': { description: 'Read your financial transactions' },
  'open:webhook:write': { description: 'Subscribe to notifications about your records (webhooks)' },
} as const;

export type Scope = keyof typeof SCOPES;

export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** Splits an OAuth `scope` string (RFC 6749 §3.3: space-delimited) into unique entries. */
export function parseScopeString(scope: string | undefined): string[] {
  if (!scope) return [];
  return [...new Set(scope.split(' ').filter((s) => s.length > 0))];
}

/** Webhook topics (spec-notes W7) and the read scope that lets a subscriber read each topic's records. */
export const TOPICS = {
  sac_ticket: { scope: 'open:ticket:read' },
  order: { scope: 'open:order-order:read' },
  product: { scope: 'open:portfolio:read' },
  financial_transaction: { scope: 'open:financial-transaction:read' },
} as const satisfies Record<string, { scope: Scope }>;

export type Topic = keyof typeof TOPICS;

export const TOPIC_NAMES = Object.keys(TOPICS) as Topic[];

export function isTopic(value: string): value is Topic {
  return Object.hasOwn(TOPICS, value);
}
