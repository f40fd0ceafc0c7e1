import { SCOPES, type Scope } from '@feira/contract';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { scopeKey } from '../identity/page-views.js';
import { CATALOGUES, LOCALES, translator } from './i18n.js';

/** Argument names a message uses, plural branches included. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date) into.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      into.add(element.value);
      for (const option of Object.values(element.options)) argumentsOf(option.value, into);
    }
    if (element.type === TYPE.tag) argumentsOf(element.children, into);
  }
  return into;
}

describe('message catalogues', () => {
  const keys = LOCALES.map((locale) => Object.keys(CATALOGUES[locale]).sort());

  it('no untranslated string: every key of every catalogue exists in every other one', () => {
    for (const [i, locale] of LOCALES.entries()) {
      for (const [j, other] of LOCALES.entries()) {
        const missing = (keys[i] ?? []).filter((key) => !(keys[j] ?? []).includes(key));
        expect(missing, `keys of ${locale} missing in ${other}`).toEqual([]);
      }
    }
  });

  it('every message parses as ICU MessageFormat and uses the same arguments in every language', () => {
    for (const key of Object.keys(CATALOGUES.en) as Array<keyof typeof CATALOGUES.en>) {
      const expected = [...argumentsOf(parse(CATALOGUES.en[key]))].sort();
      for (const locale of LOCALES) {
        const message = CATALOGUES[locale][key];
        expect(message.trim(), `${locale} ${key} is empty`).not.toBe('');
        expect([...argumentsOf(parse(message))].sort(), `${locale} ${key}`).toEqual(expected);
      }
    }
  });

  it('every scope of the contract is described in every language (the consent page lists them)', () => {
    for (const scope of Object.keys(SCOPES) as Scope[]) {
      for (const locale of LOCALES) expect(CATALOGUES[locale][scopeKey(scope)], `${locale} ${scope}`).toBeTruthy();
    }
  });

  it('money is BRL by locale (R$ 1.234,56 in pt-BR), numbers and plurals too', () => {
    const pt = translator('pt-BR');
    const en = translator('en');
    expect(pt.money(123456).replace(/\s/g, ' ')).toBe('R$ 1.234,56');
    expect(en.money(123456)).toBe('R$1,234.56');
    expect(pt.number(1234.5)).toBe('1.234,5');
    expect(pt.text('login.error.throttled', { seconds: 1 })).toContain('1 segundo.');
    expect(en.text('login.error.throttled', { seconds: 30 })).toContain('30 seconds.');
  });

  it('values are escaped in HTML, raw HTML values are not, and <b> becomes <strong>', () => {
    const en = translator('en');
    expect(en.html('login.wants', { client: '<img src=x onerror=alert(1)>' })).toBe(
      '<strong>&#60;img src=x onerror=alert(1)&#62;</strong> wants to connect to your seller account.',
    );
    expect(en.html('consent.for', { client: 'A&B', where: { html: '<em>x</em>' } })).toBe(
      'For <em>x</em>, <strong>A&#38;B</strong> will be able to:',
    );
  });
});
