import { describe, expect, it } from 'vitest';
import { readPrice } from '../../core/domain/prices';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { parseStep } from '../support/wizard';

const form = (pairs: [string, string][]) => new URLSearchParams(pairs);
const messages = CATALOGUES.en;
const parseDetails = (posted: URLSearchParams) => parseStep('details', posted);
const parseFaqs = (posted: URLSearchParams) => parseStep('faqs', posted);
const parseUpsells = (posted: URLSearchParams) => parseStep('upsells', posted);

describe('onboarding wizard forms', () => {
  it('reads guest prices as hosts type them in their language, with or without the currency sign', () => {
    const minor = (value: string, language: string, currency = 'EUR') => {
      const read = readPrice(value, language, currency);
      return read.ok ? read.minor : read.problem;
    };
    const cases: [string, string, number | string, string?][] = [
      ['25', 'en', 2_500],
      ['19.9', 'en', 1_990],
      ['19,95', 'en', 1_995],
      [' 0 ', 'en', 0],
      ['€12.50', 'en', 1_250],
      ['1,234.56', 'en', 123_456],
      ['1,234', 'en', 123_400],
      ['12,50 €', 'de', 1_250],
      ['1.234,56', 'de', 123_456],
      ['1.234', 'de', 123_400],
      ['19.90', 'de', 1_990],
      ['1 234,56 €', 'fr', 123_456],
      ['1 234,56 €', 'fr', 123_456],
      ['CHF 12.50', 'de', 1_250, 'CHF'],
      ['£7', 'en', 700, 'GBP'],
      ['EUR 9,99', 'it', 999],
      ['9,99 EUR', 'es', 999],
      ['-5', 'de', 'negative'],
      ['−12,50 €', 'de', 'negative'],
      ['12.345', 'en', 'decimals'],
      ['1,999', 'de', 'decimals'],
      ['100000', 'en', 'too-high'],
      ['99.999,99', 'de', 9_999_999],
      ['', 'en', 'unreadable'],
      ['1e3', 'en', 'unreadable'],
      ['free', 'de', 'unreadable'],
      ['12 $', 'en', 'unreadable'],
      ['1.2.3', 'de', 'unreadable'],
      // Read as something else than the host meant (the outside review's): refused instead.
      ['0.500', 'de', 'decimals'],
      ['0,500', 'en', 'decimals'],
      ['12 50', 'de', 'unreadable'],
      ['1 2', 'en', 'unreadable'],
      ['1 234', 'en', 123_400],
    ];
    for (const [value, language, expected, currency] of cases)
      expect(minor(value, language, currency), `${value} (${language})`).toBe(expected);
  });

  it('says what is wrong with a price, in the host’s language', () => {
    const priceError = (price: string, language: 'en' | 'de') =>
      parseStep(
        'upsells',
        form([
          ['title', 'Late check-out'],
          ['description', ''],
          ['price', price],
          ['currency', 'EUR'],
        ]),
        language,
      );

    expect(priceError('12,50 €', 'de')).toMatchObject({ ok: true, value: [{ priceMinor: 1_250 }] });
    expect(priceError('-5', 'de')).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringContaining('nicht unter null') }],
    });
    expect(priceError('12.345', 'en')).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringContaining('at most two decimals, e.g. 19.90') }],
    });
    expect(priceError('100000', 'en')).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringContaining('at most 99,999.99') }],
    });
  });

  it('requires a property name and real check-in instructions', () => {
    expect(
      parseDetails(
        form([
          ['property_name', ' Casa '],
          ['checkin_instructions', 'From 3 pm, key box code 4711'],
        ]),
      ),
    ).toEqual({
      ok: true,
      value: { propertyName: 'Casa', checkInInstructions: 'From 3 pm, key box code 4711' },
    });
    const refused = parseDetails(
      form([
        ['property_name', ''],
        ['checkin_instructions', 'soon'],
      ]),
    );
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.errors).toHaveLength(2);
  });

  it('keeps complete question/answer pairs, ignores empty rows, and names half-filled ones', () => {
    expect(
      parseFaqs(
        form([
          ['question', 'Parking?'],
          ['answer', 'Yes'],
          ['question', ''],
          ['answer', ''],
        ]),
      ),
    ).toEqual({ ok: true, value: [{ question: 'Parking?', answer: 'Yes' }] });
    expect(
      parseFaqs(
        form([
          ['question', 'Pets?'],
          ['answer', ''],
        ]),
      ),
    ).toEqual({
      ok: false,
      errors: [{ message: 'Question 1: fill in both the question and its answer.', field: 'answer-0' }],
    });
    expect(
      parseFaqs(
        form([
          ['question', ''],
          ['answer', ''],
        ]),
      ).ok,
    ).toBe(false);
  });

  it('reads as many rows as the longest field list, so a row missing its first field is refused, not dropped', () => {
    // A crafted form (no browser posts it): offers without their titles, answers without questions.
    const offers = parseUpsells(
      form([
        ['description', 'Late checkout until 2 pm'],
        ['price', '20'],
        ['currency', 'EUR'],
      ]),
    );
    const questions = parseFaqs(
      form([
        ['question', 'Parking?'],
        ['answer', 'Yes'],
        ['answer', 'Behind the house'],
      ]),
    );

    expect(offers.ok).toBe(false);
    expect(offers.ok ? [] : offers.errors.map((error) => error.field)).toEqual(['title-0']);
    expect(questions.ok).toBe(false);
    expect(questions.ok ? [] : questions.errors.map((error) => error.field)).toEqual(['question-1']);
  });

  it('refuses more rows than the page shows with one error, whatever each row holds', () => {
    // Prepare: a posted form of 40,000 half-filled rows would list an error per row.
    const questions = form(Array.from({ length: 40_000 }, (): [string, string] => ['question', 'a']));
    const titles = form(Array.from({ length: 40_000 }, (): [string, string] => ['title', 'a']));

    // Act
    const faqs = parseFaqs(questions);
    const offers = parseUpsells(titles);

    // Assess
    expect(faqs).toEqual({ ok: false, errors: [{ message: 'Add at most 20 questions.' }] });
    expect(offers).toEqual({ ok: false, errors: [{ message: 'Add at most 20 offers.' }] });
  });

  it('reads upsell offers with a price and currency, and allows none', () => {
    expect(
      parseUpsells(
        form([
          ['title', 'Late check-out'],
          ['description', 'Until 2 pm'],
          ['price', '25'],
          ['currency', 'EUR'],
        ]),
      ),
    ).toEqual({
      ok: true,
      value: [{ title: 'Late check-out', description: 'Until 2 pm', priceMinor: 2_500, currency: 'EUR' }],
    });
    expect(
      parseUpsells(
        form([
          ['title', ''],
          ['description', ''],
          ['price', ''],
          ['currency', 'EUR'],
        ]),
      ),
    ).toEqual({ ok: true, value: [] });
    expect(
      parseUpsells(
        form([
          ['title', 'Bikes'],
          ['description', ''],
          ['price', 'ten'],
          ['currency', 'EUR'],
        ]),
      ).ok,
    ).toBe(false);
    expect(
      parseUpsells(
        form([
          ['title', 'Bikes'],
          ['description', ''],
          ['price', '10'],
          ['currency', 'XXX'],
        ]),
      ).ok,
    ).toBe(false);
  });

  describe('text rules (docs/design/README.md: text fields)', () => {
    const REFUSED_IN_TEXT = ['\u0000', '\u0007', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085', '\u009b'];
    const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    const SEPARATORS = ['\u2028', '\u2029'];
    const hex = (character: string) => (character.codePointAt(0) ?? 0).toString(16).padStart(4, '0');

    it('keeps line breaks (CR LF as a browser sends them) and tabs in answers, descriptions and instructions', () => {
      expect(
        parseFaqs(
          form([
            ['question', 'Parking?'],
            ['answer', 'Yes:\r\n\t- two spaces\r\n\t- free'],
          ]),
        ),
      ).toEqual({
        ok: true,
        value: [{ question: 'Parking?', answer: 'Yes:\n\t- two spaces\n\t- free' }],
      });
      const offers = parseUpsells(
        form([
          ['title', 'Breakfast'],
          ['description', 'Served 7–10.\r\nIn the garden.'],
          ['price', '12.50'],
          ['currency', 'EUR'],
        ]),
      );
      expect(offers.ok && offers.value[0]?.description).toBe('Served 7–10.\nIn the garden.');
      const details = parseDetails(
        form([
          ['property_name', 'Casa'],
          ['checkin_instructions', 'From 3 pm.\r\n\tKey box: 4711'],
        ]),
      );
      expect(details.ok && details.value.checkInInstructions).toBe('From 3 pm.\n\tKey box: 4711');
    });

    it.each([...REFUSED_IN_TEXT, ...BIDI, ...SEPARATORS].map((character) => [hex(character), character]))(
      'refuses U+%s in an answer, a description and check-in instructions, and says so',
      (_codePoint, character) => {
        expect(
          parseFaqs(
            form([
              ['question', 'Pets?'],
              ['answer', `Yes${character}, small ones`],
            ]),
          ),
        ).toEqual({
          ok: false,
          errors: [{ message: messages.errorFaqAnswerCharacters(1), field: 'answer-0' }],
        });
        expect(
          parseUpsells(
            form([
              ['title', 'Bikes'],
              ['description', `Two${character}bikes`],
              ['price', '10'],
              ['currency', 'EUR'],
            ]),
          ),
        ).toEqual({
          ok: false,
          errors: [{ message: messages.errorOfferDescriptionCharacters(1), field: 'description-0' }],
        });
        expect(
          parseDetails(
            form([
              ['property_name', 'Casa'],
              ['checkin_instructions', `From 3 pm${character}, door A`],
            ]),
          ),
        ).toEqual({
          ok: false,
          errors: [{ message: messages.errorCheckinCharacters, field: 'checkin_instructions' }],
        });
      },
    );

    it.each(
      [...REFUSED_IN_TEXT, ...BIDI, ...SEPARATORS, '\t', '\n'].map((character) => [
        hex(character),
        character,
      ]),
    )('refuses U+%s in a question and an offer title (one line)', (_codePoint, character) => {
      expect(
        parseFaqs(
          form([
            ['question', `Park${character}ing?`],
            ['answer', 'Yes'],
          ]),
        ),
      ).toEqual({
        ok: false,
        errors: [{ message: messages.errorFaqQuestionLine(1), field: 'question-0' }],
      });
      expect(
        parseUpsells(
          form([
            ['title', `Late${character}check-out`],
            ['description', ''],
            ['price', '10'],
            ['currency', 'EUR'],
          ]),
        ),
      ).toEqual({
        ok: false,
        errors: [{ message: messages.errorOfferTitle(1, 120), field: 'title-0' }],
      });
    });

    it('keeps right-to-left text and its direction marks, which change nothing beyond their place', () => {
      const answer = '\u05db\u05df, \u200fparking\u200e \u061c';
      expect(
        parseFaqs(
          form([
            ['question', '\u05d7\u05e0\u05d9\u05d4?'],
            ['answer', answer],
          ]),
        ).ok,
      ).toBe(true);
    });
  });
});
