import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayName } from '../../cli/inputs';
import { propertySummarySchema } from '../../core/contract/api-schemas';
import { checkPlatformEvent } from '../../core/contract/platform-events';
import { activationClaimProblems, newNonce } from '../../core/domain/activation-token';
import { isMultiLineText, isOneLine, quoted } from '../../core/domain/text';
import { parseStep } from '../support/wizard';

/** Every code point text fields refuse, by the rule in docs/design/README.md (Text fields). */
function refused(codePoint: number): boolean {
  return (
    codePoint <= 0x1f ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    codePoint === 0x2028 ||
    codePoint === 0x2029 ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    // A surrogate met alone: [...text] yields a well-formed pair as one code point above U+FFFF.
    (codePoint >= 0xd800 && codePoint <= 0xdfff)
  );
}

const C1 = ['\u0085', '\u009b', '\u0080', '\u009f'];
const SEPARATORS = ['\u2028', '\u2029'];
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];

describe('one-line text', () => {
  it.each(
    [...C1, ...SEPARATORS, ...BIDI, '\u0000', '\t', '\n', '\u007f'].map((character) => [
      (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0'),
      character,
    ]),
  )('refuses U+%s anywhere in a name', (_codePoint, character) => {
    const name = `Casa${character}Verde`;

    expect(isOneLine(name)).toBe(false);
    expect(() => displayName('--name', name)).toThrow(/one line/);
    expect(
      parseStep(
        'details',
        new URLSearchParams({ property_name: name, checkin_instructions: 'Keys in the box.' }),
      ).ok,
    ).toBe(false);
    expect(propertySummarySchema.safeParse({ id: 1, name }).success).toBe(false);
    expect(
      activationClaimProblems({
        contact_email: 'host@example.com',
        contact_name: name,
        pms_hotel_id: 'PMS-1',
        requested_product_ids: ['assistant'],
        exp: Math.floor(Date.now() / 1000) + 600,
        nonce: newNonce(),
      }),
    ).toContain('contact_name is not valid');
    expect(quoted(name, 100)).toBe('Casa?Verde');
  });

  it.each([
    ['a high surrogate alone', 'Alpine Hut \ud800 No. 7'],
    ['a low surrogate alone', 'Alpine Hut \udc00'],
    ['a pair the wrong way round', 'Hut \udc00\ud800'],
    ['a high surrogate at the end', 'Hut \ud83c'],
  ])('refuses %s: not a character, and no UTF-8 for it', (_what, name) => {
    expect(isOneLine(name)).toBe(false);
    expect(isMultiLineText(name)).toBe(false);
    expect(checkPlatformEvent('PropertyUpdated', { property_id: 1, version: 1, name }).ok).toBe(false);
    expect(() => displayName('--name', name)).toThrow(/one line/);
  });

  it('keeps right-to-left names, their direction marks, accents, CJK and emoji', () => {
    for (const name of [
      '\u05d1\u05d9\u05ea \u200fים',
      'فندق\u061c البحر',
      'Hôtel Überall',
      '民宿さくら',
      'Casa 🌵 Verde',
      'a\u200eb',
    ])
      expect(isOneLine(name)).toBe(true);
  });

  it('refuses exactly the listed code points (property-based over all of Unicode)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (text) => {
        const expected = ![...text].some((character) => refused(character.codePointAt(0) ?? 0));
        expect(isOneLine(text)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
