import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { TooManyChannelsError } from '../../core/domain/reservations';
import { RefusedEventError } from '../../lambdas/data/event-versions';
import { planReservationImport } from '../../lambdas/data/reservations/import-plan';
import { readStoredAggregates } from '../../lambdas/data/reservations/stored';
import { applyPlatformEvent, applyReservationEvents } from '../../lambdas/events/apply-event';
import { importEvents } from '../../operations/reservations';
import { aggregatesOfProperty } from '../support/aggregates';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/*
 * The aggregates of a property always equal what its stored reservations make (docs/design/pricing-signals.md,
 * "How the window is read"): random histories of `ReservationChanged` (new reservations, changes
 * of dates, channel and status, cancellations, in the platform's and the operators' sequences of
 * versions, duplicated, out of order, disagreeing at one version, over the channel cap) go through
 * the real paths on DynamoDB Local: the consumer's one event at a time (`applyPlatformEvent`) and a
 * property's batch (`applyReservationEvents`), two batches racing as two instances would, and an
 * operator's import (`planReservationImport`, then its events through the consumer). After every
 * step, the stored aggregate items with their counters at 0 left out equal `aggregatesOf` the
 * stored reservations, exactly. RESERVATION_RUNS (default 25) sets how many histories.
 */

const IDS = ['R0', 'R1', 'R2', 'R3'] as const;
const FEW_CHANNELS = ['Airbnb', 'Direct', 'Vrbo'] as const;
/** More channels than a month may hold, for histories that meet the channel cap. */
const MANY_CHANNELS = Array.from({ length: 24 }, (_, index) => `Channel ${index}`);
const FIRST_DAY = Date.UTC(2026, 0, 1) / DAY_MS;

/** One version of a reservation as drawn: what it says (one in five cancelled). */
const draft = fc.record({
  id: fc.constantFrom(...IDS),
  channel: fc.nat(),
  bookedDay: fc.nat({ max: 27 }),
  lead: fc.integer({ min: -3, max: 45 }),
  nights: fc.integer({ min: 1, max: 40 }),
  cancelled: fc.nat({ max: 4 }).map((draw) => draw === 0),
});
type Draft = typeof draft extends fc.Arbitrary<infer T> ? T : never;

const HOW = ['one at a time', 'one batch', 'two batches racing', 'an import'] as const;
/**
 * A step: which of the events published so far (by index, any number of times) are delivered, and
 * how; or, for an import, which drafts are the rows of its file.
 */
const step = fc.record({
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
  how: fc.constantFrom(...HOW),
});

const history = fc.record({
  manyChannels: fc.boolean(),
  // The months the bookings fall in: one (every booking in one month, for the channel cap) or two.
  months: fc.constantFrom(1, 2),
  drafts: fc.array(draft, { minLength: 1, maxLength: 30 }),
  disagreeing: fc.array(fc.nat(), { maxLength: 2 }),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
});
type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

/**
 * A history that meets the channel cap, run before the random ones: one booking a day of one
 * month, each on a channel of its own, delivered one at a time (the 20th channel is refused), then
 * imported again (refused before anything is sent).
 */
const MEETS_THE_CAP: History = {
  manyChannels: true,
  months: 1,
  drafts: Array.from({ length: 22 }, (_, day) => ({
    id: IDS[day % IDS.length] as (typeof IDS)[number],
    channel: 0,
    bookedDay: day,
    lead: 5,
    nights: 2,
    cancelled: false,
  })),
  disagreeing: [],
  steps: [
    { picks: Array.from({ length: 22 }, (_, index) => index), how: 'one at a time' },
    { picks: [19, 20, 21], how: 'an import' },
  ],
};

/** The reservation a draft says; with many channels, each draft books a channel of its own. */
function reservationOf(propertyId: number, history: History, index: number): Reservation {
  const drawn = history.drafts[index % history.drafts.length] as Draft;
  const channel = history.manyChannels
    ? MANY_CHANNELS[index % MANY_CHANNELS.length]
    : FEW_CHANNELS[drawn.channel % FEW_CHANNELS.length];
  const booked = FIRST_DAY + drawn.bookedDay * history.months;
  return {
    id: drawn.id,
    property_id: propertyId,
    channel: channel as string,
    booked_at: new Date(booked * DAY_MS + 9 * 3_600_000).toISOString(),
    check_in: isoDate(booked + drawn.lead),
    check_out: isoDate(booked + drawn.lead + drawn.nights),
    status: drawn.cancelled ? 'cancelled' : 'confirmed',
  };
}

/**
 * The platform's events: each draft at the next version of its reservation. The operators'
 * sequence has one writer, the import, whose events join these as it publishes them.
 */
