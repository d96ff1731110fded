import { expect } from 'vitest';
import type { PlatformEvent } from '../../../core/contract/platform-events';
import type { OutboundEvent } from '../../../emulator/outbound-pipe';
import { applyPlatformEvent } from '../../../lambdas/events/apply-event';
import { sweepExpired } from '../scan';
import { checkInvariants, checkPlatformMatches, personalWordsOf } from './invariants';
import {
  applyToPlatform,
  type Command,
  DAY,
  expectEvent,
  hasLivingProperty,
  livingProperty,
  MINUTE,
  MODEL_TABLE,
  type Model,
  pick,
  type Real,
  tally,
  tick,
} from './model';

/*
 * The platform's own changes in the outbound events model, the pipe that reads the stream and delivers
 * to it, the clock and DynamoDB's TTL.
 */

/** The platform switches a product of a property on or off (its own event, applied by the consumer). */
export class PlatformSeat implements Command {
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
export class EndSponsorship implements Command {
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
export class Erase implements Command {
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

export class Fetch implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await fetchFromPipe(real);
    await checkInvariants(model, real);
  }
  toString = () => 'the pipe reads the stream';
}

/** Some of what is on the wire reaches the platform, in any order; some of it again later (a duplicate). */
export class Deliver implements Command {
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
export class Settle implements Command {
  constructor(readonly order: readonly number[]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await settle(model, real, this.order);
  }
  toString = () => 'settle';
}

export async function settle(model: Model, real: Real, order: readonly number[]): Promise<void> {
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

export class AdvanceClock implements Command {
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
export class TtlSweep implements Command {
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
