import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { expect, vi } from 'vitest';
import { handler as propertiesHandler } from '../../../lambdas/api/properties';
import { provisionSponsoredHost } from '../../../lambdas/data/provisioning';
import { handler as consumer } from '../../../lambdas/events/consumer';
import { lambdaContext } from '../events';
import { sweepExpired } from '../scan';
import { publish } from './entity-commands';
import { type ApiHandler, callApi, checkInvariants, tally, visibleTo } from './invariants';
import {
  type Command,
  type Delivery,
  handleInModel,
  isoSeconds,
  MINUTE,
  MODEL_TABLE,
  type Model,
  pick,
  type Real,
  sponsorshipOf,
} from './model';

/*
 * How the model's events reach the consumer (poison, duplicates, batches in any order), and what else
 * happens meanwhile: re-activations, the clock, TTL sweeps and partners walking their pages.
 */

const POISONS = [
  'broken contract',
  'unknown property',
  'unknown sponsorship',
  'unknown host',
  'disagreeing version',
] as const;

export class Poison implements Command {
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
export class Duplicate implements Command {
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
export class Deliver implements Command {
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
export class ActivateAgain implements Command {
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

export class AdvanceClock implements Command {
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
export class TtlSweep implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await sweepExpired(MODEL_TABLE, model.now);
    await checkInvariants(model, real);
  }
  toString = () => 'TTL sweep';
}

/** A page of GET /properties?limit=2, continuing the walk in progress: it never shows what is not the partner's. */
export class WalkPage implements Command {
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