function publishedEvents(propertyId: number, drawn: History): PlatformEvent<'ReservationChanged'>[] {
  const versions = new Map<string, number>();
  const events = drawn.drafts.map((version, index): PlatformEvent<'ReservationChanged'> => {
    versions.set(version.id, (versions.get(version.id) ?? 0) + 1);
    const { property_id, ...reservation } = reservationOf(propertyId, drawn, index);
    return {
      type: 'ReservationChanged',
      detail: { property_id, version: versions.get(version.id) ?? 1, reservation },
    };
  });
  // Another event at the version of one already published, saying something else: refused when
  // its version is the one stored, a duplicate or an older version otherwise.
  for (const index of drawn.disagreeing) {
    const original = events[index % events.length] as PlatformEvent<'ReservationChanged'>;
    const { reservation } = original.detail;
    events.push({
      ...original,
      detail: { ...original.detail, reservation: { ...reservation, channel: 'Disagreeing' } },
    });
  }
  return events;
}

const tally = { histories: 0, steps: 0, refused: 0, overCap: 0, withConfirmed: 0 };

/** What a queue does with a delivery that failed for a reason other than the event: delivers it again. */
async function deliveredAgainOnFailure<T>(deliver: () => Promise<T>): Promise<T> {
  try {
    return await deliver();
  } catch (error) {
    if (error instanceof RefusedEventError) throw error;
    return deliver();
  }
}

/** One event alone, as the consumer applies an event that is the only one of its property in a batch. */
async function applyAlone(event: PlatformEvent<'ReservationChanged'>): Promise<void> {
  try {
    await deliveredAgainOnFailure(() => applyPlatformEvent(event, Date.now(), Date.now() + 60_000));
  } catch (error) {
    if (!(error instanceof RefusedEventError)) throw error;
    tally.refused += 1;
    if (error.message.includes('booking channels')) tally.overCap += 1;
  }
}

async function applyBatch(events: PlatformEvent<'ReservationChanged'>[], propertyId: number): Promise<void> {
  const results = await deliveredAgainOnFailure(() => applyReservationEvents(events, propertyId, Date.now()));
  for (const result of results)
    if (result instanceof RefusedEventError) {
      tally.refused += 1;
      if (result.message.includes('booking channels')) tally.overCap += 1;
    }
}

/**
 * An operator's import of these rows (the last of each id, as a file holds each id once): its plan
 * from what is stored, then its events, published (they may be delivered again later) and applied.
 */
async function applyImport(
  rows: Reservation[],
  propertyId: number,
  published: PlatformEvent<'ReservationChanged'>[],
): Promise<void> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  try {
    const events = importEvents(await planReservationImport(propertyId, [...byId.values()]));
    published.push(...events);
    if (events.length > 0) await applyBatch(events, propertyId);
  } catch (error) {
    if (!(error instanceof TooManyChannelsError)) throw error;
    tally.overCap += 1;
  }
}

async function deliver(
  propertyId: number,
  drawn: History,
  events: PlatformEvent<'ReservationChanged'>[],
  { picks, how }: History['steps'][number],
): Promise<void> {
  const picked = picks.map((index) => events[index % events.length] as PlatformEvent<'ReservationChanged'>);
  if (how === 'one at a time') for (const event of picked) await applyAlone(event);
  else if (how === 'one batch') await applyBatch(picked, propertyId);
  else if (how === 'two batches racing') {
    const half = Math.ceil(picked.length / 2);
    await Promise.all([
      applyBatch(picked.slice(0, half), propertyId),
      applyBatch(picked.slice(half), propertyId),
    ]);
  } else
    await applyImport(
      picks.map((index) => reservationOf(propertyId, drawn, index)),
      propertyId,
      events,
    );
}

async function expectAggregatesOfStoredReservations(propertyId: number, after: string): Promise<void> {
  const { stored, ofReservations } = await aggregatesOfProperty(propertyId);
  expect(stored, after).toEqual(ofReservations);
}

let partner: TestPartner;

beforeAll(async () => {
  partner = await approvedPartner();
});

afterAll(() => {
  console.log(
    `Reservation aggregates: ${tally.histories} histories, ${tally.steps} steps, ${tally.refused} events refused (${tally.overCap} over the channel cap), ${tally.withConfirmed} ending with confirmed reservations.`,
  );
});

describe('the aggregates of a property’s reservations (property-based, DynamoDB Local)', () => {
  it('equal aggregatesOf its stored reservations after every step of any history', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (drawn) => {
        const { propertyId } = await sponsoredProperty(partner.id);
        const events = publishedEvents(propertyId, drawn);
        for (const [index, delivery] of drawn.steps.entries()) {
          await deliver(propertyId, drawn, events, delivery);
          await expectAggregatesOfStoredReservations(propertyId, `after step ${index + 1} (${delivery.how})`);
          tally.steps += 1;
        }
        tally.histories += 1;
        const { reservations } = await readStoredAggregates(propertyId);
        if (reservations.some((reservation) => reservation.status === 'confirmed')) tally.withConfirmed += 1;
      }),
      {
        numRuns: Number(process.env.RESERVATION_RUNS ?? 25),
        examples: [[MEETS_THE_CAP]],
        endOnFailure: true,
      },
    );
    // The histories reached what the property is about: counters moved, and the channel cap met.
    expect(tally.withConfirmed).toBeGreaterThan(0);
    expect(tally.overCap).toBeGreaterThan(0);
  }, 900_000);
});
