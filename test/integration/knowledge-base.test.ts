import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { renderToString } from 'preact-render-to-string';
import { beforeAll, describe, expect, it } from 'vitest';
import { propertyPartition } from '../../core/partitions';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { getKnowledgeBase } from '../../lambdas/data/knowledge-base';
import { getPropertyOfPartner } from '../../lambdas/data/properties';
import { hostLocale } from '../../lambdas/pages/messages';
import type { AnyWizardStep, WizardContext } from '../../lambdas/pages/wizard-step';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/*
 * The knowledge base on DynamoDB Local: each step of the wizard keeps its answers under its own
 * attribute of the property's item and reads them back through its own reader, so the item knows
 * no step, and an item written before steps named their attributes still reads.
 */

let partner: TestPartner;
const products = ['assistant', 'upsells'];

beforeAll(async () => {
  partner = await approvedPartner({ products: ['assistant', 'upsells'] });
});

const english = hostLocale(
  { headers: {}, multiValueQueryStringParameters: {}, queryStringParameters: {} },
  false,
);

/** What the wizard's pages are drawn with for this property, as the onboarding page reads it. */
async function wizardOf(propertyId: number): Promise<{ context: WizardContext; steps: AnyWizardStep[] }> {
  const steps = wizardStepsFor(products);
  const context = {
    partner: { id: partner.id, name: 'Test PMS' },
    locale: english,
    session: { partnerId: partner.id, provisioned: { propertyId, hostUserId: 0 } },
    propertyName: 'Casa Verde',
    knowledgeBase: await getKnowledgeBase(propertyId),
    products,
    catalog: [],
    steps,
  } as unknown as WizardContext;
  return { context, steps };
}

const page = (step: AnyWizardStep, context: WizardContext) =>
  renderToString(step.render({ id: step.id, context, errors: [] }));

/** The steps the wizard had before steps named their attributes: the item's attributes then. */
const FIRST_STEPS = ['details', 'faqs', 'upsells'];

/** These steps of the wizard, by id, each with its place in the wizard (1 = first). */
function stepsNamed(steps: readonly AnyWizardStep[], ids: readonly string[]) {
  return ids.map((id) => {
    const index = steps.findIndex((step) => step.id === id);
    const step = steps[index];
    if (!step) throw new Error(`No wizard step "${id}" for ${products.join(', ')}`);
    return { step, number: index + 1 };
  });
}

