import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import type { Language } from '../../core/domain/languages';
import { LANGUAGE_NAMES, LANGUAGES, negotiateLanguage } from '../../core/domain/languages';
import { CATALOGUES, hostLocale, LANGUAGE_COOKIE } from '../../lambdas/pages/messages';
import { formatsFor, sameAsEnglish } from '../../lambdas/pages/messages/format';

describe('the host pages’ language from Accept-Language', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de-DE', 'de'],
    ['fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['en;q=0.5, it;q=0.9', 'it'],
    ['pt-BR, es;q=0.4, de;q=0.3', 'es'],
    ['ja, zh;q=0.9', 'en'],
    ['*', 'en'],
    ['de;q=0, *;q=0.5', 'en'],
    ['en;q=0, *', 'de'],
    ['es;q=0.7, de;q=0.7', 'es'],
    ['IT-it', 'it'],
    ['de;q=2, fr', 'fr'],
    ['de;q=abc, es', 'es'],
    ['x'.repeat(200), 'en'],
  ])('%j → %s', (header, language) => {
    expect(negotiateLanguage(header)).toBe(language);
  });

  it.each(LANGUAGES)('%s is a canonical language tag that Intl formats and names', (language) => {
    expect(Intl.getCanonicalLocales(language)).toEqual([language]);
    expect(Intl.NumberFormat.supportedLocalesOf(language)).toEqual([language]);
    expect(new Intl.DisplayNames([language], { type: 'language' }).of(language)?.toLowerCase()).toBe(
      LANGUAGE_NAMES[language].toLowerCase(),
    );
  });

  it('reads at most 32 ranges of a long header', () => {
    expect(negotiateLanguage(`${'xx, '.repeat(40)}de`)).toBe('en');
  });

  const event = (headers: Record<string, string>, query: Record<string, string[]> = {}) => ({
    headers,
    multiValueQueryStringParameters: query,
    queryStringParameters: Object.fromEntries(
      Object.entries(query).map(([name, [value = '']]) => [name, value]),
    ),
  });

  it('takes the switch (?lang=) first and keeps it in a session cookie, then the cookie, then the header', () => {
    const switched = hostLocale(event({ 'Accept-Language': 'de' }, { lang: ['it'], step: ['faqs'] }), true);
    expect(switched.language).toBe('it');
    expect(switched.cookie).toBe(`${LANGUAGE_COOKIE}=it; HttpOnly; SameSite=Lax; Secure`);
    expect(switched.switchTo('fr')).toBe('?step=faqs&lang=fr');

    const kept = hostLocale(event({ 'Accept-Language': 'de', Cookie: `a=b; ${LANGUAGE_COOKIE}=es` }), false);
    expect(kept.language).toBe('es');
    expect(kept.cookie).toBeUndefined();

    const unknown = hostLocale(
      event({ 'accept-language': 'fr', cookie: `${LANGUAGE_COOKIE}=xx` }, { lang: ['zz'] }),
      false,
    );
    expect(unknown.language).toBe('fr');
    expect(unknown.keeping({ step: 'review' }).switchTo('de')).toBe('?step=review&lang=de');
  });
});

/**
 * The keys whose text in `catalogue` is the English one and not marked as meant (`f.same(…)` in
 * the catalogue: "Wi-Fi", "Check-in"): texts left untranslated.
 */
function untranslated(
  language: Language,
  catalogue: Record<string, unknown>,
  english: Record<string, unknown>,
): string[] {
  const marked = sameAsEnglish(language);
  return Object.keys(english).filter((key) => {
    const value = catalogue[key];
    return typeof value === 'string' && value === english[key] && !marked.has(value);
  });
}

