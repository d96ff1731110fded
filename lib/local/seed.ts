import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyCreationItem, listApiKeysOfPartner, revokeApiKey } from '../../lambdas/data/api-keys';
import { putCatalog } from '../../lambdas/data/catalog';
import { allocateId } from '../../lambdas/data/counters';
import { documentClient } from '../../lambdas/data/db';
import type { Partner } from '../../lambdas/data/partners';
import { getPartnerBySlug, partnerCreationItems } from '../../lambdas/data/partners';
import { updateProperty } from '../../lambdas/data/properties';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { importReservations } from '../../lambdas/data/reservations';
import { apiKeyState, generateApiKey } from '../../lambdas/domain/api-key';
import { DAY_MS, dayOfTimestamp, isoDate } from '../../lambdas/domain/calendar';
import type { ProductId } from '../../lambdas/domain/catalog';
import { DEFAULT_CATALOG } from '../../lambdas/domain/catalog';
import type { Reservation } from '../../lambdas/domain/reservations';
import { scopesForAgreement } from '../../lambdas/domain/scopes';
import { seal } from '../../lambdas/shared/secret-box';
import { loadServiceSecrets } from '../../lambdas/shared/service-secrets';

/** Deterministic pseudo-random numbers (mulberry32), so every start seeds the same shapes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

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
 * A year of history and four months ahead for one property: per unit, a run of stays that
 * never overlap, booked 0-120 days ahead on weighted channels, about 8% later cancelled.
 */
export function demoReservations(
  propertyId: number,
  units: number,
  nowMs: number,
  seed: number,
): Reservation[] {
  const next = random(seed);
  const today = dayOfTimestamp(nowMs);
  const reservations: Reservation[] = [];
  for (let unit = 0; unit < units; unit++) {
    let night = today - 365 + Math.floor(next() * 5);
    while (night < today + 120) {
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

interface DemoPartner {
  readonly slug: string;
  readonly name: string;
  readonly revenueAccess: boolean;
  readonly products: readonly ProductId[];
  readonly hosts: readonly {
    email: string;
    name: string;
    properties: readonly {
      pmsHotelId: string;
      name: string;
      units: number;
      products: readonly ProductId[];
    }[];
  }[];
}

const DEMO_PARTNERS: readonly DemoPartner[] = [
  {
    slug: 'demo-pms',
    name: 'Demo PMS',
    revenueAccess: true,
    products: ['assistant', 'upsells', 'guidebook', 'checkin'],
    hosts: [
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
    ],
  },
  {
    slug: 'metrics-pms',
    name: 'Metrics-only PMS',
    revenueAccess: false,
    products: ['assistant', 'guidebook'],
    hosts: [
      {
        email: 'lee@garden-cottage.example',
        name: 'Garden Cottage',
        properties: [{ pmsHotelId: 'GC-1', name: 'Garden Cottage', units: 1, products: ['assistant'] }],
      },
    ],
  },
];

export interface DemoKey {
  readonly partnerSlug: string;
  readonly partnerName: string;
  readonly scopes: readonly string[];
  readonly key: string;
}

async function ensurePartner(
  demo: DemoPartner,
  nowMs: number,
): Promise<{ partner: Partner; created: boolean }> {
  const existing = await getPartnerBySlug(demo.slug);
  if (existing) return { partner: existing, created: false };
  const { sealingKey } = await loadServiceSecrets();
  const partner: Partner = {
    id: await allocateId('partner'),
    slug: demo.slug,
    name: demo.name,
    contactEmail: `api@${demo.slug}.example`,
    products: demo.products,
    revenueAccess: demo.revenueAccess,
    createdAt: new Date(nowMs).toISOString(),
  };
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: partnerCreationItems(partner, seal(randomBytes(32), sealingKey)),
    }),
  );
  return { partner, created: true };
}

/**
 * A fresh demo key per start (printed, never stored); earlier demo keys are revoked so
 * persistent data does not collect live keys.
 */
async function freshDemoKey(partner: Partner, nowMs: number): Promise<string> {
  const nowIso = new Date(nowMs).toISOString();
  for (const key of await listApiKeysOfPartner(partner.id)) {
    if (apiKeyState(key, nowMs) === 'active') await revokeApiKey(key.prefix, nowIso);
  }
  const material = generateApiKey();
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        apiKeyCreationItem({
          prefix: material.prefix,
          partnerId: partner.id,
          digest: material.digest,
          scopes: scopesForAgreement(partner.revenueAccess),
          createdAt: nowIso,
        }),
      ],
    }),
  );
  return material.key;
}

/** Seeds the catalog and the demo partners (idempotent), and returns a working key for each. */
export async function seedLocalData(nowMs: number): Promise<DemoKey[]> {
  await putCatalog(DEFAULT_CATALOG);
  const keys: DemoKey[] = [];
  for (const [partnerIndex, demo] of DEMO_PARTNERS.entries()) {
    const { partner, created } = await ensurePartner(demo, nowMs);
    if (created) {
      for (const host of demo.hosts) {
        for (const [propertyIndex, property] of host.properties.entries()) {
          const { propertyId } = await provisionSponsoredHost({
            partnerId: partner.id,
            contactEmail: host.email,
            contactName: host.name,
            pmsHotelId: property.pmsHotelId,
            propertyName: property.name,
            productIds: property.products,
            nowMs,
          });
          await updateProperty(partner.id, propertyId, { units: property.units });
          const seed = partnerIndex * 1_000 + propertyIndex * 97 + property.pmsHotelId.length;
          await importReservations(
            propertyId,
            demoReservations(propertyId, property.units, nowMs, seed),
            nowMs,
          );
        }
      }
    }
    keys.push({
      partnerSlug: partner.slug,
      partnerName: partner.name,
      scopes: scopesForAgreement(partner.revenueAccess),
      key: await freshDemoKey(partner, nowMs),
    });
  }
  return keys;
}
