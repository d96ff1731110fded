import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keyStanding } from '../core/domain/api-key';
import type { ProductId } from '../core/domain/catalog';
import type { Scope } from '../core/domain/scopes';
import { agreementScopes } from '../core/domain/scopes';
import { transactionCancellationCodes } from '../lambdas/common/aws-errors';
import { seal } from '../lambdas/common/secret-box';
import { loadServiceKey } from '../lambdas/common/service-secrets';
import type { ApiKeyRecord } from '../lambdas/data/api-keys';
import { apiKeyCreationItem, keyScopesItem } from '../lambdas/data/api-keys';
import { allocateId } from '../lambdas/data/counters';
import { dynamoDb, type TransactItem } from '../lambdas/data/db';
import type { Partner } from '../lambdas/data/partners';
import {
  agreementUpdateItem,
  listPartners,
  partnerCreationItems,
  partnerResumedItem,
  partnerSuspendedItem,
  SLUG_CLAIM_ITEM,
} from '../lambdas/data/partners';
import { listPropertiesWithPmsHotelIds } from '../lambdas/data/properties';
import { revealCreationItem } from '../lambdas/data/reveals';
import { listSponsoredHostSeats } from '../lambdas/data/sponsorships';
import { operatorEventItem, recordOperatorEvent } from './audit';
import { catalogProducts, requireCatalogProducts } from './catalog';
import { issueKey, keysOfPartner, revealMailOf } from './keys';
import { OperatorError } from './operator-error';
import { requirePartner } from './partner-lookup';
import { sampleHostsFor, sponsorSampleHosts } from './sample-data';
import type { OperatorTarget } from './target';

export interface PartnerApproval {
  readonly name: string;
  readonly slug: string;
  readonly email: string;
  readonly products: readonly ProductId[];
  /** Scopes granted beyond the base scopes every agreement has. */
  readonly scopes: readonly Scope[];
}

/**
 * Creates the partner, its activation signing secret, its first key and the key's reveal in
 * one transaction (a taken slug leaves nothing behind). Returns the result and the reveal
 * mail, which the caller sends once the result (with the link) is shown.
 */
export async function approvePartner(target: OperatorTarget, approval: PartnerApproval, nowMs: number) {
  const sealingKey = await loadServiceKey('sealing');
  // Deployed stages have no seed step: the first approval creates the product catalog.
  const products = await requireCatalogProducts(approval.products);
  const approved: Partner = {
    id: await allocateId('partner'),
    slug: approval.slug,
    name: approval.name,
    contactEmail: approval.email,
    products,
    scopes: agreementScopes(approval.scopes),
    revision: 0,
    keyPrefixes: [],
    createdAt: new Date(nowMs).toISOString(),
  };
  const signingSecret = seal(randomBytes(32), sealingKey);
  const issued = await issueKey(target, approved, approved.scopes, nowMs);
  // The partner is created with its first key listed (one write per item in a transaction).
  const partner: Partner = {
    ...approved,
    revision: issued.record.sequence,
    keyPrefixes: [issued.record.prefix],
  };
  const partnerItems = partnerCreationItems(partner, signingSecret);
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          ...partnerItems,
          apiKeyCreationItem(issued.record),
          revealCreationItem(issued.reveal),
          operatorEventItem(
            target,
            'partner.approved',
            { partnerId: partner.id, details: { products: partner.products, scopes: partner.scopes } },
            nowMs,
          ),
          operatorEventItem(
            target,
            'key.issued',
            { partnerId: partner.id, keyPrefix: issued.record.prefix, details: { scopes: partner.scopes } },
            nowMs,
          ),
        ],
      }),
    );
  } catch (error) {
    // Nothing was written: the API Gateway key made for the new key must not stay usable.
    await target.usagePlanKeys?.remove(issued.record.prefix);
    if (transactionCancellationCodes(error)?.[SLUG_CLAIM_ITEM] === 'ConditionalCheckFailed') {
      throw new OperatorError(
        `The slug "${partner.slug}" is taken by another partner. Choose another --slug.`,
      );
    }
    throw error;
  }
  // Sandbox accounts come with sample hosts, properties and five months of reservations.
  const sampleData =
    target.stage === 'sandbox'
      ? await sponsorSampleHosts(partner, sampleHostsFor(partner.slug), nowMs)
      : undefined;
  if (sampleData)
    await recordOperatorEvent(
      target,
      'sample-data.added',
      { partnerId: partner.id, details: sampleData },
      nowMs,
    );
  return {
    result: {
      partner_id: partner.id,
      slug: partner.slug,
      key_prefix: issued.record.prefix,
      reveal_url: issued.revealUrl,
      reveal_expires_at: issued.reveal.expiresAt,
    },
    mail: revealMailOf(target, partner, issued, false),
    sampleData,
  };
}

