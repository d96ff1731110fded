import { randomBytes } from 'node:crypto';
import type fc from 'fast-check';
import { vi } from 'vitest';
import type { ServiceEventDetail, SubmittedKnowledgeBase } from '../../../core/contract/service-events';
import type { Language } from '../../../core/domain/languages';
import type { LocalOutboundPipe, OutboundEvent } from '../../../emulator/outbound-pipe';
import type { provisionSponsoredHost } from '../../../lambdas/data/provisioning';

/*
 * The model of the outbound events test (test/integration/outbound-events.model.test.ts): this service
 * as the model sees it, the model platform built from the contract, and what every command shares.
 */

export const MODEL_TABLE = `partner-api-outbound-model-${Date.now().toString(36)}`;

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const DAY = 24 * 60 * MINUTE;
export const MODEL_EPOCH = Date.parse('2026-05-01T00:00:00.000Z');
const PRODUCTS = ['assistant', 'upsells', 'guidebook'] as const;
export type Product = (typeof PRODUCTS)[number];
export const LANGUAGES_USED: readonly Language[] = ['en', 'de', 'it'];

// --- The model of this service -------------------------------------------------------------------

export interface ModelPartner {
  readonly id: number;
  readonly agreement: readonly Product[];
}

export interface ModelHost {
  readonly index: number;
  /** As the links give it; a link may write it in another letter case. */
  readonly email: string;
  readonly name: string;
  id: number;
  erased: boolean;
}

/** What the host saved in the wizard's steps, and what it last submitted. */
export interface Answers {
  propertyName?: string;
  checkin?: string;
  faqs?: { question: string; answer: string }[];
  offers?: { title: string; description: string; price_minor: number; currency: 'EUR' }[];
}

export interface ModelProperty {
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

export interface Model {
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

export interface Platform {
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

export const propertyKey = (partnerId: number, propertyId: number) => `${partnerId}:${propertyId}`;

/** Applies a delivered event as the contract says: by version per entity; after HostErased, nothing. */
export function applyToPlatform(platform: Platform, event: OutboundEvent): void {
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
export function platformActiveProducts(platform: Platform, propertyId: number): string[] {
  const chosen = platform.chosenAt.get(propertyId) ?? new Map<string, number>();
  return PRODUCTS.filter((product) => {
    const seat = platform.seats.get(`${propertyId}:${product}`);
    const at = chosen.get(product);
    if (!seat) return at !== undefined;
    if (seat.on) return true;
    return at !== undefined && seat.at <= at;
  }).sort();
}

// --- Commands ------------------------------------------------------------------------------------

export type Command = fc.AsyncCommand<Model, Real>;
export const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
/** A property provisioned at least once, of a host not erased: what most commands act on. */
export const hasLivingProperty = (model: Readonly<Model>) =>
  model.properties.some((property) => property.id > 0 && !property.host.erased);
export const livingProperty = (model: Model, index: number) =>
  pick(
    model.properties.filter((property) => property.id > 0 && !property.host.erased),
    index,
  );
export const marker = (model: Model, what: string) =>
  `${what} ${model.run}-${randomBytes(3).toString('hex')}`;

/** Every step moves the clock a little: no two changes share an instant (ties are the domain's, tested elsewhere). */
export function tick(model: Model, ms = SECOND): void {
  model.now += ms;
  vi.setSystemTime(model.now);
}

export function expectEvent(model: Model, event: Omit<Expected, 'occurredAt'>): void {
  model.expected.push({ ...event, occurredAt: model.now });
  tally.committed += 1;
}

export const tally = {
  runs: 0,
  steps: 0,
  committed: 0,
  failedBefore: 0,
  failedAfter: 0,
  delivered: 0,
  erasures: 0,
  settles: 0,
};

export interface Real {
  readonly pipe: LocalOutboundPipe;
  /** Every event id the outbox has held so far. */
  readonly committedIds: Set<string>;
  readonly platform: Platform;
  /** Events the pipe put on the bus during the current fetch (collected by the pipe's `put`). */
  readonly fetched: OutboundEvent[];
}
