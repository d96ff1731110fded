import { randomBytes, randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';

/*
 * A model-based test of the platform's events (docs/design/events.md): random streams of the
 * platform's changes (seats, properties, sponsorships, reservations, erasures), published, then
 * delivered to the real consumer in batches of any size and in any order, delayed, duplicated,
 * mixed with poison (events that break the contract, name unknown ids, a product outside the
 * agreement, or disagree with another event of their version), and interleaved with new
 * activation links, a moving clock and TTL sweeps. After every step the partners' view, read
 * through the real API handlers, equals what a small model computes from the highest version of
 * every entity: `GET /usage`, `GET /properties` (a walk through its pages included) and every
 * property's pricing signals; no seat counter is below zero; no item holds an erased host's
 * e-mail address or names; and exactly the poison deliveries are in the dead-letter queue.
 *
 * It runs on DynamoDB Local with a table of its own, made afresh for each stream (so that the
 * erasure check can read every item of it), and fakes only `Date`; the consumer's dead
 * letters (`sqs:SendMessage`) are kept by the test (aws-sdk-client-mock on SQS alone: the real SQS
 * protocol is the integration suite's, through the local server). MODEL_RUNS (default 30) sets how many streams;
 * MODEL_SEED replays one (fast-check prints the seed, the path and the shortest failing stream).
 */
const MODEL_TABLE = `partner-api-events-model-${Date.now().toString(36)}`;

import { eventFingerprint, type PlatformEvent } from '../../core/contract/platform-events';
import { createTableInput } from '../../core/contract/table-definition';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import type { Reservation } from '../../core/domain/reservations';
import { SCOPES } from '../../core/domain/scopes';
import { queueUrlVariable } from '../../core/event-delivery';
import { secretArnVariable } from '../../core/service-secrets';
import { handler as pricingSignalsHandler } from '../../lambdas/api/pricing-signals';
import { handler as propertiesHandler } from '../../lambdas/api/properties';
import { handler as usageHandler } from '../../lambdas/api/usage';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { dynamoDb } from '../../lambdas/data/db';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { handler as consumer } from '../../lambdas/events/consumer';
import { lambdaContext, proxyEvent } from '../support/events';
import { modelPartner } from '../support/partners';
import { expectSignalsClose, pricingOracle } from '../support/pricing-oracle';
import { scanAll, sweepExpired } from '../support/scan';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Streams start within a year after this instant (fixed, so that a seed replays exactly). */
const MODEL_EPOCH = Date.parse('2026-03-01T00:00:00.000Z');
const PRODUCTS = ['assistant', 'upsells', 'guidebook'] as const;
type Product = (typeof PRODUCTS)[number];
const NAMES = ['Dune House', 'Old Mill', 'Harbour Loft'] as const;
const CHANNELS = ['Airbnb', 'Direct', 'Vrbo'] as const;

// --- The model ------------------------------------------------------------------------------

interface ModelPartner {
  readonly label: 'A' | 'B';
  readonly id: number;
  readonly agreement: readonly Product[];
  /** Where a walk through GET /properties?limit=2 is, and what it has seen. */
  walk?: { next: string; lastId: number };
}

interface ModelHost {
  readonly index: number;
  readonly email: string;
  readonly name: string;
  id: number;
  erased: boolean;
}

interface ModelProperty {
  readonly index: number;
  readonly partner: ModelPartner;
  readonly host: ModelHost;
  readonly pmsHotelId: string;
  readonly initialName: string;
  id: number;
  /** Provisioning's last choice of each product (its time), the initial activation included. */
  readonly chosenAt: Map<Product, number>;
}

interface ModelSponsorship {
  readonly partner: ModelPartner;
  readonly host: ModelHost;
  lastProvisionedAt: number;
}

/** One published event: what the platform meant, as the queue carries it. */
interface Published {
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

interface Delivery {
  readonly published: Published;
  receiveCount: number;
}

interface Model {
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

interface Real {
  /** The bodies the consumer sent to the dead-letter queue. */
  /** Each dead-lettered event's EventBridge id and the reason the consumer gave. */
  readonly deadLetters: { readonly id: string; readonly reason: string }[];
}

const seatEntity = (property: ModelProperty, product: string) => `seat:${property.id}:${product}`;
const propertyEntity = (property: ModelProperty) => `property:${property.id}`;
const sponsorshipEntity = (sponsorship: ModelSponsorship) =>
  `sponsorship:${sponsorship.partner.id}:${sponsorship.host.id}`;
const reservationEntity = (property: ModelProperty, id: string) => `reservation:${property.id}:${id}`;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function nextVersion(model: Model, entity: string): number {
  const version = (model.versions.get(entity) ?? 0) + 1;
  model.versions.set(entity, version);
  return version;
}

const sponsorshipOf = (model: Model, property: ModelProperty) =>
  model.sponsorships.find((s) => s.partner === property.partner && s.host === property.host);

/** The events applied to an entity, from the lowest version to the highest. */
function appliedTo(model: Model, entity: string) {
  return [...(model.applied.get(entity) ?? new Map()).entries()]
    .sort(([a], [b]) => a - b)
    .map(([, e]) => e.event);
}

/** The entity an event is about, when it has one the model tracks. */
function entityOf(model: Model, event: PlatformEvent): { entity: string; host?: ModelHost } | undefined {
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
function handleInModel(model: Model, published: Published, erasedInBatch: ReadonlySet<ModelHost>): void {
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

// --- What partners should read ----------------------------------------------------------------

function seatIsActive(model: Model, property: ModelProperty, product: Product): boolean {
  const events = appliedTo(model, seatEntity(property, product));
  const last = events.at(-1);
  const chosen = property.chosenAt.get(product);
  if (!last) return chosen !== undefined;
  if (last.type === 'SeatActivated') return true;
  return (
    last.type === 'SeatDeactivated' && chosen !== undefined && Date.parse(last.detail.occurred_at) <= chosen
  );
}

function sponsorshipEnded(model: Model, sponsorship: ModelSponsorship): boolean {
  const last = appliedTo(model, sponsorshipEntity(sponsorship)).at(-1);
  return (
    last?.type === 'SponsorshipEnded' && Date.parse(last.detail.occurred_at) > sponsorship.lastProvisionedAt
  );
}

function visibleTo(model: Model, property: ModelProperty, partner: ModelPartner): boolean {
  const sponsorship = sponsorshipOf(model, property);
  return (
    property.partner === partner &&
    !property.host.erased &&
    sponsorship !== undefined &&
    !sponsorshipEnded(model, sponsorship)
  );
}

function expectedProperty(model: Model, property: ModelProperty) {
  const updates = appliedTo(model, propertyEntity(property)).filter(
    (event): event is Extract<PlatformEvent, { type: 'PropertyUpdated' }> => event.type === 'PropertyUpdated',
  );
  const name = updates.findLast((event) => event.detail.name !== undefined)?.detail.name;
  const units = updates.findLast((event) => event.detail.units !== undefined)?.detail.units;
  return { name: name ?? property.initialName, units: units ?? 1 };
}

function expectedReservations(model: Model, property: ModelProperty): Reservation[] {
  const prefix = `reservation:${property.id}:`;
  return [...model.applied.keys()]
    .filter((entity) => entity.startsWith(prefix))
    .flatMap((entity) => {
      const last = appliedTo(model, entity).at(-1);
      return last?.type === 'ReservationChanged'
        ? [{ ...last.detail.reservation, property_id: property.id }]
        : [];
    });
}

function expectedUsage(model: Model, partner: ModelPartner) {
  const hosts = model.sponsorships
    .filter((s) => s.partner === partner && !s.host.erased && !sponsorshipEnded(model, s))
    .map((s) => ({
      host_user_id: s.host.id,
      active_seats: model.properties
        .filter((p) => p.partner === partner && p.host === s.host)
        .reduce((sum, p) => sum + PRODUCTS.filter((product) => seatIsActive(model, p, product)).length, 0),
    }))
    .sort((a, b) => a.host_user_id - b.host_user_id);
  return { active_seats: hosts.reduce((sum, host) => sum + host.active_seats, 0), hosts };
}

// --- The real system, through its handlers -----------------------------------------------------

type ApiHandler = (
  event: ReturnType<typeof proxyEvent>,
  context: typeof lambdaContext,
) => Promise<APIGatewayProxyResult>;

/** A partner API call through the real handler; a key prefix of its own, so no call meets the rate limit. */
async function callApi(
  handler: ApiHandler,
  partner: ModelPartner,
  request: {
    path: string;
    resource: string;
    pathParameters?: Record<string, string>;
    query?: Record<string, string[]>;
  },
) {
  const response = await handler(
    proxyEvent({
      ...request,
      authorizer: {
        principalId: `partner:${partner.id}`,
        partnerId: String(partner.id),
        keyPrefix: `svc_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}`,
        scopes: SCOPES.join(' '),
      },
    }),
    lambdaContext,
  );
  return {
    status: response.statusCode,
    json: JSON.parse(response.body || '{}'),
    headers: response.headers ?? {},
  };
}

const tally = { runs: 0, steps: 0, delivered: 0, deadLettered: 0, erasures: 0, walks: 0 };

/**
 * The invariants. `changed: false` after a step that only publishes (nothing is delivered, so
 * nothing can change): the partners' lists and the dead letters are read, and the pricing
 * signals, the counters and the erasure scan are left for the steps that can change them.
 */
async function checkInvariants(model: Model, real: Real, { changed = true } = {}): Promise<void> {
  tally.steps += 1;
  for (const partner of model.partners) {
    const usage = await callApi(usageHandler as ApiHandler, partner, {
      path: '/partner-api/v1/usage',
      resource: '/partner-api/v1/usage',
    });
    expect(usage.status).toBe(200);
    expect(
      { active_seats: usage.json.active_seats, hosts: usage.json.hosts },
      `usage of ${partner.label}`,
    ).toEqual(expectedUsage(model, partner));
    const list = await callApi(propertiesHandler as ApiHandler, partner, {
      path: '/partner-api/v1/properties',
      resource: '/partner-api/v1/properties',
    });
    expect(list.status).toBe(200);
    const expected = model.properties
      .filter((p) => visibleTo(model, p, partner))
      .map((p) => ({ id: p.id, name: expectedProperty(model, p).name }))
      .sort((a, b) => a.id - b.id);
    expect(list.json.properties, `properties of ${partner.label}`).toEqual(expected);
  }
  // Exactly the deliveries that had to be refused wait in the dead-letter queue (and those that may).
  const deadLetters = real.deadLetters.map(({ id }) => id);
  const optional = deadLetters.filter((id) => model.mayDeadLetter.includes(id));
  const reasons = real.deadLetters.map(({ id, reason }) => `${id}: ${reason}`).join('; ');
  expect(
    deadLetters.filter((id) => !optional.includes(id)).sort(),
    `dead-lettered events (${reasons})`,
  ).toEqual([...model.expectedDeadLetters].sort());
  if (!changed) return;
  // Each property's signals for the partner that sponsors it (another partner's 404 is the API
  // tests' business: it reads the same item, keyed by the caller).
  for (const property of model.properties) {
    for (const partner of [property.partner]) {
      const signals = await callApi(pricingSignalsHandler as ApiHandler, partner, {
        path: `/partner-api/v1/properties/${property.id}/pricing-signals`,
        resource: '/partner-api/v1/properties/{propertyId}/pricing-signals',
        pathParameters: { propertyId: String(property.id) },
      });
      if (!visibleTo(model, property, partner)) {
        expect(signals.status, `signals of property ${property.index} for ${partner.label}`).toBe(404);
        continue;
      }
      expect(signals.status, `signals of property ${property.index}: ${JSON.stringify(signals.json)}`).toBe(
        200,
      );
      const oracle = pricingOracle(
        property.id,
        expectedReservations(model, property),
        Date.now(),
        90,
        expectedProperty(model, property).units,
      );
      expectSignalsClose(signals.json as PricingSignalsResponse, oracle, expect);
    }
  }
  // No seat counter below zero, visible or not.
  for (const partner of model.partners) {
    const { Items = [] } = await dynamoDb().send(
      new QueryCommand({
        TableName: MODEL_TABLE,
        KeyConditionExpression: 'PK = :partner AND begins_with(SK, :host)',
        ExpressionAttributeValues: { ':partner': `PARTNER#${partner.id}`, ':host': 'HOST#' },
        ConsistentRead: true,
      }),
    );
    for (const item of Items)
      expect(Number(item.activeSeats), `counter of ${String(item.SK)}`).toBeGreaterThanOrEqual(0);
  }
  // Nothing of an erased host: no item holds its e-mail address, its name or its properties' names.
  const erased = model.hosts.filter((host) => host.erased);
  if (erased.length > 0) {
    const words = erased.flatMap((host) => [
      host.email.toLowerCase(),
      host.name.toLowerCase(),
      ...model.properties.filter((p) => p.host === host).map((p) => p.initialName.toLowerCase()),
    ]);
    for (const item of await scanAll({ TableName: MODEL_TABLE })) {
      const text = JSON.stringify(item).toLowerCase();
      for (const word of words)
        expect(text.includes(word), `${word} in ${String(item.PK)} ${String(item.SK)}`).toBe(false);
    }
  }
}

// --- Commands ------------------------------------------------------------------------------------

type Command = fc.AsyncCommand<Model, Real>;
const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;

function publish(model: Model, event: PlatformEvent, poison?: Published['poison']): void {
  const about = poison ? undefined : entityOf(model, event);
  const published: Published = {
    event,
    ...(about ? { entity: about.entity } : {}),
    ...(poison ? { poison } : {}),
    body: JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': event.type,
      source: 'host-platform',
      account: '000000000000',
      time: isoSeconds(model.now),
      region: 'local',
      resources: [],
      detail: event.detail,
    }),
  };
  model.published.push(published);
  model.pending.push({ published, receiveCount: 0 });
}

class SeatChange implements Command {
  constructor(
    readonly property: number,
    readonly product: number,
    readonly on: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const property = pick(model.properties, this.property);
    const product = pick(PRODUCTS, this.product);
    const type = this.on ? 'SeatActivated' : 'SeatDeactivated';
    const entity = seatEntity(property, product);
    const event: PlatformEvent = {
      type,
      detail: {
        property_id: property.id,
        product_id: product,
        version: nextVersion(model, entity),
        occurred_at: isoSeconds(model.now),
      },
    };
    // Outside the partner's agreement a seat never counts: the consumer refuses it, whatever its
    // version, unless the host is erased by then.
    publish(
      model,
      event,
      property.partner.agreement.includes(product)
        ? undefined
        : { why: 'outside the agreement', host: property.host },
    );
    await checkInvariants(model, real, { changed: false });
  }
  toString = () =>
    `seat ${this.on ? 'on' : 'off'}(property ${this.property}, ${pick(PRODUCTS, this.product)})`;
}

class PropertyChange implements Command {
  constructor(
    readonly property: number,
    readonly name: number | undefined,
    readonly units: number | undefined,
  ) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const property = pick(model.properties, this.property);
    const name = this.name === undefined ? undefined : `${pick(NAMES, this.name)} ${model.run}`;
    const units = this.units ?? (name === undefined ? 2 : undefined);
    publish(model, {
      type: 'PropertyUpdated',
      detail: {
        property_id: property.id,
        version: nextVersion(model, propertyEntity(property)),
        ...(name === undefined ? {} : { name }),
        ...(units === undefined ? {} : { units }),
      },
    });
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `property change(${this.property}, name ${this.name}, units ${this.units})`;
}

class EndSponsorship implements Command {
  constructor(readonly sponsorship: number) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const sponsorship = pick(model.sponsorships, this.sponsorship);
    publish(model, {
      type: 'SponsorshipEnded',
      detail: {
        partner_id: sponsorship.partner.id,
        host_user_id: sponsorship.host.id,
        version: nextVersion(model, sponsorshipEntity(sponsorship)),
        occurred_at: isoSeconds(model.now),
      },
    });
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `sponsorship ended(${this.sponsorship})`;
}

class ReservationChange implements Command {
  constructor(
    readonly property: number,
    readonly reservation: number,
    readonly bookedDaysAgo: number,
    readonly leadDays: number,
    readonly nights: number,
    readonly channel: number,
    readonly cancelled: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const property = pick(model.properties, this.property);
    const id = `R${this.reservation % 4}`;
    const bookedAt = model.now - this.bookedDaysAgo * DAY - 3_600_000;
    const checkIn = Math.floor(bookedAt / DAY) + this.leadDays;
    const date = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
    publish(model, {
      type: 'ReservationChanged',
      detail: {
        property_id: property.id,
        version: nextVersion(model, reservationEntity(property, id)),
        reservation: {
          id,
          channel: pick(CHANNELS, this.channel),
          booked_at: new Date(bookedAt).toISOString(),
          check_in: date(checkIn),
          check_out: date(checkIn + this.nights),
          status: this.cancelled ? 'cancelled' : 'confirmed',
        },
      },
    });
    await checkInvariants(model, real, { changed: false });
  }
  toString = () =>
    `reservation R${this.reservation % 4} of property ${this.property} (${this.cancelled ? 'cancelled' : `booked ${this.bookedDaysAgo} d ago, ${this.nights} n`})`;
}

class Erasure implements Command {
  constructor(readonly host: number) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const host = pick(model.hosts, this.host);
    publish(model, {
      type: 'HostErasureRequested',
      detail: { host_user_id: host.id, requested_at: isoSeconds(model.now) },
    });
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `erasure requested(host ${this.host})`;
}

const POISONS = [
  'broken contract',
  'unknown property',
  'unknown sponsorship',
  'unknown host',
  'disagreeing version',
] as const;

class Poison implements Command {
  constructor(
    readonly kind: number,
    readonly target: number,
  ) {}
  check = (model: Readonly<Model>) => model.published.length < 60;
  async run(model: Model, real: Real) {
    const kind = pick(POISONS, this.kind);
    const at = isoSeconds(model.now);
    if (kind === 'broken contract') {
      // Valid JSON, not the contract: the consumer's own check must refuse it (publish does not).
      publish(
        model,
        {
          type: 'SeatActivated',
          detail: { property_id: 1, product_id: 'Not A Product', version: 1, occurred_at: at },
        },
        { why: kind },
      );
    } else if (kind === 'unknown property') {
      publish(
        model,
        { type: 'PropertyUpdated', detail: { property_id: 900_000_000 + model.run, version: 1, units: 3 } },
        { why: kind },
      );
    } else if (kind === 'unknown sponsorship') {
      // The second partner never sponsored the second host.
      const [, partner] = model.partners;
      const host = model.hosts[1];
      if (!partner || !host) throw new Error('The model has two partners and three hosts');
      publish(
        model,
        {
          type: 'SponsorshipEnded',
          detail: { partner_id: partner.id, host_user_id: host.id, version: 1, occurred_at: at },
        },
        { why: kind, host },
      );
    } else if (kind === 'unknown host') {
      publish(
        model,
        { type: 'HostErasureRequested', detail: { host_user_id: 900_000_000 + model.run, requested_at: at } },
        { why: kind },
      );
    } else {
      // The same version as a seat or reservation event published before, saying something else.
      // Whether the consumer must refuse it depends on what it holds when it comes (the version
      // applied then): the model decides at delivery.
      const candidates = model.published.filter(
        (p) =>
          !p.poison &&
          (p.event.type === 'SeatActivated' ||
            p.event.type === 'SeatDeactivated' ||
            p.event.type === 'ReservationChanged'),
      );
      const original = candidates.length > 0 ? pick(candidates, this.target).event : undefined;
      if (original?.type === 'ReservationChanged')
        publish(model, {
          ...original,
          detail: {
            ...original.detail,
            reservation: { ...original.detail.reservation, channel: 'Disagreeing' },
          },
        });
      else if (original?.type === 'SeatActivated' || original?.type === 'SeatDeactivated')
        publish(model, {
          ...original,
          type: original.type === 'SeatActivated' ? 'SeatDeactivated' : 'SeatActivated',
        });
    }
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `poison(${pick(POISONS, this.kind)})`;
}

/** An event delivered again later, as SQS and EventBridge may. */
class Duplicate implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.published.length > 0;
  async run(model: Model, real: Real) {
    const published = pick(model.published, this.index);
    model.pending.push({ published, receiveCount: 0 });
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `duplicate(${this.index})`;
}

/** The event source mapping hands the consumer a batch: any of the waiting events, in any order. */
class Deliver implements Command {
  constructor(readonly picks: readonly number[]) {}
  check = (model: Readonly<Model>) => model.pending.length > 0;
  async run(model: Model, real: Real) {
    const batch: Delivery[] = [];
    for (const index of this.picks) {
      if (model.pending.length === 0) break;
      const [delivery] = model.pending.splice(index % model.pending.length, 1);
      if (delivery) batch.push(delivery);
    }
    const ids = batch.map(() => randomUUID());
    const event: SQSEvent = {
      Records: batch.map((delivery, index) => {
        delivery.receiveCount += 1;
        return {
          messageId: ids[index] ?? '',
          receiptHandle: randomUUID(),
          body: delivery.published.body,
          attributes: {
            ApproximateReceiveCount: String(delivery.receiveCount),
            SentTimestamp: String(model.now),
            SenderId: '000000000000',
            ApproximateFirstReceiveTimestamp: String(model.now),
          },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:local:000000000000:model',
          awsRegion: 'local',
        };
      }),
    };
    const response = await consumer(event, lambdaContext);
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    const erasedInBatch = new Set(
      batch.flatMap(({ published: { event, poison } }) =>
        !poison && event.type === 'HostErasureRequested'
          ? model.hosts.filter((host) => host.id === event.detail.host_user_id && !host.erased)
          : [],
      ),
    );
    batch.forEach((delivery, index) => {
      if (failed.has(ids[index] ?? '')) model.pending.push(delivery);
      else handleInModel(model, delivery.published, erasedInBatch);
    });
    tally.delivered += batch.length;
    await checkInvariants(model, real);
  }
  toString = () => `deliver ${this.picks.length}`;
}

/** The host opens a new activation link of a partner that sponsored it, for one of its properties. */
class ActivateAgain implements Command {
  constructor(
    readonly property: number,
    readonly products: readonly number[],
  ) {}
  check = (model: Readonly<Model>) => model.properties.some((p) => !p.host.erased);
  async run(model: Model, real: Real) {
    const property = pick(
      model.properties.filter((p) => !p.host.erased),
      this.property,
    );
    const products = [...new Set(this.products.map((index) => pick(property.partner.agreement, index)))];
    const result = await provisionSponsoredHost({
      partnerId: property.partner.id,
      contactEmail: property.host.email,
      contactName: property.host.name,
      pmsHotelId: property.pmsHotelId,
      propertyName: property.initialName,
      productIds: products,
      nowMs: model.now,
    });
    expect(result).toMatchObject({ hostUserId: property.host.id, propertyId: property.id });
    for (const product of products) property.chosenAt.set(product, model.now);
    const sponsorship = sponsorshipOf(model, property);
    if (sponsorship) sponsorship.lastProvisionedAt = model.now;
    await checkInvariants(model, real);
  }
  toString = () => `activate again(property ${this.property})`;
}

class AdvanceClock implements Command {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    model.now += this.ms;
    vi.setSystemTime(model.now);
    await checkInvariants(model, real);
  }
  toString = () => `clock +${this.ms / MINUTE} min`;
}

/** DynamoDB's TTL: every item whose `ttl` has passed may be gone at any time after. */
class TtlSweep implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await sweepExpired(MODEL_TABLE, model.now);
    await checkInvariants(model, real);
  }
  toString = () => 'TTL sweep';
}

/** A page of GET /properties?limit=2, continuing the walk in progress: it never shows what is not the partner's. */
class WalkPage implements Command {
  constructor(readonly partner: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const partner = pick(model.partners, this.partner);
    const query = partner.walk
      ? Object.fromEntries(new URLSearchParams(partner.walk.next.split('?')[1] ?? '').entries())
      : { limit: '2' };
    const page = await callApi(propertiesHandler as ApiHandler, partner, {
      path: '/partner-api/v1/properties',
      resource: '/partner-api/v1/properties',
      query: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    });
    expect(page.status).toBe(200);
    const ids = (page.json.properties as { id: number }[]).map((property) => property.id);
    const visible = model.properties.filter((p) => visibleTo(model, p, partner)).map((p) => p.id);
    for (const id of ids) expect(visible, `page of ${partner.label}`).toContain(id);
    if (partner.walk) for (const id of ids) expect(id).toBeGreaterThan(partner.walk.lastId);
    const link = /<([^>]+)>; rel="next"/.exec(String(page.headers.Link ?? ''))?.[1];
    partner.walk = link ? { next: link, lastId: ids.at(-1) ?? 0 } : undefined;
    tally.walks += 1;
    await checkInvariants(model, real, { changed: false });
  }
  toString = () => `walk a page(${this.partner})`;
}

const times = <T>(count: number, arbitrary: fc.Arbitrary<T>) =>
  Array.from({ length: count }, () => arbitrary);

const commands = [
  ...times(
    2,
    fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([p, product, on]) => new SeatChange(p, product, on)),
  ),
  fc
    .tuple(
      fc.nat(),
      fc.option(fc.nat(), { nil: undefined }),
      fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    )
    .map(([p, name, units]) => new PropertyChange(p, name, units)),
  fc.nat().map((s) => new EndSponsorship(s)),
  ...times(
    2,
    fc
      .tuple(
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(),
        fc.boolean(),
      )
      .map(
        ([p, r, ago, lead, nights, channel, cancelled]) =>
          new ReservationChange(p, r, ago, lead, nights, channel, cancelled),
      ),
  ),
  fc.nat().map((h) => new Erasure(h)),
  fc.tuple(fc.nat(), fc.nat()).map(([kind, target]) => new Poison(kind, target)),
  fc.nat().map((i) => new Duplicate(i)),
  ...times(
    4,
    fc.array(fc.nat(), { minLength: 1, maxLength: 10 }).map((picks) => new Deliver(picks)),
  ),
  fc
    .tuple(fc.nat(), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }))
    .map(([p, products]) => new ActivateAgain(p, products)),
  fc
    .oneof(fc.constantFrom(MINUTE, 61 * MINUTE, DAY, 15 * DAY), fc.integer({ min: 1_000, max: 3 * DAY }))
    .map((ms) => new AdvanceClock(ms)),
  fc.constant(new TtlSweep()),
  fc.nat().map((p) => new WalkPage(p)),
];

