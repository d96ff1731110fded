import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { KNOWLEDGE_BASE_ATTRIBUTES, saveAnswers } from '../../lambdas/data/knowledge-base';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { PLAIN_FORM } from '../../lambdas/pages/posted-form';
import type { AnyWizardStep } from '../../lambdas/pages/wizard-step';
import { storedList, storedRecord } from '../../lambdas/pages/wizard-step';
import { MAX_ROWS, textFieldsOf, WIZARD_FORM, WIZARD_STEPS } from '../../lambdas/pages/wizard-steps';

const steps: readonly AnyWizardStep[] = WIZARD_STEPS;

describe('the step table holds each step whole', () => {
  it('stores each step’s answers under an attribute of its own, none of the item’s own', () => {
    const attributes = steps.flatMap((step) => (step.attribute ? [step.attribute] : []));

    expect(new Set(attributes).size).toBe(attributes.length);
    for (const attribute of attributes)
      expect(KNOWLEDGE_BASE_ATTRIBUTES as readonly string[], attribute).not.toContain(attribute);
    // The steps there were before steps named their attributes keep the knowledge base's names.
    expect(Object.fromEntries(steps.map((step) => [step.id, step.attribute]))).toMatchObject({
      details: 'checkInInstructions',
      faqs: 'faqs',
      upsells: 'upsells',
    });
  });

  it('gives each text field to one step, and a step of rows a field of its own', () => {
    const fields = steps.flatMap((step) => Object.keys(textFieldsOf(step)));

    expect(new Set(fields).size).toBe(fields.length);
    for (const step of steps)
      if (step.rows) expect(Object.keys(textFieldsOf(step)), step.id).toContain(step.rows.field);
  });

  it('sizes the wizard’s forms from the steps’ fields: the questions, 20 × (300 + 2,000), urlencoded', () => {
    expect(WIZARD_FORM.maxBodyChars).toBe(9 * 20 * (300 + 2_000) + 4_000);
    expect(WIZARD_FORM.maxBodyChars).toBe(418_000);
    expect(MAX_ROWS).toBe(20);
  });

  it('names each field longer than its step takes, in the host’s language, and nothing else', () => {
    const form = new URLSearchParams([
      ['question', 'Parking?'],
      ['answer', 'x'.repeat(2_001)],
      ['title', 'x'.repeat(121)],
      ['price', 'x'.repeat(9_000)],
    ]);

    expect(WIZARD_FORM.overlong(form, CATALOGUES.en)).toEqual([
      'An answer has 2,001 characters; it takes at most 2,000.',
      'An offer title has 121 characters; it takes at most 120.',
    ]);
    expect(WIZARD_FORM.overlong(form, CATALOGUES.de)).toContain(
      'Eine Antwort hat 2.001 Zeichen; erlaubt sind höchstens 2.000.',
    );
    expect(PLAIN_FORM.overlong(form, CATALOGUES.en)).toEqual([]);
  });
});

describe('what a step stored, read back', () => {
  const offer = { title: 'string', description: 'string', priceMinor: 'number', currency: 'string' } as const;

  it('reads the records of their shape, and nothing else, from what is stored', () => {
    const stored = [
      { title: 'Breakfast', description: '', priceMinor: 1_250, currency: 'EUR', extra: 'kept out' },
      { title: 'Bikes', description: '', priceMinor: '10', currency: 'EUR' },
      'Late check-out',
      null,
    ];

    expect(storedList(stored, offer)).toEqual([
      { title: 'Breakfast', description: '', priceMinor: 1_250, currency: 'EUR' },
    ]);
    expect(storedList(undefined, offer)).toEqual([]);
    expect(
      storedRecord({ name: 'Casa', password: 'secret' }, { name: 'string', password: 'string' }),
    ).toEqual({
      name: 'Casa',
      password: 'secret',
    });
    expect(storedRecord(undefined, { name: 'string' })).toBeUndefined();
    expect(storedRecord({ name: 4 }, { name: 'string' })).toBeUndefined();
  });

  it('refuses to store a step’s answers as one of the item’s own attributes, and sends nothing', async () => {
    const dynamo = mockClient(DynamoDBDocumentClient);
    try {
      for (const attribute of KNOWLEDGE_BASE_ATTRIBUTES)
        await expect(
          saveAnswers({ partnerId: 1, propertyId: 2 }, { attribute, value: 'x' }, '2026-01-01T00:00:00Z'),
        ).rejects.toThrow(/item's own attribute/);
      expect(dynamo.calls()).toHaveLength(0);
    } finally {
      dynamo.restore();
    }
  });
});
