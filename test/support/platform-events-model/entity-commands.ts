import { randomUUID } from 'node:crypto';
import type { PlatformEvent } from '../../../core/contract/platform-events';
import { checkInvariants } from './invariants';
import {
  CHANNELS,
  type Command,
  DAY,
  entityOf,
  isoSeconds,
  type Model,
  NAMES,
  nextVersion,
  PRODUCTS,
  type Published,
  pick,
  propertyEntity,
  type Real,
  reservationEntity,
  seatEntity,
  sponsorshipEntity,
} from './model';

/*
 * The platform's changes the model publishes: seats, properties, sponsorships ending, reservations and
 * erasures.
 */

export function publish(model: Model, event: PlatformEvent, poison?: Published['poison']): void {
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

export class SeatChange implements Command {
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

export class PropertyChange implements Command {
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

export class EndSponsorship implements Command {
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

export class ReservationChange implements Command {
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

export class Erasure implements Command {
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