describe('the knowledge base, one attribute per step', () => {
  it('reads an item stored before steps named their attributes, through each step', async () => {
    // Prepare: the item as the wizard stored it before, written straight to the table.
    const { propertyId } = await sponsoredProperty(partner.id, { products: ['assistant', 'upsells'] });
    await dynamoDb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          PK: propertyPartition(propertyId),
          SK: 'KNOWLEDGE_BASE',
          checkInInstructions: 'From 3 pm; the key box code is 4711.',
          faqs: [{ question: 'Is there parking?', answer: 'Yes, behind the house.' }],
          upsells: [{ title: 'Breakfast', description: 'In the garden', priceMinor: 1_250, currency: 'EUR' }],
          assistantLiveAt: '2026-03-01T10:00:00.000Z',
          updatedAt: '2026-03-01T10:00:00.000Z',
        },
      }),
    );

    // Act
    const { context, steps } = await wizardOf(propertyId);
    const first = stepsNamed(steps, FIRST_STEPS);
    const review = first.map(({ step, number }) => step.review?.summary(context, number) ?? '');

    // Assess
    expect(context.knowledgeBase.assistantLiveAt).toBe('2026-03-01T10:00:00.000Z');
    expect(first.flatMap(({ step, number }) => step.review?.missing?.(context, number) ?? [])).toEqual([]);
    expect(first.flatMap(({ step }) => step.review?.known?.(context) ?? [])).toEqual([
      'the check-in instructions',
      '1 answer',
      '1 offer',
    ]);
    const reviewText = review
      .map((node) => (typeof node === 'string' ? node : renderToString(node)))
      .join('');
    for (const shown of ['From 3 pm; the key box code is 4711.', 'Is there parking?', 'Breakfast', '€12.50'])
      expect(reviewText).toContain(shown);
    const [details, faqs] = first.map(({ step }) => step);
    expect(details && page(details, context)).toContain('From 3 pm; the key box code is 4711.');
    expect(faqs && page(faqs, context)).toContain('value="Is there parking?"');
  });

  it('reads an item holding values no step writes: the pages draw, and leave those values out', async () => {
    // Prepare: numbers JavaScript cannot hold exactly (one with a fraction beyond 2^53, which the
    // document client's default refuses), and offers in a currency or at a price the page cannot show.
    const { propertyId } = await sponsoredProperty(partner.id, { products: ['assistant', 'upsells'] });
    const offer = (title: string, priceMinor: string, currency: string) => ({
      M: {
        title: { S: title },
        description: { S: '' },
        priceMinor: { N: priceMinor },
        currency: { S: currency },
      },
    });
    await dynamoDb().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: {
          PK: { S: propertyPartition(propertyId) },
          SK: { S: 'KNOWLEDGE_BASE' },
          legacyThing: { N: '1E+125' },
          updatedAt: { N: '99999999999999999999.9' },
          upsells: {
            L: [
              offer('Breakfast', '1250', 'EUR'),
              offer('Huge', '12345678901234567890.5', 'EUR'),
              offer('Bogus', '500', 'bogus'),
              offer('Empty', '500', ''),
              offer('Yen', '500', 'JPY'),
              offer('Cents', '12.5', 'EUR'),
            ],
          },
        },
      }),
    );

    // Act
    const { context, steps } = await wizardOf(propertyId);
    const [upsells] = stepsNamed(steps, ['upsells']);
    const summary = upsells?.step.review?.summary(context, upsells.number);
    const reviewText = !summary || typeof summary === 'string' ? (summary ?? '') : renderToString(summary);

    // Assess
    expect(upsells?.step.review?.known?.(context)).toBe('1 offer');
    expect(reviewText).toContain('Breakfast');
    for (const left of ['Huge', 'Bogus', 'Empty', 'Yen', 'Cents']) expect(reviewText).not.toContain(left);
    expect(upsells && page(upsells.step, context)).toContain('value="Breakfast"');
  });

  it('saves each step’s answers under its own attribute, leaving the other steps’ as they are', async () => {
    // Prepare
    const { propertyId } = await sponsoredProperty(partner.id, { products: ['assistant', 'upsells'] });
    const { context, steps } = await wizardOf(propertyId);
    const [details, faqs, upsells] = stepsNamed(steps, FIRST_STEPS).map(({ step }) => step);
    const now = '2026-04-01T08:00:00.000Z';

    // Act
    await faqs?.save([{ question: 'Pets?', answer: 'Small ones.' }], context, now);
    await upsells?.save(
      [{ title: 'Bikes', description: '', priceMinor: 1_000, currency: 'EUR' }],
      context,
      now,
    );
    await details?.save(
      { propertyName: 'Casa Rosa', checkInInstructions: 'Ring the bell twice.' },
      context,
      now,
    );
    await faqs?.save([{ question: 'Pets?', answer: 'Small ones, on a lead.' }], context, now);

    // Assess
    const { Item } = await dynamoDb().send(
      new GetCommand({
        TableName: tableName(),
        Key: { PK: propertyPartition(propertyId), SK: 'KNOWLEDGE_BASE' },
        ConsistentRead: true,
      }),
    );
    expect(Item).toEqual({
      PK: propertyPartition(propertyId),
      SK: 'KNOWLEDGE_BASE',
      checkInInstructions: 'Ring the bell twice.',
      faqs: [{ question: 'Pets?', answer: 'Small ones, on a lead.' }],
      upsells: [{ title: 'Bikes', description: '', priceMinor: 1_000, currency: 'EUR' }],
      updatedAt: now,
      // Four saves, counted as they committed (what tells a change not yet sent).
      revision: 4,
    });
    const property = await getPropertyOfPartner(partner.id, propertyId, { consistent: true });
    expect(property?.name).toBe('Casa Rosa');
    const reread = await wizardOf(propertyId);
    const saved = stepsNamed(reread.steps, FIRST_STEPS);
    expect(saved.flatMap(({ step }) => step.review?.known?.(reread.context) ?? [])).toEqual([
      'the check-in instructions',
      '1 answer',
      '1 offer',
    ]);
  });
});
