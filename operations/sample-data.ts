import type { PlatformEvent } from '../core/contract/platform-events';
import { DAY_MS, dayOfTimestamp, isoDate } from '../core/domain/calendar';
import type { ProductId } from '../core/domain/catalog';
import type { Reservation } from '../core/domain/reservations';
import { EVENT_BATCH_SIZE } from '../core/event-delivery';
import { seededRandom } from '../core/seeded-random';
import type { Partner } from '../lambdas/data/partners';
import { getPropertyOfPartner } from '../lambdas/data/properties';
import { provisionSponsoredHost } from '../lambdas/data/provisioning';
import { planReservationImport } from '../lambdas/data/reservations/import-plan';
import { publishPlatformEvents } from './events';
import { importEvents, setImportedUnits } from './reservations';

/**
 * Realistic sample data for a partner: sponsored hosts with properties of several units and
 * five months of reservations over several channels, so the endpoints answer with interesting numbers
 * on the first call. `npm start` seeds its demo partners with it; sandbox approvals too.
 */

const CHANNELS: readonly [string, number][] = [
  ['Airbnb', 0.38],
  ['Booking.com', 0.3],
  ['Direct', 0.17],
  ['Vrbo', 0.1],
  ['Expedia', 0.05],
];

function pick(next: () => number): string {
  let roll = next();
  for (const [channel, weight] of CHANNELS) {
    roll -= weight;
    if (roll <= 0) return channel;
  }
  return 'Direct';
}

/**
 * Nights of sample stays: five months back (the default lookback of 90 days, and more) and three
 * ahead (the 30 nights of occupancy, and bookings made for later). Each stay is one event (an
 * import's) when it is seeded, and DynamoDB Local applies about a hundred a second: the span is what
 * `npm start` waits for.
 */
const SAMPLE_HISTORY_DAYS = 150;
const SAMPLE_AHEAD_DAYS = 90;

/**
 * Five months of history and three ahead for one property: per unit, a run of stays that never
 * overlap, booked 0-120 days ahead on weighted channels, about 8% later cancelled.
 */
function demoReservations(propertyId: number, units: number, nowMs: number, seed: number): Reservation[] {
  const next = seededRandom(seed);
  const today = dayOfTimestamp(nowMs);
  const reservations: Reservation[] = [];
  for (let unit = 0; unit < units; unit++) {
    let night = today - SAMPLE_HISTORY_DAYS + Math.floor(next() * 5);
    while (night < today + SAMPLE_AHEAD_DAYS) {
      const stay = 1 + Math.floor(next() * 7);
      const lead = Math.floor(next() ** 2 * 120);
      const bookedAtMs = (night - lead) * DAY_MS + Math.floor(next() * DAY_MS);
      if (bookedAtMs <= nowMs) {
        reservations.push({
          id: `demo-${propertyId}-${unit}-${night}`,
          property_id: propertyId,
          channel: pick(next),
          booked_at: new Date(bookedAtMs).toISOString(),
          check_in: isoDate(night),
          check_out: isoDate(night + stay),
          status: next() < 0.08 ? 'cancelled' : 'confirmed',
        });
      }
      night += stay + Math.floor(next() * 4);
    }
  }
  return reservations;
}

export interface SampleHost {
  readonly email: string;
  readonly name: string;
  readonly properties: readonly {
    pmsHotelId: string;
    name: string;
    units: number;
    products: readonly ProductId[];
  }[];
}

export const SAMPLE_HOSTS: readonly SampleHost[] = [
  {
    email: 'marta@seaside-stays.example',
    name: 'Seaside Stays',
    properties: [
      {
        pmsHotelId: 'PMS-1001',
        name: 'Seaside Loft',
        units: 1,
        products: ['assistant', 'upsells', 'checkin'],
      },
      {
        pmsHotelId: 'PMS-1002',
        name: 'Harbour View Apartments',
        units: 4,
        products: ['assistant', 'guidebook'],
      },
    ],
  },
  {
    email: 'jonas@alpine-huts.example',
    name: 'Alpine Huts',
    properties: [
      {
        pmsHotelId: 'PMS-2001',
        name: 'Alpine Hut No. 7',
        units: 2,
        products: ['assistant', 'upsells', 'guidebook', 'checkin'],
      },
    ],
  },
  {
    email: 'amara@city-rooms.example',
    name: 'City Rooms',
    properties: [
      { pmsHotelId: 'PMS-3001', name: 'City Rooms Central', units: 3, products: ['assistant'] },
      {
        pmsHotelId: 'PMS-3002',
        name: 'City Rooms Riverside',
        units: 2,
        products: ['assistant', 'checkin'],
      },
    ],
  },
];

/** The sample hosts with addresses of their own for a partner (host accounts are unique by e-mail). */
export function sampleHostsFor(partnerSlug: string): SampleHost[] {
  return SAMPLE_HOSTS.map((host) => ({ ...host, email: host.email.replace('@', `+${partnerSlug}@`) }));
}

/**
 * The lists' items taken in turn, a batch's worth from each: a consumer's batch then holds one
 * property's events, applied one after the other, while the batches of other properties are
 * applied beside it (two transactions on one property's month aggregates at once would only
 * cancel each other and retry).
 */
function interleaved<T>(lists: readonly (readonly T[])[]): T[] {
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const rounds = Array.from({ length: Math.ceil(longest / EVENT_BATCH_SIZE) }, (_, round) =>
    lists.flatMap((list) => list.slice(round * EVENT_BATCH_SIZE, (round + 1) * EVENT_BATCH_SIZE)),
  );
  return rounds.flat();
}

/**
 * Sponsors the hosts for a partner (only with products of its agreement), then gives each property
 * its units and five months of reservations as `reservations import` does: the units written on the
 * property, the reservations sent as the operators' own events, which apply within seconds through
 * the same consumer. Idempotent: same hosts, same properties, same reservations (what is stored
 * already is not sent again).
 */
export async function sponsorSampleHosts(
  partner: Partner,
  hosts: readonly SampleHost[],
  nowMs: number,
  /** When the hosts joined (the demo's are older than any event a reader sends). @default nowMs */
  sponsoredSinceMs = nowMs,
): Promise<{ properties: number; reservations: number }> {
  let properties = 0;
  let reservations = 0;
  const events: PlatformEvent[][] = [];
  for (const [hostIndex, host] of hosts.entries()) {
    for (const [propertyIndex, property] of host.properties.entries()) {
      const productIds = property.products.filter((product) => partner.products.includes(product));
      const { propertyId } = await provisionSponsoredHost({
        partnerId: partner.id,
        contactEmail: host.email,
        contactName: host.name,
        pmsHotelId: property.pmsHotelId,
        propertyName: property.name,
        productIds: productIds.length > 0 ? productIds : partner.products.slice(0, 1),
        nowMs: sponsoredSinceMs,
      });
      const stored = await getPropertyOfPartner(partner.id, propertyId, {
        consistent: true,
        includeEnded: true,
      });
      const sample = demoReservations(
        propertyId,
        property.units,
        nowMs,
        partner.id * 1_000 + hostIndex * 97 + propertyIndex,
      );
      const plan = await planReservationImport(propertyId, sample);
      if (stored?.units !== property.units)
        await setImportedUnits({ id: propertyId, partnerId: partner.id }, property.units);
      events.push(importEvents(plan));
      properties += 1;
      reservations += sample.length;
    }
  }
  await publishPlatformEvents(interleaved(events));
  return { properties, reservations };
}
