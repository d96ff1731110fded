import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey, isInForce } from '../core/domain/api-key';
import type { ProductId } from '../core/domain/catalog';
import { DEFAULT_CATALOG } from '../core/domain/catalog';
import type { Scope } from '../core/domain/scopes';
import { agreementScopes, GRANTABLE_SCOPES } from '../core/domain/scopes';
import { transactionCancellationCodes } from '../lambdas/common/aws-errors';
import { pauseBeforeRetry } from '../lambdas/common/backoff';
import { seal } from '../lambdas/common/secret-box';
import { loadServiceKey } from '../lambdas/common/service-secrets';
import { apiKeyCreationItem, getApiKeys, keyRevokedItem } from '../lambdas/data/api-keys';
import { ensureCatalog } from '../lambdas/data/catalog';
import { allocateId } from '../lambdas/data/counters';
import { dynamoDb } from '../lambdas/data/db';
import type { Partner } from '../lambdas/data/partners';
import { getPartnerBySlug, keysIssuedItem, partnerCreationItems } from '../lambdas/data/partners';
import type { BrandingChange } from '../operations/branding';
import { brandPartner } from '../operations/branding';
import type { SampleHost } from '../operations/sample-data';
import { SAMPLE_HOSTS, sponsorSampleHosts } from '../operations/sample-data';

interface DemoPartner {
  readonly slug: string;
  readonly name: string;
  /** Scopes granted beyond the base scopes. */
  readonly scopes: readonly Scope[];
  readonly products: readonly ProductId[];
  readonly hosts: readonly SampleHost[];
  /** How its hosts' pages show it, set as an operator sets it (`partners brand`). */
  readonly branding?: Omit<BrandingChange, 'slug'>;
}

const DEMO_PARTNERS: readonly DemoPartner[] = [
  {
    slug: 'demo-pms',
    name: 'Demo PMS',
    scopes: GRANTABLE_SCOPES,
    products: ['assistant', 'upsells', 'guidebook', 'checkin'],
    hosts: SAMPLE_HOSTS,
    branding: {
      // A PNG: the pages show any logo the same way, and a PNG needs no SVG check.
      logoFile: fileURLToPath(new URL('./demo-pms-logo.png', import.meta.url)),
      accentColor: '#0F766E',
      website: 'https://www.demo-pms.example/hosts',
    },
  },
  {
    slug: 'metrics-pms',
    name: 'Metrics-only PMS',
    scopes: [],
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

/**
 * When the demo hosts joined their partners: long before anything a reader sends, so that the
 * platform's events of docs/examples/events.jsonl (dated November 2026) apply to them, where an
 * event dated before a host's onboarding would not undo it (docs/design/events.md#versions).
 */
const DEMO_HOSTS_JOINED = Date.parse('2026-01-01T00:00:00.000Z');

/** Attempts at a demo partner or key when other servers seed the same table at the same moment. */
const SEEDING_ATTEMPTS = 10;

export interface DemoKey {
  readonly partnerSlug: string;
  readonly partnerName: string;
  readonly scopes: readonly string[];
  readonly key: string;
}

async function ensurePartner(
  demo: DemoPartner,
  nowMs: number,
  attempt = 1,
): Promise<{ partner: Partner; created: boolean }> {
  const existing = await getPartnerBySlug(demo.slug, { consistent: true });
  if (existing) return { partner: existing, created: false };
  const sealingKey = await loadServiceKey('sealing');
  const partner: Partner = {
    id: await allocateId('partner'),
    slug: demo.slug,
    name: demo.name,
    contactEmail: `api@${demo.slug}.example`,
    products: demo.products,
    scopes: agreementScopes(demo.scopes),
    revision: 0,
    keyPrefixes: [],
    createdAt: new Date(nowMs).toISOString(),
  };
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: partnerCreationItems(partner, seal(randomBytes(32), sealingKey)),
      }),
    );
  } catch (error) {
    // Another server seeding the same table created the partner first (its partner is the demo
    // one), or was creating it (a conflict): read it, or try again now that it may be there.
    if (transactionCancellationCodes(error) === undefined || attempt === SEEDING_ATTEMPTS) throw error;
    const created = await getPartnerBySlug(demo.slug, { consistent: true });
    return created ? { partner: created, created: false } : ensurePartner(demo, nowMs, attempt + 1);
  }
  return { partner, created: true };
}

/**
 * A fresh demo key per start (printed, never stored); earlier demo keys are revoked so
 * persistent data does not collect live keys.
 */
async function freshDemoKey(slug: string, nowMs: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    // Read again at each attempt: another server's key, issued meanwhile, is one to revoke.
    const partner = await getPartnerBySlug(slug, { consistent: true });
    if (!partner) throw new Error(`The demo partner ${slug} is gone.`);
    try {
      return await issueDemoKey(partner, nowMs);
    } catch (error) {
      // Cancelled by another server's key (the partner's revision moved, or a key it revoked first).
      if (transactionCancellationCodes(error) === undefined || attempt === SEEDING_ATTEMPTS) throw error;
      await pauseBeforeRetry(attempt, 20);
    }
  }
}

async function issueDemoKey(partner: Partner, nowMs: number): Promise<string> {
  const nowIso = new Date(nowMs).toISOString();
  const earlier = (await getApiKeys(partner.keyPrefixes)).filter((key) => isInForce(key, nowMs));
  const material = generateApiKey();
  // Handed over here rather than through a reveal: active from the start.
  await dynamoDb().send(
    new TransactWriteCommand({
      TransactItems: [
        ...earlier.map((key) => keyRevokedItem(key, nowIso)),
        apiKeyCreationItem({
          prefix: material.prefix,
          partnerId: partner.id,
          digest: material.digest,
          scopes: partner.scopes,
          createdAt: nowIso,
          sequence: partner.revision + 1,
          state: 'active',
        }),
        keysIssuedItem(partner, [material.prefix]),
      ],
    }),
  );
  return material.key;
}

/**
 * Brands a demo partner as an operator would (`partners brand`). Another server starting on the
 * same DynamoDB at the same moment may brand it in the same instant: its transaction then wins
 * with the same brand, and this one's conflict is no failure.
 */
async function brandDemoPartner(slug: string, branding: Omit<BrandingChange, 'slug'>, nowMs: number) {
  try {
    await brandPartner({ actor: 'local-server' }, { slug, ...branding }, nowMs);
  } catch (error) {
    if (!transactionCancellationCodes(error)?.includes('TransactionConflict')) throw error;
  }
}

/** Seeds the catalog and the demo partners (idempotent), and returns a working key for each. */
export async function seedLocalData(nowMs: number): Promise<DemoKey[]> {
  await ensureCatalog(DEFAULT_CATALOG);
  const keys: DemoKey[] = [];
  for (const demo of DEMO_PARTNERS) {
    const { partner, created } = await ensurePartner(demo, nowMs);
    if (created) await sponsorSampleHosts(partner, demo.hosts, nowMs, DEMO_HOSTS_JOINED);
    // Also for a demo partner kept from before it had a brand (--persist), as long as it has none.
    if (demo.branding && !partner.branding) await brandDemoPartner(demo.slug, demo.branding, nowMs);
    keys.push({
      partnerSlug: partner.slug,
      partnerName: partner.name,
      scopes: partner.scopes,
      key: await freshDemoKey(partner.slug, nowMs),
    });
  }
  return keys;
}
