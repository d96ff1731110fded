import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureCatalog } from '../../lambdas/data/catalog';
import { allocateId } from '../../lambdas/data/counters';
import { documentClient } from '../../lambdas/data/db';
import type { Partner } from '../../lambdas/data/partners';
import { listPartners, partnerCreationItems, SLUG_CLAIM_ITEM } from '../../lambdas/data/partners';
import { listPropertiesOfPartner } from '../../lambdas/data/properties';
import { listSponsoredHostSeats } from '../../lambdas/data/sponsorships';
import type { ProductId } from '../../lambdas/domain/catalog';
import { DEFAULT_CATALOG } from '../../lambdas/domain/catalog';
import { scopesForAgreement } from '../../lambdas/domain/scopes';
import { transactionCancellationCodes } from '../../lambdas/shared/aws-errors';
import { seal } from '../../lambdas/shared/secret-box';
import { loadServiceKey } from '../../lambdas/shared/service-secrets';
import { issuedKeyItems, issueKey, requirePartner, revealMailOf } from './keys';
import { OperatorError } from './operator-error';
import { sampleHostsFor, sponsorSampleHosts } from './sample-data';
import type { OperatorTarget } from './target';

export interface PartnerApproval {
  readonly name: string;
  readonly slug: string;
  readonly email: string;
  readonly products: readonly ProductId[];
  readonly revenueAccess: boolean;
}

/**
 * Creates the partner, its activation signing secret, its first key and the key's reveal in
 * one transaction (a taken slug leaves nothing behind). Returns the result and the reveal
 * mail, which the caller sends once the result (with the link) is shown.
 */
export async function approvePartner(target: OperatorTarget, approval: PartnerApproval, nowMs: number) {
  const sealingKey = await loadServiceKey('sealing');
  // Deployed stages have no seed step: the first approval creates the product catalog.
  await ensureCatalog(DEFAULT_CATALOG);
  const partner: Partner = {
    id: await allocateId('partner'),
    slug: approval.slug,
    name: approval.name,
    contactEmail: approval.email,
    products: approval.products,
    revenueAccess: approval.revenueAccess,
    createdAt: new Date(nowMs).toISOString(),
  };
  const signingSecret = seal(randomBytes(32), sealingKey);
  const issued = await issueKey(target, partner, scopesForAgreement(partner.revenueAccess), nowMs);
  const partnerItems = partnerCreationItems(partner, signingSecret);
  try {
    await documentClient.send(
      new TransactWriteCommand({ TransactItems: [...partnerItems, ...issuedKeyItems(issued)] }),
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
    scopes: scopesForAgreement(partner.revenueAccess),
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

/** Gives a partner sample hosts, properties and reservations (local and sandbox only). */
export async function addSampleData(target: OperatorTarget, slug: string, nowMs: number) {
  if (target.stage === 'production')
    throw new OperatorError('Sample data is for the sandbox and local stages only.');
  const partner = await requirePartner(slug);
  await ensureCatalog(DEFAULT_CATALOG);
  const added = await sponsorSampleHosts(partner, sampleHostsFor(partner.slug), nowMs);
  return { partner: partner.slug, ...added };
}