function describePartner(partner: Partner) {
  return {
    partner_id: partner.id,
    slug: partner.slug,
    name: partner.name,
    contact_email: partner.contactEmail,
    products: partner.products,
    scopes: partner.scopes,
    created_at: partner.createdAt,
    suspended: partner.suspension ? { at: partner.suspension.at, reason: partner.suspension.reason } : null,
  };
}

export async function listAllPartners() {
  return { partners: (await listPartners()).map(describePartner) };
}

/** A partner with its sponsored hosts, seats and properties. */
export async function showPartner(slug: string) {
  const partner = await requirePartner(slug);
  const [hosts, properties, keys] = await Promise.all([
    listSponsoredHostSeats(partner.id),
    listPropertiesWithPmsHotelIds(partner.id),
    keysOfPartner(partner),
  ]);
  return {
    ...describePartner(partner),
    sponsored_hosts: hosts.length,
    active_seats: hosts.reduce((sum, host) => sum + host.activeSeats, 0),
    properties,
    // Keys revoked because they were found in public: where, and whether a replacement followed.
    leaked_keys: keys.flatMap((key) =>
      key.leak
        ? [
            {
              key_prefix: key.prefix,
              revoked_at: key.revokedAt ?? null,
              url: key.leak.url,
              source: key.leak.source,
              reported_by: key.leak.reportedBy,
              replaced_by: key.replacedBy ?? null,
            },
          ]
        : [],
    ),
  };
}

/**
 * The scopes each key that still can (or may yet) work carries under a new agreement: what it has
 * within `scopes` and, for a key not revealed yet (no one holds it), the scopes the agreement
 * gains (`added`), so a new partner's first key works as agreed without a second key and mail.
 * Only keys whose scopes change are listed, with whether they were narrowed, widened or both.
 */
function keyScopeChanges(
  keys: readonly ApiKeyRecord[],
  scopes: readonly Scope[],
  added: readonly Scope[],
  nowMs: number,
) {
  return keys
    .filter((key) => ['pending', 'active', 'retiring'].includes(keyStanding(key, nowMs)))
    .map((key) => {
      const kept = key.scopes.filter((scope) => scopes.includes(scope));
      const gained =
        keyStanding(key, nowMs) === 'pending' ? added.filter((scope) => !key.scopes.includes(scope)) : [];
      return {
        key,
        scopes: [...kept, ...gained],
        narrowed: kept.length < key.scopes.length,
        widened: gained.length > 0,
      };
    })
    .filter((change) => change.narrowed || change.widened);
}

const sameNames = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name) => b.includes(name));

/**
 * Replaces a partner's agreement. Narrower scopes take effect on every key that works or may
 * yet work, in the same transaction (the authorizer also holds each key to its partner's
 * agreement, within its 30-second cache); wider scopes reach keys not revealed yet (no one holds
 * them) and keys issued from now on (`keys rotate --widen-to-agreement`), never a key in use. The keys come from the partner's own list, read
 * consistently, and the partner's revision cancels a concurrent rotation or update, so no key
 * escapes the narrowing. Products take effect on the link pages within their one-minute cache.
 */
