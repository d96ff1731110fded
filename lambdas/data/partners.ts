import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PartnerBranding } from '../../core/domain/branding';
import { brandingOf } from '../../core/domain/branding';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import type { Scope } from '../../core/domain/scopes';
import { agreementScopes } from '../../core/domain/scopes';
import {
  PARTNER_SLUG_PARTITION,
  PARTNERS_INDEX_PARTITION,
  partnerPartition,
  SIGNING_SECRET_PARTITION,
} from '../../core/partitions';
import { dynamoDb, GSI1, queryAll, type TransactItem, tableName } from './db';

export interface Partner {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly contactEmail: string;
  /** The agreement: products the partner may offer hosts… */
  readonly products: readonly ProductId[];
  /** …and the scopes its keys may carry (never fewer than the base scopes). */
  readonly scopes: readonly Scope[];
  /**
   * Counts the changes that key decisions depend on (agreement updates, keys issued): each of them
   * checks, in its transaction, that nothing changed since it read the partner.
   */
  readonly revision: number;
  /** Every key ever issued to the partner, by prefix: read consistently, unlike an index. */
  readonly keyPrefixes: readonly string[];
  /** Set while an operator has suspended the partner: its keys, links and reveals do nothing. */
  readonly suspension?: PartnerSuspension;
  readonly createdAt: string;
  /** How hosts' pages show the partner (`partners brand`; lambdas/domain/branding.ts). */
  readonly branding?: PartnerBranding;
}

export interface PartnerSuspension {
  readonly at: string;
  readonly reason: string;
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
        TableName: tableName(),
        Item: {
          ...partnerKey(partner.id),
          GSI1PK: PARTNERS_INDEX_PARTITION,
          GSI1SK: partner.slug,
          ...partner,
          // A string set, so that issuing a key adds to it (DynamoDB has no empty sets).
          keyPrefixes: partner.keyPrefixes.length > 0 ? new Set(partner.keyPrefixes) : undefined,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...slugKey(partner.slug), partnerId: partner.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    signingSecretItem(partner.id, sealedSigningSecret),
  ];
}

/** Transaction item creating a partner's sealed signing secret, in its own partition. */
function signingSecretItem(partnerId: number, sealedSigningSecret: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
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
    scopes: agreementScopes(Array.isArray(item.scopes) ? item.scopes.map(String) : []),
    revision: typeof item.revision === 'number' ? item.revision : 0,
    keyPrefixes: item.keyPrefixes instanceof Set ? [...item.keyPrefixes].map(String).sort() : [],
    ...(isSuspension(item.suspension) ? { suspension: item.suspension } : {}),
    createdAt: String(item.createdAt),
    ...brandingAttribute(item.branding),
  };
}

function isSuspension(value: unknown): value is PartnerSuspension {
  const candidate = value as Partial<PartnerSuspension> | undefined;
  return typeof candidate?.at === 'string' && typeof candidate.reason === 'string';
}

function brandingAttribute(stored: unknown): { branding?: PartnerBranding } {
  const branding = brandingOf(stored);
  return branding ? { branding } : {};
}

/** A partner; read consistently for a decision that writes, as operators' commands make. */
export async function getPartner(
  partnerId: number,
  { consistent = false }: { consistent?: boolean } = {},
): Promise<Partner | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: partnerKey(partnerId), ConsistentRead: consistent }),
  );
  return toPartner(Item);
}

export async function getPartnerBySlug(
  slug: string,
  options: { consistent?: boolean } = {},
): Promise<Partner | undefined> {
  const partnerId = await getPartnerIdBySlug(slug);
  return partnerId === undefined ? undefined : getPartner(partnerId, options);
}

/** The id of the partner a slug names (a slug names one partner for good). */
export async function getPartnerIdBySlug(slug: string): Promise<number | undefined> {
  const { Item } = await dynamoDb().send(new GetCommand({ TableName: tableName(), Key: slugKey(slug) }));
  return Item ? Number(Item.partnerId) : undefined;
}

