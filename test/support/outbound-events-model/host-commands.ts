import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { SubmittedKnowledgeBase } from '../../../core/contract/service-events';
import type { Language } from '../../../core/domain/languages';
import { dynamoDb } from '../../../lambdas/data/db';
import { getHostIdByEmail } from '../../../lambdas/data/hosts';
import { provisionSponsoredHost } from '../../../lambdas/data/provisioning';
import { submittedKnowledgeBase } from '../../../lambdas/pages/wizard-steps';
import { scanAll } from '../scan';
import { checkInvariants, wizardContext } from './invariants';
import {
  type Answers,
  type Command,
  expectEvent,
  hasLivingProperty,
  LANGUAGES_USED,
  livingProperty,
  MODEL_TABLE,
  type Model,
  type ModelHost,
  type ModelPartner,
  type ModelProperty,
  marker,
  pick,
  type Real,
  tally,
  tick,
} from './model';

/*
 * What hosts do in the outbound events model (activations, retries, the wizard's saves and
 * submissions), and the faults injected in the transactions that write the outbox.
 */

// --- Faults in the transactions that write the outbox ---------------------------------------------

/** The next outbox transaction fails: before it reaches DynamoDB, or after it committed. */
let fault: 'before' | 'after' | undefined;

export function installFaults(): void {
  dynamoDb().middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: { Put?: { Item?: { PK?: unknown } } }[] }).TransactItems;
      const outbox = items?.some((item) => String(item.Put?.Item?.PK ?? '').startsWith('OUTBOX#'));
      const injected = outbox ? fault : undefined;
      if (!injected) return next(args);
      fault = undefined;
      const failure = Object.assign(new Error(`Injected: the function failed ${injected} the commit`), {
        name: 'TimeoutError',
      });
      if (injected === 'before') throw failure;
      await next(args);
      throw failure;
    },
    { step: 'initialize', name: 'outboundModelFaults', override: true },
  );
}

/** An activation link opened and products chosen: a new property, or one the host has already. */
export class Activate implements Command {
  constructor(
    readonly hostIndex: number,
    readonly propertyIndex: number,
    readonly partnerIndex: number,
    readonly products: readonly number[],
    readonly language: number,
    readonly upperCase: boolean,
    readonly injected: 'before' | 'after' | undefined,
  ) {}
  check = (model: Readonly<Model>) => model.hosts.some((host) => !host.erased);
  async run(model: Model, real: Real) {
    tick(model);
    const living = model.hosts.filter((host) => !host.erased);
    const existing = model.properties.filter((property) => !property.host.erased);
    const again = existing.length > 0 && (this.propertyIndex % 3 === 0 || model.properties.length >= 8);
    const property: ModelProperty = again
      ? pick(existing, this.propertyIndex)
      : newProperty(model, pick(living, this.hostIndex), pick(model.partners, this.partnerIndex));
    const products = [...new Set(this.products.map((index) => pick(property.partner.agreement, index)))];
    const email = this.upperCase ? property.host.email.toUpperCase() : property.host.email;
    const request = {
      partnerId: property.partner.id,
      contactEmail: email,
      contactName: property.host.name,
      pmsHotelId: property.pmsHotelId,
      propertyName: property.host.name,
      productIds: products,
      language: pick(LANGUAGES_USED, this.language),
      nonce: { value: randomBytes(12).toString('base64url'), tokenExpiresAtMs: model.now + 3_600_000 },
      nowMs: model.now,
    };
    fault = this.injected;
    const outcome = await provisionSponsoredHost(request).then(
      () => undefined,
      (error: Error) => error,
    );
    fault = undefined;
    if (outcome) {
      expect(outcome.message).toMatch(/^Injected/);
      model.retries.push({ request, property });
    }
    if (!outcome || this.injected === 'after') await provisioned(model, property, products);
    if (outcome && this.injected === 'after') tally.failedAfter += 1;
    if (outcome && this.injected === 'before') tally.failedBefore += 1;
    await checkInvariants(model, real);
  }
  toString = () =>
    `activate(host ${this.hostIndex}, property ${this.propertyIndex}, partner ${this.partnerIndex}${this.injected ? `, fails ${this.injected} commit` : ''})`;
}

