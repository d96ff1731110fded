import { expect } from 'vitest';
import { serviceEventProblems } from '../../../core/contract/service-events';
import type { Language } from '../../../core/domain/languages';
import { getPropertyOfPartner } from '../../../lambdas/data/properties';
import { listActiveProductsOfProperty } from '../../../lambdas/data/seats';
import { provisionedProperty } from '../../../lambdas/pages/activation-lookups';
import { hostLocale } from '../../../lambdas/pages/messages';
import type { WizardContext } from '../../../lambdas/pages/wizard-step';
import { submittedKnowledgeBase, wizardStepsFor } from '../../../lambdas/pages/wizard-steps';
import { scanAll } from '../scan';
import {
  MODEL_TABLE,
  type Model,
  type ModelHost,
  type ModelProperty,
  type Platform,
  platformActiveProducts,
  propertyKey,
  type Real,
  tally,
} from './model';

/*
 * Reading the real system after every step of the outbound events model, and the invariants it must
 * keep.
 */

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
export function personalWordsOf(model: Model, host: ModelHost): string[] {
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

/** The invariants that hold after every step. */
export async function checkInvariants(model: Model, real: Real): Promise<void> {
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
export async function checkPlatformMatches(model: Model, platform: Platform): Promise<void> {
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

/** The wizard's context for a property, as the onboarding page reads it; none when it is not the partner's. */
export async function wizardContext(model: Model, property: ModelProperty, language: Language) {
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