/** What the authorizer needs of a key's partner: whether it is suspended, and its agreement's scopes. */
export interface PartnerStanding {
  readonly suspended: boolean;
  readonly scopes: readonly Scope[];
}

export async function getPartnerStanding(partnerId: number): Promise<PartnerStanding | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: partnerKey(partnerId),
      ProjectionExpression: 'scopes, suspension',
    }),
  );
  const partner = Item ? toPartner({ ...Item, id: partnerId }) : undefined;
  return partner && { suspended: partner.suspension !== undefined, scopes: partner.scopes };
}

/** The products of a partner's agreement, strongly consistent; undefined when there is no such partner. */
export async function getAgreementProducts(partnerId: number): Promise<readonly ProductId[] | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: partnerKey(partnerId),
      ProjectionExpression: 'products',
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return Array.isArray(Item.products) ? Item.products.filter(isProductId) : [];
}

/** All partners, ordered by slug. */
export async function listPartners(): Promise<Partner[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: GSI1,
    KeyConditionExpression: 'GSI1PK = :partners',
    ExpressionAttributeValues: { ':partners': PARTNERS_INDEX_PARTITION },
  });
  return items.flatMap((item) => toPartner(item) ?? []);
}

/** The partner's signing secret, still sealed (see `lambdas/common/secret-box.ts`). */
export async function getSealedSigningSecret(partnerId: number): Promise<string | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: signingSecretKey(partnerId) }),
  );
  return typeof Item?.sealed === 'string' ? Item.sealed : undefined;
}

const UNCHANGED = 'attribute_exists(PK) AND (attribute_not_exists(revision) OR revision = :read)';

/**
 * Transaction item that replaces a partner's agreement (products and scopes), on condition that
 * nothing changed since it was read.
 */
export function agreementUpdateItem(
  partner: Pick<Partner, 'id' | 'revision'>,
  agreement: Pick<Partner, 'products' | 'scopes'>,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: partnerKey(partner.id),
      UpdateExpression: 'SET products = :products, scopes = :scopes, revision = :next',
      ConditionExpression: UNCHANGED,
      ExpressionAttributeValues: {
        ':products': [...agreement.products],
        ':scopes': [...agreement.scopes],
        ':read': partner.revision,
        ':next': partner.revision + 1,
      },
    },
  };
}

/**
 * Transaction item recording keys issued to a partner, on condition that nothing changed since
 * the partner was read: a concurrent `partners update` or rotation cancels one of the two, so no
 * key is issued wider than the agreement, or missed by a narrowing.
 */
export function keysIssuedItem(
  partner: Pick<Partner, 'id' | 'revision'>,
  prefixes: readonly string[],
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: partnerKey(partner.id),
      UpdateExpression: 'ADD keyPrefixes :prefixes SET revision = :next',
      ConditionExpression: UNCHANGED,
      ExpressionAttributeValues: {
        ':prefixes': new Set(prefixes),
        ':read': partner.revision,
        ':next': partner.revision + 1,
      },
    },
  };
}

/** Transaction item suspending a partner that is not suspended. */
export function partnerSuspendedItem(partnerId: number, suspension: PartnerSuspension): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: partnerKey(partnerId),
      UpdateExpression: 'SET suspension = :suspension',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(suspension)',
      ExpressionAttributeValues: { ':suspension': suspension },
    },
  };
}

/** Transaction item lifting a partner's suspension (the one that was read). */
export function partnerResumedItem(partnerId: number, suspension: PartnerSuspension): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: partnerKey(partnerId),
      UpdateExpression: 'REMOVE suspension',
      ConditionExpression: 'suspension.#at = :at',
      ExpressionAttributeNames: { '#at': 'at' },
      ExpressionAttributeValues: { ':at': suspension.at },
    },
  };
}

/** Transaction item that holds a write to the partner not being suspended when it commits. */
export function partnerNotSuspendedItem(partnerId: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: partnerKey(partnerId),
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(suspension)',
    },
  };
}
