import { createHash, randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openReveal } from '../../core/contract/reveal-crypto';
import type { ProductId } from '../../core/domain/catalog';
import type { Scope } from '../../core/domain/scopes';
import { GRANTABLE_SCOPES } from '../../core/domain/scopes';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import type { OutgoingMail } from '../../operations/mailer';
import type { OperatorTarget } from '../../operations/target';

/** Operator target for tests: the suite's local server, with mail kept in memory. */
export function testTarget(sentMail: OutgoingMail[] = []): OperatorTarget {
  return {
    stage: 'local',
    actor: 'test-operator',
    apiBaseUrl: inject('apiBaseUrl'),
    activationBaseUrl: inject('activationBaseUrl'),
    mailer: {
      async send(mail) {
        sentMail.push(mail);
        return { delivery: 'outbox', path: '/dev/null' };
      },
    },
  };
}

export function uniqueSlug(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/** Reveals a key the way the reveal page does: digest of the fragment secret, then decrypt. */
export async function revealKey(revealUrl: string): Promise<string> {
  const [pageUrl = '', fragmentSecret = ''] = revealUrl.split('#');
  const secretDigest = createHash('sha256')
    .update(Buffer.from(fragmentSecret, 'base64url'))
    .digest('base64url');
  const response = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret_digest: secretDigest }),
  });
  if (response.status !== 200) throw new Error(`Reveal failed: ${response.status} ${await response.text()}`);
  const { iv, ciphertext } = (await response.json()) as { iv: string; ciphertext: string };
  return openReveal({ fragmentSecret, iv, ciphertext });
}

export interface TestPartner {
  readonly id: number;
  readonly slug: string;
  readonly key: string;
  readonly keyPrefix: string;
}

/**
 * Approves a partner through the operator operation and reveals its first key over HTTP. Its
 * agreement grants every scope (a key that reads every route), or the base scopes only with
 * `revenue: false`, or exactly `scopes`.
 */
export async function approvedPartner(
  options: { revenue?: boolean; scopes?: readonly Scope[]; products?: ProductId[]; name?: string } = {},
): Promise<TestPartner> {
  const { approvePartner } = await import('../../operations/partners');
  const slug = uniqueSlug('test');
  const { result } = await approvePartner(
    testTarget(),
    {
      name: options.name ?? `Test ${slug}`,
      slug,
      email: `api@${slug}.example`,
      products: options.products ?? ['assistant', 'upsells', 'guidebook', 'checkin'],
      scopes: options.scopes ?? ((options.revenue ?? true) ? GRANTABLE_SCOPES : []),
    },
    Date.now(),
  );
  return {
    id: result.partner_id,
    slug,
    key: await revealKey(result.reveal_url),
    keyPrefix: result.key_prefix,
  };
}

/** Sponsors a property (and its host) for a partner, as an activation would. */
export async function sponsoredProperty(
  partnerId: number,
  options: { email?: string; name?: string; products?: ProductId[]; pmsHotelId?: string } = {},
) {
  const suffix = randomBytes(4).toString('hex');
  return provisionSponsoredHost({
    partnerId,
    contactEmail: options.email ?? `host-${suffix}@example.com`,
    contactName: `Host ${suffix}`,
    pmsHotelId: options.pmsHotelId ?? `PMS-${suffix}`,
    propertyName: options.name ?? `Property ${suffix}`,
    productIds: options.products ?? ['assistant'],
    nowMs: Date.now(),
  });
}

/** GET on the partner API with a key. */
export async function apiGet(path: string, key?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${inject('apiBaseUrl')}${path}`, {
    headers: { Accept: 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: tests that care assert on `text`.
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * A partner of a model-based test, written straight into the table the data modules point at (a
 * table of the test's own): its id. Its signing secret is a placeholder: a model test mints no link.
 */
export async function modelPartner(
  label: string,
  agreement: readonly ProductId[],
  nowMs: number,
): Promise<number> {
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { allocateId } = await import('../../lambdas/data/counters');
  const { dynamoDb } = await import('../../lambdas/data/db');
  const { partnerCreationItems } = await import('../../lambdas/data/partners');
  const { agreementScopes } = await import('../../core/domain/scopes');
  const id = await allocateId('partner');
  const slug = `${label}-${id}`;
  await dynamoDb().send(
    new TransactWriteCommand({
      TransactItems: partnerCreationItems(
        {
          id,
          slug,
          name: `Model ${label} ${id}`,
          contactEmail: `api@${slug}.example`,
          products: agreement,
          scopes: agreementScopes(GRANTABLE_SCOPES),
          revision: 0,
          keyPrefixes: [],
          createdAt: new Date(nowMs).toISOString(),
        },
        'sealed-secret-unused-here',
      ),
    }),
  );
  return id;
}