export async function updateAgreement(
  target: Pick<OperatorTarget, 'actor'>,
  input: { slug: string; products?: readonly ProductId[]; scopes?: readonly Scope[] },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  const products = input.products ? await requireCatalogProducts(input.products) : partner.products;
  const scopes = input.scopes ? agreementScopes(input.scopes) : partner.scopes;
  const added = scopes.filter((scope) => !partner.scopes.includes(scope));
  const changed = keyScopeChanges(await keysOfPartner(partner), scopes, added, nowMs);
  const narrowed = changed.filter((change) => change.narrowed);
  const widened = changed.filter((change) => change.widened);
  const result = {
    partner: partner.slug,
    before: { products: partner.products, scopes: partner.scopes },
    after: { products, scopes },
  };
  if (sameNames(products, partner.products) && sameNames(scopes, partner.scopes) && changed.length === 0)
    return { ...result, unchanged: true, narrowed_keys: [], widened_keys: [] };
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          agreementUpdateItem(partner, { products, scopes }),
          ...changed.map(({ key, scopes: next }) => keyScopesItem(key, next)),
          operatorEventItem(
            target,
            'agreement.changed',
            {
              partnerId: partner.id,
              details: {
                products_before: partner.products,
                products,
                scopes_before: partner.scopes,
                scopes,
                narrowed_keys: narrowed.map(({ key }) => key.prefix),
                widened_keys: widened.map(({ key }) => key.prefix),
              },
            },
            nowMs,
          ),
        ],
      }),
    );
  } catch (error) {
    if (transactionCancellationCodes(error))
      throw new OperatorError(
        `The agreement or a key of ${partner.slug} changed meanwhile; nothing was changed. Run the command again.`,
      );
    throw error;
  }
  return {
    ...result,
    unchanged: false,
    narrowed_keys: narrowed.map(({ key, scopes: next }) => ({ key_prefix: key.prefix, scopes: next })),
    widened_keys: widened.map(({ key, scopes: next }) => ({ key_prefix: key.prefix, scopes: next })),
  };
}

/**
 * Suspends a partner: every key of it is refused (401 partner-suspended, within the authorizer's
 * 30 s), its activation links and reveal links show a "not available" page, and nothing is
 * deleted or changed on its keys, so `resume` restores exactly what was there.
 */
export async function suspendPartner(
  target: Pick<OperatorTarget, 'actor'>,
  input: { slug: string; reason: string },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  if (partner.suspension)
    return {
      partner: partner.slug,
      changed: false,
      suspended_at: partner.suspension.at,
      reason: partner.suspension.reason,
    };
  const suspension = { at: new Date(nowMs).toISOString(), reason: input.reason };
  await commitPartnerChange(partner.slug, [
    partnerSuspendedItem(partner.id, suspension),
    operatorEventItem(
      target,
      'partner.suspended',
      { partnerId: partner.id, details: { reason: input.reason } },
      nowMs,
    ),
  ]);
  return { partner: partner.slug, changed: true, suspended_at: suspension.at, reason: suspension.reason };
}

/** Lifts a suspension: keys, links and reveals work again as they were (within 30 s for keys). */
export async function resumePartner(target: Pick<OperatorTarget, 'actor'>, slug: string, nowMs: number) {
  const partner = await requirePartner(slug);
  if (!partner.suspension) return { partner: partner.slug, changed: false };
  await commitPartnerChange(partner.slug, [
    partnerResumedItem(partner.id, partner.suspension),
    operatorEventItem(
      target,
      'partner.resumed',
      { partnerId: partner.id, details: { suspended_at: partner.suspension.at } },
      nowMs,
    ),
  ]);
  return { partner: partner.slug, changed: true };
}

async function commitPartnerChange(slug: string, items: TransactItem[]): Promise<void> {
  try {
    await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (transactionCancellationCodes(error))
      throw new OperatorError(
        `Partner ${slug} changed meanwhile; nothing was changed. Run the command again.`,
      );
    throw error;
  }
}

/** Gives a partner sample hosts, properties and reservations (local and sandbox only). */
export async function addSampleData(target: OperatorTarget, slug: string, nowMs: number) {
  if (target.stage === 'production')
    throw new OperatorError('Sample data is for the sandbox and local stages only.');
  const partner = await requirePartner(slug);
  await catalogProducts();
  const added = await sponsorSampleHosts(partner, sampleHostsFor(partner.slug), nowMs);
  await recordOperatorEvent(target, 'sample-data.added', { partnerId: partner.id, details: added }, nowMs);
  return { partner: partner.slug, ...added };
}
