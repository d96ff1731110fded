import { randomBytes } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { transactionCancellationCodes } from '../../lambdas/common/aws-errors';
import { seal } from '../../lambdas/common/secret-box';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import type { ApiKeyRecord } from '../../lambdas/data/api-keys';
import { apiKeyScopesItem } from '../../lambdas/data/api-keys';
import { allocateId } from '../../lambdas/data/counters';
import { documentClient } from '../../lambdas/data/db';
import type { Partner } from '../../lambdas/data/partners';
import {
  agreementUpdateItem,
  listPartners,
  partnerCreationItems,
  SLUG_CLAIM_ITEM,
} from '../../lambdas/data/partners';
import { listPropertiesOfPartner } from '../../lambdas/data/properties';
import { listSponsoredHostSeats } from '../../lambdas/data/sponsorships';
import { apiKeyState } from '../../lambdas/domain/api-key';
import type { ProductId } from '../../lambdas/domain/catalog';
import type { Scope } from '../../lambdas/domain/scopes';
import { agreementScopes } from '../../lambdas/domain/scopes';
import { operatorEventItem, recordOperatorEvent } from './audit';
import { catalogProducts, requireCatalogProducts } from './catalog';
import { issuedKeyItems, issueKey, keysInForce, requirePartner, revealMailOf } from './keys';
import { OperatorError } from './operator-error';
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
  const partner: Partner = {
    id: await allocateId('partner'),
    slug: approval.slug,
    name: approval.name,
    contactEmail: approval.email,
    products,
    scopes: agreementScopes(approval.scopes),
    createdAt: new Date(nowMs).toISOString(),
  };
  const signingSecret = seal(randomBytes(32), sealingKey);
  const issued = await issueKey(target, partner, partner.scopes, nowMs);
  const partnerItems = partnerCreationItems(partner, signingSecret);
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          ...partnerItems,
          ...issuedKeyItems(issued),
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
  // Sandbox accounts come with sample hosts, properties and a year of reservations.
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
  };
}

export async function listAllPartners() {
  return { partners: (await listPartners()).map(describePartner) };
}

/** A partner with its sponsored hosts, seats and properties. */
export async function showPartner(slug: string) {
  const partner = await requirePartner(slug);
  const [hosts, properties] = await Promise.all([
    listSponsoredHostSeats(partner.id),
    listPropertiesOfPartner(partner.id),
  ]);
  return {
    ...describePartner(partner),
    sponsored_hosts: hosts.length,
    active_seats: hosts.reduce((sum, host) => sum + host.activeSeats, 0),
    properties,
  };
}

/** Keys in force that carry a scope outside `scopes`, with the scopes they keep. */
function keysWiderThan(keys: readonly ApiKeyRecord[], scopes: readonly Scope[], nowMs: number) {
  return keys
    .filter((key) => apiKeyState(key, nowMs) === 'active')
    .map((key) => ({ key, scopes: key.scopes.filter((scope) => scopes.includes(scope)) }))
    .filter(({ key, scopes: kept }) => kept.length < key.scopes.length);
}

/** How long after its commit `partners update` looks again for keys the partner index did not show yet. */
const INDEX_SETTLE_MS = 1_000;

const sameNames = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name) => b.includes(name));

/**
 * Replaces a partner's agreement. Narrower scopes take effect on every key in force in the same
 * transaction (as a revocation does: within the authorizer's 30-second key cache); wider scopes
 * reach only keys issued from now on (`keys rotate --widen-to-agreement`), so no key ever carries
 * more than the agreement: a rotation that read the old agreement is cancelled by its version
 * check, and a key the partner index did not show yet is narrowed by a second look a second
 * later. Products take effect on the link pages within their one-minute catalog cache.
 */
export async function updateAgreement(
  target: Pick<OperatorTarget, 'actor'>,
  input: { slug: string; products?: readonly ProductId[]; scopes?: readonly Scope[] },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  const products = input.products ? await requireCatalogProducts(input.products) : partner.products;
  const scopes = input.scopes ? agreementScopes(input.scopes) : partner.scopes;
  const narrowed = keysWiderThan((await keysInForce(partner.id)).keys, scopes, nowMs);
  const result = {
    partner: partner.slug,
    before: { products: partner.products, scopes: partner.scopes },
    after: { products, scopes },
  };
  if (sameNames(products, partner.products) && sameNames(scopes, partner.scopes) && narrowed.length === 0)
    return { ...result, unchanged: true, narrowed_keys: [] };
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          agreementUpdateItem(partner, { products, scopes }),
          ...narrowed.map(({ key, scopes: kept }) => apiKeyScopesItem(key.prefix, kept)),
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
              },
            },
            nowMs,
          ),
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException')
      throw new OperatorError(
        `The agreement or a key of ${partner.slug} changed meanwhile; nothing was changed. Run the command again.`,
      );
    throw error;
  }
  await new Promise((resolve) => setTimeout(resolve, INDEX_SETTLE_MS));
  const late = keysWiderThan((await keysInForce(partner.id)).keys, scopes, nowMs);
  for (const { key, scopes: kept } of late) {
    const { Update } = apiKeyScopesItem(key.prefix, kept);
    await documentClient.send(new UpdateCommand(Update as ConstructorParameters<typeof UpdateCommand>[0]));
  }
  return {
    ...result,
    unchanged: false,
    narrowed_keys: [...narrowed, ...late].map(({ key, scopes: kept }) => ({
      key_prefix: key.prefix,
      scopes: kept,
    })),
  };
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