// --- A stream ---------------------------------------------------------------------------------

async function approve(
  label: 'A' | 'B',
  agreement: readonly Product[],
  nowMs: number,
): Promise<ModelPartner> {
  return { label, id: await modelPartner(`model-${label.toLowerCase()}`, agreement, nowMs), agreement };
}

/**
 * The start of every stream: partner A (three products) and B (two); host 0 sponsored by both
 * (two properties with A, one with B), host 1 by A, host 2 by B.
 */
async function startingState(run: number, nowMs: number): Promise<Model> {
  const a = await approve('A', ['assistant', 'upsells', 'guidebook'], nowMs);
  const b = await approve('B', ['assistant', 'guidebook'], nowMs);
  const hosts: ModelHost[] = [0, 1, 2].map((index) => ({
    index,
    email: `host-${index}-${run}-${randomBytes(3).toString('hex')}@model.example`,
    name: `Model Host ${index} ${run} ${randomBytes(3).toString('hex')}`,
    id: 0,
    erased: false,
  }));
  const layout: [ModelPartner, number, Product[]][] = [
    [a, 0, ['assistant', 'upsells']],
    [a, 0, ['assistant']],
    [b, 0, ['guidebook']],
    [a, 1, ['assistant']],
    [b, 2, ['assistant', 'guidebook']],
  ];
  const properties: ModelProperty[] = [];
  for (const [index, [partner, hostIndex, products]] of layout.entries()) {
    const host = hosts[hostIndex] as ModelHost;
    const property = {
      index,
      partner,
      host,
      pmsHotelId: `M-${run}-${index}`,
      initialName: `Model Property ${index} ${run} ${randomBytes(3).toString('hex')}`,
      id: 0,
      chosenAt: new Map(products.map((product) => [product, nowMs] as const)),
    };
    const result = await provisionSponsoredHost({
      partnerId: partner.id,
      contactEmail: host.email,
      contactName: host.name,
      pmsHotelId: property.pmsHotelId,
      propertyName: property.initialName,
      productIds: products,
      nowMs,
    });
    host.id = result.hostUserId;
    property.id = result.propertyId;
    properties.push(property);
  }
  const sponsorships: ModelSponsorship[] = [
    [a, 0],
    [b, 0],
    [a, 1],
    [b, 2],
  ].map(([partner, hostIndex]) => ({
    partner: partner as ModelPartner,
    host: hosts[hostIndex as number] as ModelHost,
    lastProvisionedAt: nowMs,
  }));
  return {
    now: nowMs,
    run,
    partners: [a, b],
    hosts,
    properties,
    sponsorships,
    published: [],
    pending: [],
    applied: new Map(),
    expectedDeadLetters: [],
    mayDeadLetter: [],
    versions: new Map(),
  };
}

