import { describe, expect, it } from 'vitest';
import { isScope, isTopic, parseScopeString, SCOPE_NAMES, SCOPES, TOPIC_NAMES, TOPICS } from './scopes.js';
import { WebhookTopic } from './webhook.js';

describe('scope and topic catalogues (spec-notes I11, W7)', () => {
  it('spec-notes W7: every topic is read with a scope of the catalogue, and no two topics share one', () => {
    for (const topic of TOPIC_NAMES) expect(isScope(TOPICS[topic].scope)).toBe(true);
    expect(new Set(TOPIC_NAMES.map((topic) => TOPICS[topic].scope)).size).toBe(TOPIC_NAMES.length);
    // The spec's four topics lead; a kind the platform ships later adds its own after them.
    expect(TOPIC_NAMES.slice(0, 4)).toEqual(['sac_ticket', 'order', 'product', 'financial_transaction']);
  });

  it('the signup schema accepts exactly the catalogue topics', () => {
    expect(WebhookTopic.anyOf.map((literal: { const: string }) => literal.const)).toEqual(TOPIC_NAMES);
  });

  it('isScope and isTopic accept catalogue names only (not inherited object keys)', () => {
    for (const scope of SCOPE_NAMES) expect(isScope(scope)).toBe(true);
    expect(SCOPE_NAMES).toHaveLength(Object.keys(SCOPES).length);
    for (const name of ['toString', '__proto__', 'open:portfolio:write', '']) {
      expect(isScope(name)).toBe(false);
      expect(isTopic(name)).toBe(false);
    }
  });

  it('RFC 6749 §3.3: a scope string is split on spaces, empty entries and duplicates dropped, order kept', () => {
    expect(parseScopeString('open:ticket:read  open:portfolio:read open:ticket:read')).toEqual([
      'open:ticket:read',
      'open:portfolio:read',
    ]);
    expect(parseScopeString(undefined)).toEqual([]);
    expect(parseScopeString('')).toEqual([]);
  });
});
