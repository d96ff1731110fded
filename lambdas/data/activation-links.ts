import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import { ACTIVATION_LINK_PARTITION, partnerPartition } from '../../core/partitions';
import { dynamoDb, GSI1, queryAll, tableName, ttlEpochSeconds } from './db';

/**
 * Links an operator issued (no token, no e-mail address, no claim a page could trust: whose it
 * is, until when, and what operators need to recognise it). It lets the activation page tell a
 * link made for another partner from a forged one, and operators list a partner's links. Kept a
 * day past the link's expiry; nothing that decides whether a link works reads it.
 */
export interface IssuedLink {
  readonly nonce: string;
  readonly partnerId: number;
  readonly issuedAt: string;
  readonly expiresAt: string;
  /** The host's e-mail address masked (`j…@example.com`): enough to recognise, not to contact. */
  readonly hostEmailMasked: string;
  readonly pmsHotelId: string;
  readonly products: readonly ProductId[];
}

/** How long after its expiry an issued link stays listed. */
const ISSUED_LINK_RETENTION_MS = 86_400_000;

const issuedLinkKey = (nonce: string) => ({
  PK: `${ACTIVATION_LINK_PARTITION}${nonce}`,
  SK: 'ACTIVATION_LINK',
});
const partnerLinksIndexKey = (partnerId: number) => `${partnerPartition(partnerId)}#LINKS`;

export async function recordIssuedLink(link: IssuedLink): Promise<void> {
  await dynamoDb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...issuedLinkKey(link.nonce),
        GSI1PK: partnerLinksIndexKey(link.partnerId),
        GSI1SK: `${link.issuedAt}#${link.nonce}`,
        ...link,
        ttl: ttlEpochSeconds(Date.parse(link.expiresAt) + ISSUED_LINK_RETENTION_MS),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

function toIssuedLink(item: Record<string, unknown>): IssuedLink {
  return {
    nonce: String(item.nonce),
    partnerId: Number(item.partnerId),
    issuedAt: String(item.issuedAt),
    expiresAt: String(item.expiresAt),
    hostEmailMasked: String(item.hostEmailMasked ?? ''),
    pmsHotelId: String(item.pmsHotelId ?? ''),
    products: Array.isArray(item.products) ? item.products.filter(isProductId) : [],
  };
}

export async function getIssuedLink(nonce: string): Promise<IssuedLink | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: issuedLinkKey(nonce) }),
  );
  return Item ? toIssuedLink(Item) : undefined;
}

/** A partner's issued links, newest first (those TTL has not removed yet). */
export async function listIssuedLinksOfPartner(partnerId: number): Promise<IssuedLink[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: GSI1,
    KeyConditionExpression: 'GSI1PK = :links',
    ExpressionAttributeValues: { ':links': partnerLinksIndexKey(partnerId) },
    ScanIndexForward: false,
  });
  return items.map(toIssuedLink);
}
