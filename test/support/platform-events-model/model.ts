import type fc from 'fast-check';
import { eventFingerprint, type PlatformEvent } from '../../../core/contract/platform-events';

/*
 * The model of the platform's events test (test/integration/platform-events.model.test.ts): the
 * entities, what was published and delivered, and how the model applies an event.
 */

export const MODEL_TABLE = `partner-api-events-model-${Date.now().toString(36)}`;

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
/** Streams start within a year after this instant (fixed, so that a seed replays exactly). */
export const MODEL_EPOCH = Date.parse('2026-03-01T00:00:00.000Z');
export const PRODUCTS = ['assistant', 'upsells', 'guidebook'] as const;
export type Product = (typeof PRODUCTS)[number];
export const NAMES = ['Dune House', 'Old Mill', 'Harbour Loft'] as const;
export const CHANNELS = ['Airbnb', 'Direct', 'Vrbo'] as const;

// --- The model ------------------------------------------------------------------------------

export interface ModelPartner {
  readonly label: 'A' | 'B';
  readonly id: number;
  readonly agreement: readonly Product[];
  /** Where a walk through GET /properties?limit=2 is, and what it has seen. */
  walk?: { next: string; lastId: number };
}

export interface ModelHost {
  readonly index: number;
  readonly email: string;
  readonly name: string;
  id: number;
  erased: boolean;
}

export interface ModelProperty {
  readonly index: number;
  readonly partner: ModelPartner;
  readonly host: ModelHost;
  readonly pmsHotelId: string;
  readonly initialName: string;
  id: number;
  /** Provisioning's last choice of each product (its time), the initial activation included. */
  readonly chosenAt: Map<Product, number>;
}

export interface ModelSponsorship {
  readonly partner: ModelPartner;
  readonly host: ModelHost;
  lastProvisionedAt: number;
}

/** One published event: what the platform meant, as the queue carries it. */
export interface Published {
  readonly event: PlatformEvent;
  /** Its entity (`seat:<property>:<product>`...), or none for an erasure. */
  readonly entity?: string;
  /**
   * Poison by construction: why the consumer must refuse it, and whether it still must when it
   * comes (an event about an erased host is dropped before anything else is looked at).
   */
  readonly poison?: { readonly why: string; readonly host?: ModelHost };
  readonly body: string;
}

export interface Delivery {
  readonly published: Published;
  receiveCount: number;
}

export interface Model {
  now: number;
  readonly run: number;
  readonly partners: readonly ModelPartner[];
  readonly hosts: readonly ModelHost[];
  readonly properties: ModelProperty[];
  readonly sponsorships: readonly ModelSponsorship[];
  readonly published: Published[];
  /** In the queue: published, not yet handled (or handled and failed). */
  readonly pending: Delivery[];
  /** Per entity: the versions applied, each with the fingerprint of the first event applied at it. */
  readonly applied: Map<string, Map<number, { fingerprint: string; event: PlatformEvent }>>;
  /** Deliveries the consumer had to dead-letter, by event id. */
  readonly expectedDeadLetters: string[];
  /**
   * Deliveries it may dead-letter or drop: poison about a host whose erasure came in the same
   * batch. The records of a batch are applied side by side, so either may read the other first.
   */
  readonly mayDeadLetter: string[];
  /** The platform's next version of each entity. */
  readonly versions: Map<string, number>;
}

export interface Real {
  /** The bodies the consumer sent to the dead-letter queue. */
  /** Each dead-lettered event's EventBridge id and the reason the consumer gave. */
  readonly deadLetters: { readonly id: string; readonly reason: string }[];
}

export const seatEntity = (property: ModelProperty, product: string) => `seat:${property.id}:${product}`;
export const propertyEntity = (property: ModelProperty) => `property:${property.id}`;
export const sponsorshipEntity = (sponsorship: ModelSponsorship) =>
  `sponsorship:${sponsorship.partner.id}:${sponsorship.host.id}`;
export const reservationEntity = (property: ModelProperty, id: string) => `reservation:${property.id}:${id}`;

