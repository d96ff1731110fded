import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';

/*
 * A model-based test of the events this service sends the platform (docs/design/events.md#what-this-service-sends):
 * random sequences of the real commands — activations through `provisionSponsoredHost` (new hosts,
 * the same e-mail in another case, a partner sponsoring again, a retried link), the wizard's steps
 * saved and submitted through its own steps (`WIZARD_STEPS`: parse, save, and the review's
 * submission), the platform's seat changes, sponsorship endings and erasures through the real
 * consumer logic — with faults injected into the provisioning and wizard transactions (the
 * connection drops before the commit, or the function dies right after it), a clock that moves,
 * and TTL sweeps. The outbox is delivered by the local pipe's own code (emulator/outbound-pipe.ts:
 * DynamoDB Local's stream, the filter, the real enrichment handler, the target's template) to a
 * model platform, in any order and any number of times, that applies the events by version as
 * the contract tells the platform to.
 *
 * After every step: the outbox holds exactly one event per committed change, none for a failed
 * one, each valid against the contract; every event the platform received was committed; no item
 * of the table holds an erased host's e-mail, name or answers, and nothing fetched after an
 * erasure does. Whenever the pipe has delivered everything, the platform holds exactly this
 * service's hosts, each property's provisioning, its active products and its last submitted
 * knowledge base.
 *
 * It runs on a DynamoDB Local of its own (streams slow their instance down as they fill), with a
 * table made afresh for each sequence, and fakes only `Date`. MODEL_RUNS (default 20) sets how many sequences; MODEL_SEED replays one.
 */
const MODEL_TABLE = `partner-api-outbound-model-${Date.now().toString(36)}`;