describe('the message catalogues', () => {
  const keys = Object.keys(CATALOGUES.en).sort();

  it.each(LANGUAGES)('%s has every key of the English catalogue, and no other', (language) => {
    expect(Object.keys(CATALOGUES[language]).sort()).toEqual(keys);
  });

  it.each(LANGUAGES.filter((language) => language !== 'en'))(
    '%s translates its texts: none is empty, a key name, or the English text unless marked as meant',
    (language) => {
      const catalogue = CATALOGUES[language] as Record<string, unknown>;
      const english = CATALOGUES.en as Record<string, unknown>;
      for (const key of keys) {
        const value = catalogue[key];
        if (typeof value === 'string') {
          expect(value.trim(), key).not.toBe('');
          expect(value, key).not.toBe(key);
        } else expect(typeof value, key).toBe('function');
      }
      expect(
        untranslated(language, catalogue, english),
        'texts equal to the English ones: translate them, or mark them with f.same(…)',
      ).toEqual([]);
    },
  );

  it.each(LANGUAGES)(
    '%s sends a host with a broken link to the partner for a fresh one, never back to a button that opens it again',
    (language) => {
      // Partners cannot make links (our operators do, on request): their activation button opens
      // the same broken link.
      const text = renderToString(CATALOGUES[language].linkFreshNext('Harbour PMS') as VNode);

      expect(text).toContain('Harbour PMS');
      expect(text.toLowerCase()).not.toMatch(/button|schaltfläche|botón|bouton|pulsante/);
    },
  );

  it('accepts a text equal to the English one only where its catalogue marks it with f.same', () => {
    // Prepare: a catalogue as a translator writes one, with a loanword marked and one left as is
    // (words of this test's own, which no catalogue marks).
    const english = { loanword: 'Zebranet (test)', forgotten: 'Zebrakey (test)' };
    const f = formatsFor('it');

    // Act
    const italian = { loanword: f.same('Zebranet (test)'), forgotten: 'Zebrakey (test)' };

    // Assess
    expect(italian.loanword).toBe('Zebranet (test)');
    expect(untranslated('it', italian, english)).toEqual(['forgotten']);
    expect(untranslated('es', { loanword: 'Zebranet (test)' }, english)).toEqual(['loanword']);
  });

  it('plurals come from each language’s rules, numbers from Intl', () => {
    expect(CATALOGUES.en.knownAnswers(1)).toBe('1 answer');
    expect(CATALOGUES.en.knownAnswers(0)).toBe('0 answers');
    expect(CATALOGUES.fr.knownAnswers(0)).toBe('0 réponse');
    expect(CATALOGUES.fr.knownAnswers(2)).toBe('2 réponses');
    expect(CATALOGUES.de.knownOffers(1)).toBe('1 Angebot');
    expect(CATALOGUES.de.knownOffers(1_200)).toBe('1.200 Angebote');
    expect(
      CATALOGUES.it.knowledgeSummary([CATALOGUES.it.knownCheckin, CATALOGUES.it.knownAnswers(3)], 'Casa'),
    ).toBe('Conosce le istruzioni per il check-in e 3 risposte per Casa.');
    expect(formatsFor('es').price(1_250, 'EUR')).toBe('12,50\u00a0€');
    expect(formatsFor('en').price(1_250, 'GBP')).toBe('£12.50');
  });

  it('says what a too long field is, in the language’s own numbers', () => {
    expect(CATALOGUES.en.overlongField('answer', 420_000, 2_000)).toBe(
      'An answer has 420,000 characters; it takes at most 2,000.',
    );
    expect(CATALOGUES.de.overlongField('answer', 420_000, 2_000)).toBe(
      'Eine Antwort hat 420.000 Zeichen; erlaubt sind höchstens 2.000.',
    );
  });

  it('dates are labelled UTC in every language', () => {
    for (const language of LANGUAGES)
      expect(formatsFor(language).dateTime(Date.UTC(2026, 10, 22, 10, 5))).toMatch(/10:05.*UTC/);
  });
});

describe('Italian before a partner’s name', () => {
  /** Every Italian message that takes the partner's name, as text, for this name. */
  const partnerMessages = (name: string) =>
    Object.entries(CATALOGUES.it)
      .filter(
        ([key, message]) =>
          typeof message === 'function' &&
          /partner/i.test(String(message).split('=>')[0] ?? '') &&
          key !== 'overlongField',
      )
      .map(
        ([key, message]) => [key, asText((message as (partner: string) => string | VNode)(name))] as const,
      );
  const asText = (message: string | VNode) =>
    typeof message === 'string' ? message : renderToString(message);

  it('writes "ad" before a name that starts with a vowel, and "a" before any other', () => {
    const vowel = partnerMessages('Acme PMS');
    const consonant = partnerMessages('Demo PMS');

    expect(vowel.length).toBeGreaterThan(5);
    for (const [key, text] of vowel) {
      expect(text, key).not.toMatch(/\ba (<strong>)?Acme\b/);
    }
    expect(asText(CATALOGUES.it.closeTab('Acme PMS'))).toContain('tornare ad Acme PMS');
    expect(asText(CATALOGUES.it.closeTab('Demo PMS'))).toContain('tornare a Demo PMS');
    expect(asText(CATALOGUES.it.closeTab('Échange PMS'))).toContain('ad Échange PMS');
    for (const [key, text] of consonant) expect(text, key).not.toMatch(/\bad Demo\b/);
  });
});