export const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function nextVersion(model: Model, entity: string): number {
  const version = (model.versions.get(entity) ?? 0) + 1;
  model.versions.set(entity, version);
  return version;
}

export const sponsorshipOf = (model: Model, property: ModelProperty) =>
  model.sponsorships.find((s) => s.partner === property.partner && s.host === property.host);

/** The events applied to an entity, from the lowest version to the highest. */
export function appliedTo(model: Model, entity: string) {
  return [...(model.applied.get(entity) ?? new Map()).entries()]
    .sort(([a], [b]) => a - b)
    .map(([, e]) => e.event);
}

/** The entity an event is about, when it has one the model tracks. */
export function entityOf(
  model: Model,
  event: PlatformEvent,
): { entity: string; host?: ModelHost } | undefined {
  const property = (id: number) => model.properties.find((candidate) => candidate.id === id);
  switch (event.type) {
    case 'SeatActivated':
    case 'SeatDeactivated': {
      const found = property(event.detail.property_id);
      return found && { entity: `seat:${found.id}:${event.detail.product_id}`, host: found.host };
    }
    case 'PropertyUpdated': {
      const found = property(event.detail.property_id);
      return found && { entity: propertyEntity(found), host: found.host };
    }
    case 'ReservationChanged': {
      const found = property(event.detail.property_id);
      return found && { entity: reservationEntity(found, event.detail.reservation.id), host: found.host };
    }
    case 'SponsorshipEnded': {
      const found = model.sponsorships.find(
        (s) => s.partner.id === event.detail.partner_id && s.host.id === event.detail.host_user_id,
      );
      return found && { entity: sponsorshipEntity(found), host: found.host };
    }
    case 'HostErasureRequested':
      return undefined;
    default: {
      // A new event type: the model must say which entity it changes (tsc refuses it until then).
      const unknown: never = event;
      throw new Error(`The model knows no entity of ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * What the consumer must do with one delivery, decided by the rules of docs/design/events.md from
 * what the model knows: refuse it (dead letter), apply it, or let it change nothing.
 */
export function handleInModel(
  model: Model,
  published: Published,
  erasedInBatch: ReadonlySet<ModelHost>,
): void {
  const { event } = published;
  if (published.poison) {
    const { host } = published.poison;
    const id = JSON.parse(published.body).id;
    if (host && erasedInBatch.has(host)) model.mayDeadLetter.push(id);
    // An event about an erased host is dropped before anything else is looked at.
    else if (!host?.erased) model.expectedDeadLetters.push(id);
    return;
  }
  if (event.type === 'HostErasureRequested') {
    const host = model.hosts.find((candidate) => candidate.id === event.detail.host_user_id);
    if (host) host.erased = true;
    return;
  }
  const about = entityOf(model, event);
  if (!about) throw new Error(`A published event without its entity: ${published.body}`);
  // Beside its host's erasure in one batch, either may run first: applied then erased, or
  // dropped, or (when it disagrees with its version) refused. All end with nothing of the host.
  if (about.host && erasedInBatch.has(about.host)) {
    model.mayDeadLetter.push(JSON.parse(published.body).id);
    return;
  }
  if (about.host?.erased) return; // dropped: nothing is kept of an erased host
  const versions = model.applied.get(about.entity) ?? new Map();
  const stored = Math.max(0, ...versions.keys());
  const fingerprint = eventFingerprint(event);
  const version = event.detail.version;
  const same = versions.get(version);
  if (version === stored && same && same.fingerprint !== fingerprint) {
    model.expectedDeadLetters.push(JSON.parse(published.body).id);
    return;
  }
  if (same) return; // a duplicate, or an older version already known
  // A property's fields apply by their own versions, so an older version still counts for them.
  if (version < stored && event.type !== 'PropertyUpdated') return;
  versions.set(version, { fingerprint, event });
  model.applied.set(about.entity, versions);
}

// --- Commands ------------------------------------------------------------------------------------

export type Command = fc.AsyncCommand<Model, Real>;
export const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