import type { PlatformEvent } from '../../core/contract/platform-events';
import type { ServiceEventDetail, SubmittedKnowledgeBase } from '../../core/contract/service-events';
import { serviceEventProblems } from '../../core/contract/service-events';
import { createTableInput } from '../../core/contract/table-definition';
import type { Language } from '../../core/domain/languages';
import type { OutboxStreamRecord } from '../../core/outbound-delivery';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { startDynamoDbLocal } from '../../emulator/dynamodb-local';
import type { OutboundEvent } from '../../emulator/outbound-pipe';
import { LocalOutboundPipe } from '../../emulator/outbound-pipe';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { dynamoDb } from '../../lambdas/data/db';
import { getHostIdByEmail } from '../../lambdas/data/hosts';
import { getPropertyOfPartner } from '../../lambdas/data/properties';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { listActiveProductsOfProperty } from '../../lambdas/data/seats';
import { applyPlatformEvent } from '../../lambdas/events/apply-event';
import { handler as enrichment } from '../../lambdas/events/outbound-enrichment';
import { provisionedProperty } from '../../lambdas/pages/activation-lookups';
import { hostLocale } from '../../lambdas/pages/messages';
import type { WizardContext } from '../../lambdas/pages/wizard-step';
import { submittedKnowledgeBase, wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { modelPartner } from '../support/partners';
import { scanAll, sweepExpired } from '../support/scan';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const MODEL_EPOCH = Date.parse('2026-05-01T00:00:00.000Z');
const PRODUCTS = ['assistant', 'upsells', 'guidebook'] as const;
type Product = (typeof PRODUCTS)[number];
const LANGUAGES_USED: readonly Language[] = ['en', 'de', 'it'];

// --- The model of this service -------------------------------------------------------------------

interface ModelPartner {
  readonly id: number;
  readonly agreement: readonly Product[];
}

interface ModelHost {
  readonly index: number;
  /** As the links give it; a link may write it in another letter case. */
  readonly email: string;
  readonly name: string;
  id: number;
  erased: boolean;
}

/** What the host saved in the wizard's steps, and what it last submitted. */
interface Answers {
  propertyName?: string;
  checkin?: string;
  faqs?: { question: string; answer: string }[];
  offers?: { title: string; description: string; price_minor: number; currency: 'EUR' }[];
}

interface ModelProperty {
  readonly index: number;
  readonly partner: ModelPartner;
  readonly host: ModelHost;
  readonly pmsHotelId: string;
  id: number;
  /** The name provisioning stored (the contact's), until the wizard renames it. */
  name: string;
  /** Every name it had: none may be found once its host is erased. */
  readonly names: string[];
  /** The products its last provisioning chose, and the active ones when it was last submitted. */
  chosen: readonly string[];
  submittedProducts?: readonly string[];
  provisionVersion: number;
  submissionVersion: number;
  live: boolean;
  lastProvisionedAt: number;
  endedAt?: number;
  answers: Answers;
  /** Answers saved after the last submission: the platform has not been sent them. */
  changedSinceSubmission: boolean;
  submitted?: SubmittedKnowledgeBase;
}

/** An event the model expects in the outbox: what committed, by its entity and version. */
interface Expected {
  readonly type: string;
  readonly entity: string;
  readonly version: number;
  readonly hostIndex: number;
  readonly occurredAt: number;
}

interface Model {
  now: number;
  readonly run: number;
  readonly partners: readonly ModelPartner[];
  readonly hosts: ModelHost[];
  readonly properties: ModelProperty[];
  readonly expected: Expected[];
  /** The platform's next version of each of its own entities (seats, sponsorships). */
  readonly platformVersions: Map<string, number>;
  /** Links used by an activation that failed: the host may retry each (same nonce). */
  readonly retries: { request: Parameters<typeof provisionSponsoredHost>[0]; property: ModelProperty }[];
}

// --- The model platform: what the platform's engineers build from the contract -------------------

interface Platform {
  /** The latest HostProvisioned applied per partner and property. */
  readonly provisioned: Map<string, ServiceEventDetail<'HostProvisioned'>>;
  /** When each product was last chosen per property, from every HostProvisioned applied. */
  readonly chosenAt: Map<number, Map<string, number>>;
  readonly knowledge: Map<number, ServiceEventDetail<'KnowledgeBaseSubmitted'>>;
  readonly erased: Set<number>;
  /** Its own seat events (it published them): the latest version of each seat. */
  readonly seats: Map<string, { version: number; on: boolean; at: number }>;
  /** Every event id received, and the events on the wire (fetched from the pipe, not yet applied). */
  readonly received: Set<string>;
  readonly wire: OutboundEvent[];
}

const propertyKey = (partnerId: number, propertyId: number) => `${partnerId}:${propertyId}`;

/** Applies a delivered event as the contract says: by version per entity; after HostErased, nothing. */
function applyToPlatform(platform: Platform, event: OutboundEvent): void {
  platform.received.add(String((event.detail as { event_id?: string }).event_id));
  switch (event['detail-type']) {
    case 'HostProvisioned': {
      const detail = event.detail as ServiceEventDetail<'HostProvisioned'>;
      if (platform.erased.has(detail.host_user_id)) return;
      const key = propertyKey(detail.partner_id, detail.property.property_id);
      const chosen = platform.chosenAt.get(detail.property.property_id) ?? new Map<string, number>();
      for (const product of detail.products)
        chosen.set(product, Math.max(chosen.get(product) ?? 0, Date.parse(detail.occurred_at)));
      platform.chosenAt.set(detail.property.property_id, chosen);
      if ((platform.provisioned.get(key)?.version ?? 0) < detail.version)
        platform.provisioned.set(key, detail);
      return;
    }
    case 'KnowledgeBaseSubmitted': {
      const detail = event.detail as ServiceEventDetail<'KnowledgeBaseSubmitted'>;
      if (platform.erased.has(detail.host_user_id)) return;
      if ((platform.knowledge.get(detail.property_id)?.version ?? 0) < detail.version)
        platform.knowledge.set(detail.property_id, detail);
      return;
    }
    case 'HostErased': {
      const { host_user_id: hostId } = event.detail as ServiceEventDetail<'HostErased'>;
      platform.erased.add(hostId);
      for (const [key, detail] of platform.provisioned)
        if (detail.host_user_id === hostId) {
          platform.provisioned.delete(key);
          platform.chosenAt.delete(detail.property.property_id);
        }
      for (const [propertyId, detail] of platform.knowledge)
        if (detail.host_user_id === hostId) platform.knowledge.delete(propertyId);
      return;
    }
    default:
      throw new Error(`The platform received an event of no contract: ${JSON.stringify(event)}`);
  }
}

/** A product is active when the host chose it later than the platform last switched it off. */
function platformActiveProducts(platform: Platform, propertyId: number): string[] {
  const chosen = platform.chosenAt.get(propertyId) ?? new Map<string, number>();
  return PRODUCTS.filter((product) => {
    const seat = platform.seats.get(`${propertyId}:${product}`);
    const at = chosen.get(product);
    if (!seat) return at !== undefined;
    if (seat.on) return true;
    return at !== undefined && seat.at <= at;
  }).sort();
}

// --- Faults in the transactions that write the outbox ---------------------------------------------

/** The next outbox transaction fails: before it reaches DynamoDB, or after it committed. */
let fault: 'before' | 'after' | undefined;

function installFaults(): void {
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

// --- Reading the real system ------------------------------------------------------------------------

/** The entity of an outbox item, as the model names it. */
function entityOfItem(item: Record<string, unknown>): string {
  switch (item.detailType) {
    case 'HostProvisioned':
      return `provisioning:${item.partnerId}:${item.propertyId}`;
    case 'KnowledgeBaseSubmitted':
      return `knowledge:${item.propertyId}`;
    default:
      return `erasure:${item.hostUserId}`;
  }
}

/** What must never be found again once a host is erased: its e-mail, its name, its property names, its answers. */
function personalWordsOf(model: Model, host: ModelHost): string[] {
  const properties = model.properties.filter((property) => property.host === host);
  return [
    host.email.toLowerCase(),
    host.name.toLowerCase(),
    ...properties.flatMap((property) => [
      ...property.names.map((name) => name.toLowerCase()),
      ...(property.answers.checkin ? [property.answers.checkin.toLowerCase()] : []),
      ...(property.answers.faqs ?? []).flatMap((faq) => [
        faq.question.toLowerCase(),
        faq.answer.toLowerCase(),
      ]),
      ...(property.answers.offers ?? []).map((offer) => offer.title.toLowerCase()),
    ]),
  ];
}

const tally = {
  runs: 0,
  steps: 0,
  committed: 0,
  failedBefore: 0,
  failedAfter: 0,
  delivered: 0,
  erasures: 0,
  settles: 0,
};

interface Real {
  readonly pipe: LocalOutboundPipe;
  /** Every event id the outbox has held so far. */
  readonly committedIds: Set<string>;
  readonly platform: Platform;
  /** Events the pipe put on the bus during the current fetch (collected by the pipe's `put`). */
  readonly fetched: OutboundEvent[];
}

/** The invariants that hold after every step. */
async function checkInvariants(model: Model, real: Real): Promise<void> {
  tally.steps += 1;
  const items = await scanAll({ TableName: MODEL_TABLE });
  // The outbox: exactly one event per committed change, each valid against the contract.
  const outbox = items.filter((item) => String(item.PK).startsWith('OUTBOX#'));
  const found = outbox
    .map((item) => `${item.detailType} ${entityOfItem(item)} v${item.version ?? '-'}`)
    .sort();
  const wanted = model.expected
    .map((event) => `${event.type} ${event.entity} v${event.type === 'HostErased' ? '-' : event.version}`)
    .sort();
  expect(found, 'the outbox holds an event per committed change, and only those').toEqual(wanted);
  for (const item of outbox) {
    const host = model.hosts.find((candidate) => candidate.id === item.hostUserId);
    if (host?.erased && item.detailType !== 'HostErased') {
      expect(item.detail, `an erased host's ${String(item.detailType)} keeps its ids only`).toBeUndefined();
      continue;
    }
    expect(serviceEventProblems(item.detailType, item.detail), String(item.SK)).toEqual([]);
  }
  // Every event on the wire or received was committed: its id was an outbox item's.
  for (const item of outbox) real.committedIds.add(String(item.eventId));
  for (const id of [
    ...real.platform.received,
    ...real.platform.wire.map((event) => String((event.detail as { event_id?: string }).event_id)),
  ])
    expect(real.committedIds.has(id), `event ${id} was sent without being committed`).toBe(true);
  // Nothing personal of an erased host, in any item.
  for (const host of model.hosts.filter((candidate) => candidate.erased)) {
    const words = personalWordsOf(model, host);
    for (const item of items) {
      const text = JSON.stringify(item).toLowerCase();
      for (const word of words)
        expect(text.includes(word), `${word} in ${String(item.PK)} ${String(item.SK)}`).toBe(false);
    }
  }
}

/**
 * The platform holds exactly this service's hosts, provisionings, products and submitted
 * knowledge bases: checked when the pipe has delivered everything.
 */
async function checkPlatformMatches(model: Model, platform: Platform): Promise<void> {
  tally.settles += 1;
  for (const property of model.properties.filter((candidate) => candidate.id > 0)) {
    const key = propertyKey(property.partner.id, property.id);
    if (property.host.erased) {
      expect(platform.provisioned.has(key), `erased host's property ${property.index} at the platform`).toBe(
        false,
      );
      expect(platform.knowledge.has(property.id)).toBe(false);
      continue;
    }
    const stored = await getPropertyOfPartner(property.partner.id, property.id, {
      consistent: true,
      includeEnded: true,
    });
    const provisioned = platform.provisioned.get(key);
    expect(provisioned?.version, `provisioning of property ${property.index}`).toBe(stored?.provisionVersion);
    expect(provisioned?.version).toBe(property.provisionVersion);
    expect(provisioned?.host_user_id).toBe(property.host.id);
    expect(provisioned?.property.pms_hotel_id).toBe(property.pmsHotelId);
    expect(provisioned?.contact_email.toLowerCase()).toBe(property.host.email.toLowerCase());
    expect(provisioned?.contact_name).toBe(property.host.name);
    const active = (await listActiveProductsOfProperty(property.partner.id, property.id)).slice().sort();
    expect(platformActiveProducts(platform, property.id), `products of property ${property.index}`).toEqual(
      active,
    );
    const knowledge = platform.knowledge.get(property.id);
    expect(knowledge?.version ?? 0, `knowledge base version of property ${property.index}`).toBe(
      property.submissionVersion,
    );
    expect(knowledge?.knowledge_base).toEqual(property.submitted);
    if (property.submitted && !property.changedSinceSubmission && !property.endedAt) {
      // What is stored now, read as the wizard reads it, is what the platform has (while the
      // products, which decide the steps, are the ones it was submitted with).
      const context = await wizardContext(model, property, 'en');
      if (
        context &&
        JSON.stringify([...context.products].sort()) === JSON.stringify(property.submittedProducts)
      )
        expect(knowledge?.knowledge_base).toEqual(submittedKnowledgeBase(context));
    }
  }
}

// --- Commands ------------------------------------------------------------------------------------

type Command = fc.AsyncCommand<Model, Real>;
const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
/** A property provisioned at least once, of a host not erased: what most commands act on. */
const hasLivingProperty = (model: Readonly<Model>) =>
  model.properties.some((property) => property.id > 0 && !property.host.erased);
const livingProperty = (model: Model, index: number) =>
  pick(
    model.properties.filter((property) => property.id > 0 && !property.host.erased),
    index,
  );
const marker = (model: Model, what: string) => `${what} ${model.run}-${randomBytes(3).toString('hex')}`;

/** Every step moves the clock a little: no two changes share an instant (ties are the domain's, tested elsewhere). */
function tick(model: Model, ms = SECOND): void {
  model.now += ms;
  vi.setSystemTime(model.now);
}

function expectEvent(model: Model, event: Omit<Expected, 'occurredAt'>): void {
  model.expected.push({ ...event, occurredAt: model.now });
  tally.committed += 1;
}

/** An activation link opened and products chosen: a new property, or one the host has already. */
class Activate implements Command {
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
      ExpressionAttributeValues: { ':pms': property.pmsHotelId, ':property': 'PROPERTY#' },
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
class Retry implements Command {
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

/** The wizard's context for a property, as the onboarding page reads it; none when it is not the partner's. */
async function wizardContext(model: Model, property: ModelProperty, language: Language) {
  const read = await provisionedProperty(property.partner.id, property.id);
  if (!read.property) return undefined;
  const locale = hostLocale(
    {
      headers: { 'accept-language': language },
      multiValueQueryStringParameters: {},
      queryStringParameters: {},
    },
    false,
  );
  const steps = wizardStepsFor(read.products);
  return {
    partner: { id: property.partner.id, name: 'Model PMS' },
    face: { name: 'Model PMS' },
    locale,
    session: {
      partnerId: property.partner.id,
      claims: { nonce: 'model' },
      provisioned: { hostUserId: property.host.id, propertyId: property.id },
    },
    csrf: '',
    propertyName: read.property.name,
    knowledgeBase: read.knowledgeBase,
    products: read.products,
    catalog: [],
    steps,
    requestId: `model-${model.run}`,
  } as unknown as WizardContext;
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
class Submit implements Command {
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
class EditOnly implements Command {
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

/** The platform switches a product of a property on or off (its own event, applied by the consumer). */
class PlatformSeat implements Command {
  constructor(
    readonly property: number,
    readonly product: number,
    readonly on: boolean,
  ) {}
  check = hasLivingProperty;
  async run(model: Model, real: Real) {
    tick(model);
    const property = livingProperty(model, this.property);
    const product = pick(property.partner.agreement, this.product);
    const entity = `${property.id}:${product}`;
    const version = (model.platformVersions.get(entity) ?? 0) + 1;
    model.platformVersions.set(entity, version);
    await applyPlatform(model, {
      type: this.on ? 'SeatActivated' : 'SeatDeactivated',
      detail: {
        property_id: property.id,
        product_id: product,
        version,
        occurred_at: new Date(model.now).toISOString(),
      },
    });
    real.platform.seats.set(entity, { version, on: this.on, at: model.now });
    await checkInvariants(model, real);
  }
  toString = () => `platform seat ${this.on ? 'on' : 'off'}(property ${this.property}, ${this.product})`;
}

async function applyPlatform(model: Model, event: PlatformEvent): Promise<void> {
  await applyPlatformEvent(
    { ...event, publishedAt: new Date(model.now).toISOString() } as PlatformEvent,
    model.now,
    Date.now() + 60_000,
  );
}

/** A host leaves a partner (the platform's SponsorshipEnded). */
class EndSponsorship implements Command {
  constructor(readonly property: number) {}
  check = hasLivingProperty;
  async run(model: Model, real: Real) {
    tick(model);
    const property = livingProperty(model, this.property);
    const entity = `sponsorship:${property.partner.id}:${property.host.id}`;
    const version = (model.platformVersions.get(entity) ?? 0) + 1;
    model.platformVersions.set(entity, version);
    await applyPlatform(model, {
      type: 'SponsorshipEnded',
      detail: {
        partner_id: property.partner.id,
        host_user_id: property.host.id,
        version,
        occurred_at: new Date(model.now).toISOString(),
      },
    });
    for (const ended of model.properties)
      if (ended.partner === property.partner && ended.host === property.host) ended.endedAt = model.now;
    await checkInvariants(model, real);
  }
  toString = () => `end sponsorship(property ${this.property})`;
}

/** The platform asks for a host's erasure: everything personal goes, and HostErased follows once. */
class Erase implements Command {
  constructor(readonly host: number) {}
  check = (model: Readonly<Model>) => model.hosts.some((host) => host.id > 0 && !host.erased);
  async run(model: Model, real: Real) {
    tick(model);
    const host = pick(
      model.hosts.filter((candidate) => candidate.id > 0 && !candidate.erased),
      this.host,
    );
    const request: PlatformEvent = {
      type: 'HostErasureRequested',
      detail: { host_user_id: host.id, requested_at: new Date(model.now).toISOString() },
    };
    await applyPlatform(model, request);
    host.erased = true;
    tally.erasures += 1;
    expectEvent(model, {
      type: 'HostErased',
      entity: `erasure:${host.id}`,
      version: 0,
      hostIndex: host.index,
    });
    // Delivered again: nothing more is sent.
    await applyPlatform(model, request);
    // The pipe may still hold events of the host it fetched before: none of what it fetches from
    // now on names the host.
    real.fetched.length = 0;
    await fetchFromPipe(real);
    const words = personalWordsOf(model, host);
    for (const event of real.fetched) {
      const text = JSON.stringify(event).toLowerCase();
      for (const word of words) expect(text.includes(word), `${word} sent after the erasure`).toBe(false);
    }
    await checkInvariants(model, real);
  }
  toString = () => `erase(host ${this.host})`;
}

/** The pipe reads the stream: what it fetches goes on the wire to the platform. */
async function fetchFromPipe(real: Real): Promise<void> {
  await real.pipe.drain();
  real.platform.wire.push(...real.fetched.splice(0));
}

class Fetch implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await fetchFromPipe(real);
    await checkInvariants(model, real);
  }
  toString = () => 'the pipe reads the stream';
}

/** Some of what is on the wire reaches the platform, in any order; some of it again later (a duplicate). */
class Deliver implements Command {
  constructor(
    readonly picks: readonly number[],
    readonly duplicate: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const { wire } = real.platform;
    for (const index of this.picks) {
      if (wire.length === 0) break;
      const at = index % wire.length;
      const event = wire[at] as OutboundEvent;
      if (!this.duplicate) wire.splice(at, 1);
      applyToPlatform(real.platform, event);
      tally.delivered += 1;
    }
    await checkInvariants(model, real);
  }
  toString = () => `deliver ${this.picks.length}${this.duplicate ? ' (and again later)' : ''}`;
}

/** Everything the pipe can read is delivered, in a random order, some twice: the platform then matches. */
class Settle implements Command {
  constructor(readonly order: readonly number[]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await settle(model, real, this.order);
  }
  toString = () => 'settle';
}

async function settle(model: Model, real: Real, order: readonly number[]): Promise<void> {
  await fetchFromPipe(real);
  const { wire } = real.platform;
  const shuffled = wire
    .splice(0)
    .map((event, index) => ({ event, key: order[index % Math.max(1, order.length)] ?? index }));
  shuffled.sort((a, b) => a.key - b.key);
  for (const { event } of [...shuffled, ...shuffled.slice(0, 2)]) applyToPlatform(real.platform, event);
  tally.delivered += shuffled.length;
  await checkInvariants(model, real);
  await checkPlatformMatches(model, real.platform);
}

class AdvanceClock implements Command {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    // The pipe reads continuously: nothing waits in the stream for a day (its retention).
    if (this.ms >= DAY) await fetchFromPipe(real);
    tick(model, this.ms);
    await checkInvariants(model, real);
  }
  toString = () => `clock +${Math.round(this.ms / MINUTE)} min`;
}

/** DynamoDB's TTL: every item whose `ttl` has passed may be gone at any time after. */
class TtlSweep implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await sweepExpired(MODEL_TABLE, model.now);
    // The outbox keeps its events OUTBOX_RETENTION_DAYS: those older are gone from it, sent long ago.
    const removed = model.expected.filter((event) => event.occurredAt + 14 * DAY <= model.now);
    for (const event of removed) model.expected.splice(model.expected.indexOf(event), 1);
    await checkInvariants(model, real);
  }
  toString = () => 'TTL sweep';
}

const injected = fc.constantFrom<'before' | 'after' | undefined>(
  undefined,
  undefined,
  undefined,
  'before',
  'after',
);

const commands = [
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.boolean(),
        injected,
      )
      .map(
        ([h, p, partner, products, language, upper, fault]) =>
          new Activate(h, p, partner, products, language, upper, fault),
      ),
  ),
  fc.nat().map((index) => new Retry(index)),
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(fc.nat(), fc.integer({ min: 1, max: 2 }), fc.nat(), injected)
      .map(([p, rows, language, fault]) => new Submit(p, rows, language, fault)),
  ),
  fc.nat().map((p) => new EditOnly(p)),
  fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([p, product, on]) => new PlatformSeat(p, product, on)),
  fc.nat().map((p) => new EndSponsorship(p)),
  fc.nat().map((h) => new Erase(h)),
  fc.constant(new Fetch()),
  ...Array.from({ length: 2 }, () =>
    fc
      .tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.boolean())
      .map(([picks, duplicate]) => new Deliver(picks, duplicate)),
  ),
  fc.array(fc.nat(), { maxLength: 20 }).map((order) => new Settle(order)),
  fc
    .oneof(fc.constantFrom(MINUTE, DAY + MINUTE, 15 * DAY), fc.integer({ min: SECOND, max: 2 * DAY }))
    .map((ms) => new AdvanceClock(ms)),
  fc.constant(new TtlSweep()),
];

