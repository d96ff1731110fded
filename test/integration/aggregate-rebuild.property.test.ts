import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { propertyPartition } from '../../core/partitions';
import { rebuildPropertyAggregates } from '../../lambdas/data/aggregate-rebuild';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import type { ReservationEvent } from '../../lambdas/data/reservations/apply';
import { applyReservationChanges } from '../../lambdas/data/reservations/apply';
import { aggregatesOfProperty } from '../support/aggregates';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/*
 * The rebuild of migration 0001 (lambdas/data/aggregate-rebuild.ts) against the events that keep the
 * aggregates: for any history of ReservationChanged events (out of order, repeated, disagreeing,
 * cancelled), applied in any batches through the consumer's own code, then any damage to the stored
 * aggregate items, a rebuild from the stored reservations gives back exactly the aggregates the
 * events made; and a rebuild racing the history's last batch leaves aggregates that agree with the
 * reservations stored. Each run on a property of its own, on the suite's DynamoDB Local.
 */

const CHANNELS = ['Direct', 'Airbnb', 'Booking.com', 'Ve€ry long name'] as const;
const TODAY = Math.floor(Date.now() / DAY_MS);

const row = fc.record({
  reservation: fc.integer({ min: 1, max: 5 }),
  version: fc.integer({ min: 1, max: 6 }),
  bookedDaysAgo: fc.integer({ min: 0, max: 70 }),
  leadDays: fc.integer({ min: -3, max: 40 }),
  nights: fc.integer({ min: 1, max: 9 }),
  channel: fc.constantFrom(...CHANNELS),
  cancelled: fc.boolean(),
});
type Row = typeof row extends fc.Arbitrary<infer T> ? T : never;

/** Damage to stored aggregates: an item lost, a counter off, a counter that no reservation makes. */
type Harm =
  | { readonly kind: 'lose'; readonly pick: number }
  | { readonly kind: 'bump'; readonly pick: number; readonly by: number }
  | { readonly kind: 'stray'; readonly pick: number; readonly day: number };
const damage: fc.Arbitrary<Harm[]> = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('lose' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('bump' as const), pick: fc.nat(), by: fc.constantFrom(-2, -1, 1, 3) }),
    fc.record({ kind: fc.constant('stray' as const), pick: fc.nat(), day: fc.integer({ min: 1, max: 28 }) }),
  ),
  { maxLength: 4 },
);

function eventOf(propertyId: number, input: Row, index: number): ReservationEvent {
  const booked = (TODAY - input.bookedDaysAgo) * DAY_MS + 9 * 3_600_000 + input.reservation * 60_000;
  const checkIn = TODAY - input.bookedDaysAgo + input.leadDays;
  const reservation: Reservation = {
    id: `r${input.reservation}`,
    property_id: propertyId,
    channel: input.channel,
    booked_at: new Date(booked).toISOString(),
    check_in: isoDate(checkIn),
    check_out: isoDate(checkIn + input.nights),
    status: input.cancelled ? 'cancelled' : 'confirmed',
  };
  return {
    detail: { property_id: propertyId, version: input.version, reservation },
    fingerprint: `${index}:${JSON.stringify(reservation)}`,
  };
}

async function partition(propertyId: number): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': propertyPartition(propertyId) },
      ConsistentRead: true,
    }),
  );
  return Items;
}

const isAggregate = (item: Record<string, unknown>) => /^(BOOKED|NIGHTS)#/.test(String(item.SK));

const storedAggregates = async (propertyId: number) => (await aggregatesOfProperty(propertyId)).stored;
const aggregatesOfStoredReservations = async (propertyId: number) =>
  (await aggregatesOfProperty(propertyId)).ofReservations;

async function applyInBatches(
  propertyId: number,
  events: readonly ReservationEvent[],
  cuts: readonly number[],
) {
  let start = 0;
  for (const cut of [...cuts, events.length]) {
    const end = Math.min(events.length, Math.max(start, cut));
    if (end > start)
      await applyReservationChanges(events.slice(start, end), propertyId, new Date().toISOString());
    start = end;
  }
}

/** The counter a harm changes: one the item has, or, for a stray one, a day's counter no reservation made. */
function counterOf(item: Record<string, unknown>, harm: Exclude<Harm, { kind: 'lose' }>): string | undefined {
  const booked = String(item.SK).startsWith('BOOKED#');
  if (harm.kind === 'stray')
    return `${booked ? 'c' : 'o'}${String(harm.day).padStart(2, '0')}${booked ? ':Ghost' : ''}`;
  const counters = Object.keys(item).filter((name) => typeof item[name] === 'number');
  return counters[harm.pick % Math.max(1, counters.length)];
}

