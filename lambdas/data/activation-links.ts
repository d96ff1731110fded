import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import { ACTIVATION_LINK_PARTITION, partnerPartition } from '../../core/partitions';
import { transactionCancellationCodes } from '../common/aws-errors';
import { dynamoDb, GSI1, queryAll, type TransactItem, tableName, ttlEpochSeconds } from './db';
import { issuedLinksOfEmailPartition, noErasureOfEmailItem } from './hosts';

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

/**
 * Records an issued link, and lists it under its host's e-mail address (the partition of the
 * address's claim, `HOSTEMAIL#<address>` / `LINK#<nonce>`), where an erasure of the host finds the
 * links still unused and ends them (docs/design/events.md#erasure). Both stay as long as the link.
 */
export async function recordIssuedLink(link: IssuedLink, hostEmail: string): Promise<void> {
  const ttl = ttlEpochSeconds(Date.parse(link.expiresAt) + ISSUED_LINK_RETENTION_MS);
  try {
    await dynamoDb().send(issuedLinkTransaction(link, hostEmail, ttl));
  } catch (error) {
    if (transactionCancellationCodes(error)?.[2] === 'ConditionalCheckFailed')
      throw new HostBeingErasedError('The host with this e-mail address is being erased.');
    throw error;
  }
}

/** A link was asked for an address whose account is being erased (it gets a new account after). */
export class HostBeingErasedError extends Error {
  override readonly name = 'HostBeingErasedError';
}

function issuedLinkTransaction(link: IssuedLink, hostEmail: string, ttl: number): TransactWriteCommand {
  return new TransactWriteCommand({
    TransactItems: [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...issuedLinkKey(link.nonce),
            GSI1PK: partnerLinksIndexKey(link.partnerId),
            GSI1SK: `${link.issuedAt}#${link.nonce}`,
            ...link,
            ttl,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: {
            PK: issuedLinksOfEmailPartition(hostEmail),
            SK: `LINK#${link.nonce}`,
            nonce: link.nonce,
            partnerId: link.partnerId,
            expiresAt: link.expiresAt,
            ttl,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      // An erasure under way has swept, or is sweeping, the address's links: none may slip in.
      noErasureOfEmailItem(hostEmail),
    ],
  });
}

/** A link issued for an e-mail address: its nonce, its partner and until when it works. */
export interface LinkOfEmail {
  readonly nonce: string;
  readonly partnerId: number;
  readonly expiresAt: string;
}

/** The links issued for an e-mail address (any letter case), strongly consistent. */
export async function listLinksOfEmail(email: string): Promise<LinkOfEmail[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :email AND begins_with(SK, :link)',
    ExpressionAttributeValues: { ':email': issuedLinksOfEmailPartition(email), ':link': 'LINK#' },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    nonce: String(item.nonce),
    partnerId: Number(item.partnerId),
    expiresAt: String(item.expiresAt),
  }));
}

/**
 * What an erasure leaves of a link issued for the host: no e-mail address, masked or not, in its
 * record, and not listed under the address any more.
 */
export function linkOfErasedHostItems(email: string, nonce: string): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: issuedLinkKey(nonce),
        // The partner's hotel id goes too: the erasure deletes the claim that tied it to the host.
        UpdateExpression: 'SET hostEmailMasked = :erased, pmsHotelId = :erased',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':erased': ERASED_EMAIL },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: { PK: issuedLinksOfEmailPartition(email), SK: `LINK#${nonce}` },
      },
    },
  ];
}

/** What `links list` shows in place of an erased host's masked address. */
const ERASED_EMAIL = '(erased)';

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