// --- A sequence ----------------------------------------------------------------------------------

async function approve(agreement: readonly Product[], nowMs: number): Promise<ModelPartner> {
  return { id: await modelPartner('outbound-model', agreement, nowMs), agreement };
}

async function startingState(run: number, nowMs: number): Promise<Model> {
  const partners = [
    await approve(['assistant', 'upsells', 'guidebook'], nowMs),
    await approve(['assistant', 'guidebook'], nowMs),
  ];
  const hosts = [0, 1, 2].map((index) => ({
    index,
    email: `host-${index}-${run}-${randomBytes(3).toString('hex')}@outbound.example`,
    name: `Outbound Host ${index} ${run} ${randomBytes(3).toString('hex')}`,
    id: 0,
    erased: false,
  }));
  return {
    now: nowMs,
    run,
    partners,
    hosts,
    properties: [],
    expected: [],
    platformVersions: new Map(),
    retries: [],
  };
}

let runs = 0;

async function runSequence(startOffsetMs: number, sequence: Iterable<Command>) {
  const now = MODEL_EPOCH + startOffsetMs;
  vi.setSystemTime(now);
  runs += 1;
  await dynamoDb().send(new DeleteTableCommand({ TableName: MODEL_TABLE }));
  await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE)));
  const fetched: OutboundEvent[] = [];
  const pipe = new LocalOutboundPipe({
    dynamoDbEndpoint: ownDynamoDb?.endpoint ?? '',
    tableName: MODEL_TABLE,
    batchingWindowMs: 0,
    invoke: async (_name, records) =>
      ({ ok: true, payload: JSON.stringify(await enrichment(records as OutboxStreamRecord[])) }) as never,
    put: (event) => fetched.push(event),
  });
  const platform: Platform = {
    provisioned: new Map(),
    chosenAt: new Map(),
    knowledge: new Map(),
    erased: new Set(),
    seats: new Map(),
    received: new Set(),
    wire: [],
  };
  const real: Real = { pipe, platform, fetched, committedIds: new Set() };
  const model = await startingState(runs, now);
  try {
    // Three hosts provisioned first (two properties of host 0, under both partners), so that every
    // command has something to act on from the first step.
    for (const [host, partner, products] of [
      [0, 0, [0, 1]],
      [1, 0, [0]],
      [0, 1, [1]],
    ] as const)
      await new Activate(host, 1, partner, products, host, false, undefined).run(model, real);
    await fc.asyncModelRun(() => ({ model, real }), sequence);
    // At the end, everything is delivered, and the platform matches.
    await settle(model, real, []);
  } finally {
    await pipe.stop();
  }
  tally.runs += 1;
}

