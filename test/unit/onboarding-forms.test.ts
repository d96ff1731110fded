import { describe, expect, it } from 'vitest';
import { parseDetails, parseFaqs, parsePrice, parseUpsells } from '../../lambdas/pages/onboarding-forms';

const form = (pairs: [string, string][]) => new URLSearchParams(pairs);

describe('onboarding wizard forms', () => {
  it('reads guest prices into minor units', () => {
    expect(parsePrice('25')).toBe(2_500);
    expect(parsePrice('19.9')).toBe(1_990);
    expect(parsePrice('19,95')).toBe(1_995);
    expect(parsePrice(' 0 ')).toBe(0);
    for (const bad of ['', '-5', '1e3', '12.345', 'free', '100000']) expect(parsePrice(bad)).toBeUndefined();
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
      errors: ['Question 1: fill in both the question and its answer.'],
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
});
