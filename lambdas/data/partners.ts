import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PartnerBranding } from '../domain/branding';
import { brandingOf } from '../domain/branding';
import type { ProductId } from '../domain/catalog';
import { isProductId } from '../domain/catalog';
import type { Scope } from '../domain/scopes';
import { agreementScopes } from '../domain/scopes';
import { documentClient, GSI1, queryAll, TABLE_NAME, type TransactItem } from './db';
import {
  PARTNER_SLUG_PARTITION,
  PARTNERS_INDEX_PARTITION,
  partnerPartition,
  SIGNING_SECRET_PARTITION,
} from './partitions';

export interface Partner {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly contactEmail: string;
  /** The agreement: products the partner may offer hosts… */
  readonly products: readonly ProductId[];
  /** …and the scopes its keys may carry (never fewer than the base scopes). */
  readonly scopes: readonly Scope[];
  /** Counts agreement changes: what issues a key checks that the agreement it read still holds. */
  readonly agreementVersion?: number;
  readonly createdAt: string;
  /** How hosts' pages show the partner (`partners brand`; lambdas/domain/branding.ts). */
  readonly branding?: PartnerBranding;
}

export const partnerKey = (partnerId: number) => ({ PK: partnerPartition(partnerId), SK: 'PARTNER' });
const slugKey = (slug: string) => ({ PK: `${PARTNER_SLUG_PARTITION}${slug}`, SK: 'PARTNERSLUG' });
const signingSecretKey = (partnerId: number) => ({
  PK: `${SIGNING_SECRET_PARTITION}${partnerId}`,
  SK: 'SIGNING_SECRET',
});

/** Position of the slug claim among `partnerCreationItems` (a failed condition there: slug taken). */
export const SLUG_CLAIM_ITEM = 1;

/**
 * Transaction items that create a partner: its profile, the claim on its slug (so two
 * partners can never share one) and its sealed activation-link signing secret.
 */
export function partnerCreationItems(partner: Partner, sealedSigningSecret: string): TransactItem[] {
  return [
    {
      Put: {
        TableName: TABLE_NAME,
        Item: {
          ...partnerKey(partner.id),
          GSI1PK: PARTNERS_INDEX_PARTITION,
          GSI1SK: partner.slug,
          ...partner,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: TABLE_NAME,
        Item: { ...slugKey(partner.slug), partnerId: partner.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    signingSecretItem(partner.id, sealedSigningSecret),
  ];
}

/** Transaction item creating a partner's sealed signing secret, in its own partition. */
export function signingSecretItem(partnerId: number, sealedSigningSecret: string): TransactItem {
  return {
    Put: {
      TableName: TABLE_NAME,
      Item: { ...signingSecretKey(partnerId), sealed: sealedSigningSecret },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

function toPartner(item: Record<string, unknown> | undefined): Partner | undefined {
  if (!item) return undefined;
  const products = Array.isArray(item.products) ? item.products.filter(isProductId) : [];
  return {
    id: Number(item.id),
    slug: String(item.slug),
    name: String(item.name),
    contactEmail: String(item.contactEmail),
    products,
    // Partners approved before agreements listed scopes stored `revenueAccess` instead.
    scopes: agreementScopes(
      Array.isArray(item.scopes)
        ? item.scopes.map(String)
        : item.revenueAccess === true
          ? ['revenue:read']
          : [],
    ),
    agreementVersion: typeof item.agreementVersion === 'number' ? item.agreementVersion : 0,
    createdAt: String(item.createdAt),
    ...brandingAttribute(item.branding),
  };
}

function brandingAttribute(stored: unknown): { branding?: PartnerBranding } {
  const branding = brandingOf(stored);
  return branding ? { branding } : {};
}

export async function getPartner(partnerId: number): Promise<Partner | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: partnerKey(partnerId) }),
  );
  return toPartner(Item);
}

export async function getPartnerBySlug(slug: string): Promise<Partner | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: slugKey(slug) }));
  return Item ? getPartner(Number(Item.partnerId)) : undefined;
}

/** All partners, ordered by slug. */
export async function listPartners(): Promise<Partner[]> {
  const items = await queryAll({
    TableName: TABLE_NAME,
    IndexName: GSI1,
    KeyConditionExpression: 'GSI1PK = :partners',
    ExpressionAttributeValues: { ':partners': PARTNERS_INDEX_PARTITION },
  });
  return items.flatMap((item) => toPartner(item) ?? []);
}

/** The partner's signing secret, still sealed (see `lambdas/common/secret-box.ts`). */
export async function getSealedSigningSecret(partnerId: number): Promise<string | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: signingSecretKey(partnerId) }),
  );
  return typeof Item?.sealed === 'string' ? Item.sealed : undefined;
}

const UNCHANGED_AGREEMENT =
  'attribute_exists(PK) AND (attribute_not_exists(agreementVersion) OR agreementVersion = :read)';

/**
 * Transaction item that replaces a partner's agreement (products and scopes), on condition that
 * nobody changed it since it was read; drops the attribute older records stored instead of scopes.
 */
export function agreementUpdateItem(
  partner: Pick<Partner, 'id' | 'agreementVersion'>,
  agreement: Pick<Partner, 'products' | 'scopes'>,
): TransactItem {
  return {
    Update: {
      TableName: TABLE_NAME,
      Key: partnerKey(partner.id),
      UpdateExpression:
        'SET products = :products, scopes = :scopes, agreementVersion = :next REMOVE revenueAccess',
      ConditionExpression: UNCHANGED_AGREEMENT,
      ExpressionAttributeValues: {
        ':products': [...agreement.products],
        ':scopes': [...agreement.scopes],
        ':read': partner.agreementVersion ?? 0,
        ':next': (partner.agreementVersion ?? 0) + 1,
      },
    },
  };
}

/**
 * Transaction item that holds a key's issue to the agreement it was read with: a concurrent
 * `partners update` cancels the issue rather than let a key be wider than the new agreement.
 */
export function agreementCheckItem(partner: Pick<Partner, 'id' | 'agreementVersion'>): TransactItem {
  return {
    ConditionCheck: {
      TableName: TABLE_NAME,
      Key: partnerKey(partner.id),
      ConditionExpression: UNCHANGED_AGREEMENT,
      ExpressionAttributeValues: { ':read': partner.agreementVersion ?? 0 },
    },
  };
}