async function damageAggregates(propertyId: number, harms: readonly Harm[]): Promise<void> {
  const items = (await partition(propertyId)).filter(isAggregate);
  for (const harm of harms) {
    const item = items[harm.pick % Math.max(1, items.length)];
    if (!item) return;
    const key = { PK: item.PK, SK: item.SK };
    if (harm.kind === 'lose') {
      await dynamoDb().send(new DeleteCommand({ TableName: tableName(), Key: key }));
      continue;
    }
    const counter = counterOf(item, harm);
    if (!counter) continue;
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD #counter :by',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':by': harm.kind === 'stray' ? 2 : harm.by },
      }),
    );
  }
}

let partner: TestPartner;
beforeAll(async () => {
  partner = await approvedPartner();
});

describe('rebuilding the aggregates from the stored reservations', () => {
  it('gives back exactly what applying the events made, after any damage', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 14 }),
        fc.array(fc.nat({ max: 14 }), { maxLength: 3 }),
        damage,
        async (rows, cuts, harms) => {
          const { propertyId } = await sponsoredProperty(partner.id);
          await applyInBatches(
            propertyId,
            rows.map((input, index) => eventOf(propertyId, input, index)),
            cuts,
          );
          const made = await storedAggregates(propertyId);
          expect(made).toEqual(await aggregatesOfStoredReservations(propertyId));
          await damageAggregates(propertyId, harms);
          const rebuilt = await rebuildPropertyAggregates(propertyId, false);
          expect(rebuilt.property).toBe('rebuilt');
          expect(await storedAggregates(propertyId)).toEqual(made);
          // Run again, it finds nothing to change.
          expect((await rebuildPropertyAggregates(propertyId, false)).fixes.size).toBe(0);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('racing the events, leaves aggregates that agree with the reservations stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 2, maxLength: 12 }), damage, async (rows, harms) => {
        const { propertyId } = await sponsoredProperty(partner.id);
        const events = rows.map((input, index) => eventOf(propertyId, input, index));
        const half = Math.ceil(events.length / 2);
        await applyReservationChanges(events.slice(0, half), propertyId, new Date().toISOString());
        await damageAggregates(propertyId, harms);
        await Promise.all([
          rebuildPropertyAggregates(propertyId, false),
          ...events
            .slice(half)
            .map((event) =>
              applyReservationChanges([event], propertyId, new Date().toISOString()).catch(() => undefined),
            ),
        ]);
        // Events the race refused (a reservation changed twice at once) come again, as the queue redelivers.
        await applyReservationChanges(events.slice(half), propertyId, new Date().toISOString());
        expect(await storedAggregates(propertyId)).toEqual(await aggregatesOfStoredReservations(propertyId));
      }),
      { numRuns: 8 },
    );
  });
});

describe('a booking and its cancellation between the rebuild’s reads', () => {
  it('cannot slip past the rebuild: its write is refused and the property read again', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const booking = (version: number, cancelled: boolean) =>
      eventOf(
        propertyId,
        { reservation: 1, version, bookedDaysAgo: 2, leadDays: 5, nights: 3, channel: 'Direct', cancelled },
        version,
      );
    // A busy property: the day's counters exist already, so the undo leaves them as they were read.
    await applyReservationChanges(
      [
        eventOf(
          propertyId,
          {
            reservation: 2,
            version: 1,
            bookedDaysAgo: 2,
            leadDays: 5,
            nights: 3,
            channel: 'Direct',
            cancelled: false,
          },
          0,
        ),
      ],
      propertyId,
      new Date().toISOString(),
    );
    await damageAggregates(propertyId, [{ kind: 'stray', pick: 0, day: 28 }]);
    // Between the aggregates' read and the reservations' read, a booking; between that read and the
    // write, its cancellation: the counters are back to what was read, the reservations are not.
    const client = dynamoDb();
    const send = client.send.bind(client);
    let step = 0;
    client.send = (async (command: { input?: { ExpressionAttributeValues?: Record<string, unknown> } }) => {
      const prefix = command.input?.ExpressionAttributeValues?.[':prefix'];
      const result = await send(command as never);
      if (prefix === 'NIGHTS#' && step === 0) {
        step = 1;
        await applyReservationChanges([booking(1, false)], propertyId, new Date().toISOString());
      } else if (prefix === 'RES#' && step === 1) {
        step = 2;
        await applyReservationChanges([booking(2, true)], propertyId, new Date().toISOString());
      }
      return result;
    }) as typeof client.send;
    try {
      await rebuildPropertyAggregates(propertyId, false);
    } finally {
      client.send = send;
    }
    expect(step).toBe(2);
    const { stored, ofReservations } = await aggregatesOfProperty(propertyId);
    expect(stored).toEqual(ofReservations);
  });
});