/**
 * A DynamoDB Local of the test's own: each sequence's table has the stream the pipe reads, and
 * DynamoDB Local's streams slow every write of their instance as their records pile up across
 * tables, which the suite's other files would pay for.
 */
let ownDynamoDb: DynamoDbLocal | undefined;

describe('the events this service sends the platform (model-based)', () => {
  beforeAll(async () => {
    ownDynamoDb = await startDynamoDbLocal();
    useServiceEnvironment({
      ...inject('localEnvironment'),
      DYNAMODB_ENDPOINT: ownDynamoDb.endpoint,
      TABLE_NAME: MODEL_TABLE,
    });
    await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE)));
    installFaults();
    vi.useFakeTimers({ toFake: ['Date'] });
  }, 60_000);
  afterAll(async () => {
    vi.useRealTimers();
    await ownDynamoDb?.stop();
    console.log(
      `Outbound model: ${tally.runs} sequences, ${tally.steps} steps checked, ${tally.committed} changes committed (${tally.failedBefore} failed before the commit, ${tally.failedAfter} after it), ${tally.delivered} deliveries, ${tally.erasures} erasures, ${tally.settles} settles compared with the platform.`,
    );
  });

  it('every committed change, and only those, reaches a platform that applies by version, whatever the order', async () => {
    const runsWanted = Number(process.env.MODEL_RUNS ?? 20);
    const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 180 * DAY }),
        fc.commands(commands, { size: 'max', maxCommands: 30 }),
        async (startOffsetMs, sequence) => {
          await runSequence(startOffsetMs, sequence);
        },
      ),
      { numRuns: runsWanted, ...(seed === undefined ? {} : { seed }), endOnFailure: false },
    );
  }, 1_800_000);

  it('keeps the platform whole through a failure after the commit, a retried link and an erasure (a sequence the model pins down)', async () => {
    await runSequence(0, [
      new Activate(0, 1, 0, [0, 1], 1, false, 'after'),
      new Retry(0),
      new Submit(0, 2, 1, undefined),
      new Deliver([0, 1], true),
      new Submit(0, 1, 0, 'before'),
      new Submit(0, 1, 2, undefined),
      new Activate(0, 0, 0, [1], 0, true, undefined),
      new Erase(0),
      new Settle([3, 1, 2, 0]),
    ]);
  });
});