function newProperty(model: Model, host: ModelHost, partner: ModelPartner): ModelProperty {
  const index = model.properties.length;
  const property: ModelProperty = {
    index,
    partner,
    host,
    pmsHotelId: `OM-${model.run}-${index}-${randomBytes(2).toString('hex')}`,
    id: 0,
    name: host.name,
    names: [host.name],
    chosen: [],
    provisionVersion: 0,
    submissionVersion: 0,
    live: false,
    lastProvisionedAt: 0,
    answers: {},
    changedSinceSubmission: false,
  };
  model.properties.push(property);
  return property;
}

/** What a committed provisioning changed, as the model reads it back (ids are the service's). */
async function provisioned(model: Model, property: ModelProperty, productsChosen: readonly string[]) {
  const hostId = (await getHostIdByEmail(property.host.email)) ?? 0;
  if (property.host.id === 0) property.host.id = hostId;
  expect(hostId, 'the same e-mail, in any case, is one account').toBe(property.host.id);
  if (property.id === 0) {
    const Items = await scanAll({
      TableName: MODEL_TABLE,
      FilterExpression: 'pmsHotelId = :pms AND begins_with(SK, :property)',
      ExpressionAttributeValues: { ':pms': { S: property.pmsHotelId }, ':property': { S: 'PROPERTY#' } },
    });
    property.id = Number(Items[0]?.id);
  }
  property.provisionVersion += 1;
  property.lastProvisionedAt = model.now;
  property.chosen = productsChosen;
  // Sponsored again: every property of the host under the partner is the partner's again.
  for (const other of model.properties)
    if (other.partner === property.partner && other.host === property.host) other.endedAt = undefined;
  expectEvent(model, {
    type: 'HostProvisioned',
    entity: `provisioning:${property.partner.id}:${property.id}`,
    version: property.provisionVersion,
    hostIndex: property.host.index,
  });
}

/** The host retries a link whose activation failed: the one provisioning stands, with its one event. */
export class Retry implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.retries.length > 0;
  async run(model: Model, real: Real) {
    tick(model);
    const [retry] = model.retries.splice(this.index % model.retries.length, 1);
    if (!retry) return;
    const before = model.expected.length;
    const committed = model.expected.some(
      (event) =>
        event.type === 'HostProvisioned' &&
        event.entity === `provisioning:${retry.property.partner.id}:${retry.property.id}` &&
        event.occurredAt === retry.request.nowMs,
    );
    // The page refuses an expired link; an erased host's link makes a new account (tested elsewhere).
    const expiresAt = retry.request.nonce?.tokenExpiresAtMs ?? 0;
    if (retry.property.host.erased || model.now >= expiresAt) {
      await checkInvariants(model, real);
      return;
    }
    const result = await provisionSponsoredHost({ ...retry.request, nowMs: model.now });
    if (committed) expect(result.alreadyProvisioned, 'a committed link is not provisioned twice').toBe(true);
    else {
      expect(result.alreadyProvisioned).toBe(false);
      await provisioned(model, retry.property, retry.request.productIds);
      expect(model.expected.length).toBe(before + 1);
    }
    await checkInvariants(model, real);
  }
  toString = () => `retry a failed link(${this.index})`;
}

/** The form a step posts, from the model's answers. */
function formOf(step: string, answers: Answers): URLSearchParams {
  const form = new URLSearchParams({ step });
  if (step === 'details') {
    form.set('property_name', answers.propertyName ?? '');
    form.set('checkin_instructions', answers.checkin ?? '');
  }
  for (const faq of step === 'faqs' ? (answers.faqs ?? []) : []) {
    form.append('question', faq.question);
    form.append('answer', faq.answer);
  }
  for (const offer of step === 'upsells' ? (answers.offers ?? []) : []) {
    form.append('title', offer.title);
    form.append('description', offer.description);
    form.append('price', (offer.price_minor / 100).toFixed(2));
    form.append('currency', offer.currency);
  }
  return form;
}

