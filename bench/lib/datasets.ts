import { randomBytes } from 'node:crypto';
import type { BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import type { Reservation } from '../../core/domain/reservations';
import { SCOPES } from '../../core/domain/scopes';

/*
 * Data sets of the scaling section, written into the service's DynamoDB Local through the data
 * modules (import this only after `useServiceTable`).
 */

/** A partner as `partners approve` would create it (profile, slug claim, sealed signing secret). */
export async function createBenchPartner(label: string, nowMs: number): Promise<number> {
  const { dynamoDb } = await import('../../lambdas/data/db');
  const { allocateId } = await import('../../lambdas/data/counters');
  const { partnerCreationItems } = await import('../../lambdas/data/partners');
  const { seal } = await import('../../lambdas/common/secret-box');
  const { loadServiceKey } = await import('../../lambdas/common/service-secrets');
  const sealingKey = await loadServiceKey('sealing');
  const id = await allocateId('partner');
  const slug = `bench-${label}-${randomBytes(3).toString('hex')}`;
  await dynamoDb().send(
    new TransactWriteCommand({
      TransactItems: partnerCreationItems(
        {
          id,
          slug,
          name: `Bench ${label}`,
          contactEmail: `api@${slug}.example`,
          products: ['assistant', 'upsells', 'guidebook', 'checkin'],
          scopes: [...SCOPES],
          revision: 0,
          keyPrefixes: [],
          createdAt: new Date(nowMs).toISOString(),
        },
        seal(randomBytes(32), sealingKey),
      ),
    }),
  );
  return id;
}

/**
 * A host sponsored by the partner through the real provisioning (an activation link's work): its
 * property, with the items the platform's events are applied to. Returns the property's id.
 */
export async function sponsoredProperty(
  partnerId: number,
  label: string,
  nowMs: number,
  productIds: readonly ProductId[] = ['assistant'],
): Promise<{ propertyId: number; hostUserId: number }> {
  const { provisionSponsoredHost } = await import('../../lambdas/data/provisioning');
  const { propertyId, hostUserId } = await provisionSponsoredHost({
    partnerId,
    contactEmail: `bench-${label}-${partnerId}@example.com`,
    contactName: `Bench ${label} host`,
    pmsHotelId: `BENCH-${label}-${partnerId}`,
    propertyName: `Bench ${label} property`,
    productIds: [...productIds],
    nowMs,
  });
  return { propertyId, hostUserId };
}

const BATCH_SIZE = 25;
const PARALLEL_BATCHES = 4;

/**
 * `count` properties of a partner, written directly (two items each: the property and its
 * `pms_hotel_id` claim, from `propertyCreationItems` without their conditions) with
 * BatchWriteItem, a few batches in flight. Ids start at `firstId` so they never meet the
 * counter's.
 */
export async function writeProperties(
  partnerId: number,
  count: number,
  firstId: number,
  nowMs: number,
  /** Also the `pms_hotel_id` claims (the list reads only the property items). @default true */
  { claims = true }: { claims?: boolean } = {},
): Promise<void> {
  const { dynamoDb, tableName } = await import('../../lambdas/data/db');
  const { propertyCreationItems } = await import('../../lambdas/data/properties');
  const { isTransientAwsError } = await import('../../lambdas/common/aws-errors');
  const createdAt = new Date(nowMs).toISOString();
  const items: Record<string, unknown>[] = [];
  for (let index = 0; index < count; index++) {
    for (const transactItem of propertyCreationItems({
      id: firstId + index,
      partnerId,
      hostUserId: 1,
      name: `Holiday apartment number ${index + 1}`,
      units: 1,
      pmsHotelId: `BENCH-${firstId + index}`,
      createdAt,
    })) {
      const item = transactItem.Put?.Item;
      if (item && (claims || String(item.SK).startsWith('PROPERTY#'))) items.push(item);
    }
  }
  let next = 0;
  async function writer(): Promise<void> {
    while (next < items.length) {
      const start = next;
      next += BATCH_SIZE;
      let requests = items.slice(start, start + BATCH_SIZE).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 10) throw new Error('BatchWriteItem kept returning unprocessed items');
        let output: BatchWriteCommandOutput;
        try {
          output = await dynamoDb().send(
            new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
          );
        } catch (error) {
          // Puts are idempotent: a batch that timed out on a loaded machine is sent again.
          if (!isTransientAwsError(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
          continue;
        }
        requests = (output.UnprocessedItems?.[tableName()] ?? []).flatMap((request) =>
          request.PutRequest?.Item ? [{ PutRequest: { Item: request.PutRequest.Item } }] : [],
        );
      }
    }
  }
  await Promise.all(Array.from({ length: PARALLEL_BATCHES }, writer));
}

const CHANNELS = ['Airbnb', 'Booking.com', 'Direct', 'Vrbo', 'Expedia'];
const HISTORY_DAYS = 3_650;
const DAY_MS = 86_400_000;

/**
 * Reservations `from` ≤ i < `to` of one deterministic history: reservation i is booked on day
 * today − (i × 2311 mod 3650), so any prefix of the sequence spreads evenly over ten years and
 * a larger data set is a smaller one plus more history. Sorted by booking time, as a PMS export
 * is (which lets an import batch many reservations per transaction). About 1 in 13 is cancelled.
 */
export function benchReservations(
  propertyId: number,
  from: number,
  to: number,
  nowMs: number,
): Reservation[] {
  const today = Math.floor(nowMs / DAY_MS);
  const reservations: Reservation[] = [];
  for (let index = from; index < to; index++) {
    const bookedDay = today - ((index * 2_311) % HISTORY_DAYS);
    const bookedAtMs = Math.min(nowMs - 60_000, bookedDay * DAY_MS + ((index * 7_919) % 86_400) * 1_000);
    const checkIn = bookedDay + (index % 90);
    const stay = 1 + (index % 7);
    reservations.push({
      id: `bench-${index}`,
      property_id: propertyId,
      channel: CHANNELS[index % CHANNELS.length] ?? 'Direct',
      booked_at: new Date(bookedAtMs).toISOString(),
      check_in: isoDate(checkIn),
      check_out: isoDate(checkIn + stay),
      status: index % 13 === 0 ? 'cancelled' : 'confirmed',
    });
  }
  return reservations.sort((a, b) => a.booked_at.localeCompare(b.booked_at));
}

function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