const sqs = mockClient(SQSClient);
let runs = 0;

async function runStream(startOffsetMs: number, stream: Iterable<Command>) {
  const now = MODEL_EPOCH + startOffsetMs;
  vi.setSystemTime(now);
  runs += 1;
  await dynamoDb().send(new DeleteTableCommand({ TableName: MODEL_TABLE }));
  await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE, { stream: false })));
  const real: Real = { deadLetters: [] };
  sqs.reset();
  sqs
    .on(SendMessageCommand)
    .callsFake(
      (input: { MessageBody?: string; MessageAttributes?: Record<string, { StringValue?: string }> }) => {
        // Every dead letter says why.
        const reason = input.MessageAttributes?.reason?.StringValue ?? '';
        expect(reason).toMatch(/\S/);
        real.deadLetters.push({ id: JSON.parse(input.MessageBody ?? '{}').id, reason });
        return { MessageId: randomUUID() };
      },
    );
  const model = await startingState(runs, now);
  await checkInvariants(model, real);
  await fc.asyncModelRun(() => ({ model, real }), stream);
  // Everything still waiting is delivered at last, one at a time, and the model still holds.
  while (model.pending.length > 0) await new Deliver([0]).run(model, real);
  tally.runs += 1;
  tally.erasures += model.hosts.filter((host) => host.erased).length;
  tally.deadLettered += model.expectedDeadLetters.length;
}