/** New answers for the steps, with words that the erasure check looks for later. */
function newAnswers(model: Model, property: ModelProperty, count: number): Answers {
  const rows = Array.from({ length: count }, (_, index) => index);
  const answers: Answers = {
    propertyName: marker(model, `Villa ${property.index}`),
    checkin: marker(model, 'The key box code is'),
    faqs: rows.map((index) => ({
      question: marker(model, `Question ${index}`),
      answer: marker(model, `Answer ${index}`),
    })),
    offers: rows.map((index) => ({
      title: marker(model, `Offer ${index}`),
      description: 'For two',
      price_minor: 1_250 + index,
      currency: 'EUR' as const,
    })),
  };
  // Remembered at once: an erasure must take out whatever was typed, saved or not.
  property.answers = {
    ...property.answers,
    ...answers,
    faqs: [...(property.answers.faqs ?? []), ...(answers.faqs ?? [])],
    offers: [...(property.answers.offers ?? []), ...(answers.offers ?? [])],
  };
  return answers;
}

/** Each step of the host's wizard saved, as its page saves it: the step's parser, then its save. */
async function saveSteps(model: Model, property: ModelProperty, answers: Answers, language: Language) {
  const context = await wizardContext(model, property, language);
  if (!context || context.steps.length === 0) return undefined;
  for (const step of context.steps.filter((candidate) => candidate.id !== 'review')) {
    const parsed = step.parse(formOf(step.id, answers), context);
    expect(parsed.ok, `the ${step.id} step takes the model's answers`).toBe(true);
    if (parsed.ok) await step.save(parsed.value, context, new Date(model.now).toISOString());
  }
  property.name = answers.propertyName ?? property.name;
  property.names.push(property.name);
  return context.steps;
}

/** The host fills the wizard and submits it (the first time, or "Save my changes"). */
export class Submit implements Command {
  constructor(
    readonly property: number,
    readonly rows: number,
    readonly language: number,
    readonly injected: 'before' | 'after' | undefined,
  ) {}
  check = hasLivingProperty;
  async run(model: Model, real: Real) {
    tick(model);
    const property = livingProperty(model, this.property);
    const language = pick(LANGUAGES_USED, this.language);
    const answers = newAnswers(model, property, this.rows);
    const steps = property.endedAt ? undefined : await saveSteps(model, property, answers, language);
    tick(model);
    const context = steps ? await wizardContext(model, property, language) : undefined;
    const review = context?.steps.find((step) => step.id === 'review');
    if (!context || !review) {
      await checkInvariants(model, real);
      return;
    }
    const snapshot = submittedKnowledgeBase(context);
    fault = this.injected;
    const outcome = await review.save(undefined, context, new Date(model.now).toISOString()).then(
      () => undefined,
      (error: Error) => error,
    );
    fault = undefined;
    if (outcome) expect(outcome.message).toMatch(/^Injected/);
    if (!outcome || this.injected === 'after') submitted(model, property, snapshot, context.products);
    else property.changedSinceSubmission = true;
    if (outcome && this.injected === 'after') tally.failedAfter += 1;
    if (outcome && this.injected === 'before') tally.failedBefore += 1;
    await checkInvariants(model, real);
  }
  toString = () =>
    `submit(property ${this.property}, ${this.rows} rows${this.injected ? `, fails ${this.injected} commit` : ''})`;
}

function submitted(
  model: Model,
  property: ModelProperty,
  snapshot: SubmittedKnowledgeBase,
  products: readonly string[],
): void {
  property.submittedProducts = [...products].sort();
  property.submissionVersion += 1;
  property.live = true;
  property.submitted = snapshot;
  property.changedSinceSubmission = false;
  expectEvent(model, {
    type: 'KnowledgeBaseSubmitted',
    entity: `knowledge:${property.id}`,
    version: property.submissionVersion,
    hostIndex: property.host.index,
  });
}

/** The host saves a step and leaves without submitting: nothing is sent. */
export class EditOnly implements Command {
  constructor(readonly property: number) {}
  check = (model: Readonly<Model>) =>
    model.properties.some((property) => property.live && !property.host.erased);
  async run(model: Model, real: Real) {
    tick(model);
    const property = pick(
      model.properties.filter((candidate) => candidate.live && !candidate.host.erased),
      this.property,
    );
    if (!property.endedAt && (await saveSteps(model, property, newAnswers(model, property, 1), 'en')))
      property.changedSinceSubmission = true;
    await checkInvariants(model, real);
  }
  toString = () => `edit without submitting(property ${this.property})`;
}