describe('the platform’s events (model-based)', () => {
  beforeAll(async () => {
    useServiceEnvironment({
      ...inject('localEnvironment'),
      TABLE_NAME: MODEL_TABLE,
      [queueUrlVariable('platformEventsDeadLetter')]: 'https://sqs.local/000000000000/model-dead-letters',
      [secretArnVariable('cursor')]: inject('secretArns').cursor ?? '',
    });
    await dynamoDb().send(new CreateTableCommand(createTableInput(MODEL_TABLE, { stream: false })));
    // Loaded while the clock is true: the suite's AWS endpoint refuses signatures 15 minutes off.
    await loadServiceKey('cursor');
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(async () => {
    vi.useRealTimers();
    sqs.restore();
    console.log(
      `Event model: ${tally.runs} streams, ${tally.steps} steps checked (${tally.delivered} deliveries, ${tally.deadLettered} dead-lettered, ${tally.erasures} hosts erased, ${tally.walks} pages walked).`,
    );
  });

  it('matches the model after every step, for random streams delivered in any order, any number of times', async () => {
    const runsWanted = Number(process.env.MODEL_RUNS ?? 30);
    const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 365 * DAY }),
        fc.commands(commands, { size: 'max', maxCommands: 30 }),
        async (startOffsetMs, stream) => {
          await runStream(startOffsetMs, stream);
        },
      ),
      { numRuns: runsWanted, ...(seed === undefined ? {} : { seed }), endOnFailure: false },
    );
  }, 1_800_000);

  it('keeps a host that came back through a link when its older ending arrives late (a stream the model pins down)', async () => {
    await runStream(0, [
      new EndSponsorship(0),
      new AdvanceClock(MINUTE),
      new ActivateAgain(0, [0]),
      new Deliver([0]),
      new SeatChange(0, 1, false),
      new AdvanceClock(MINUTE),
      new ActivateAgain(0, [1]),
      new Deliver([0]),
    ]);
  });
});
