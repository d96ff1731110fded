import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, TABLE_NAME, ttlEpochSeconds } from './db';
import { ACTIVATION_LINK_PARTITION } from './partitions';

/**
 * Links an operator issued (no token, no claims: only whose it is and until when). It lets the
 * activation page tell a link made for another partner from a forged one, and operators see
 * which links exist.
 */
export interface IssuedLink {
  readonly nonce: string;
  readonly partnerId: number;
  readonly issuedAt: string;
  readonly expiresAt: string;
}

const issuedLinkKey = (nonce: string) => ({
  PK: `${ACTIVATION_LINK_PARTITION}${nonce}`,
  SK: 'ACTIVATION_LINK',
});

export async function recordIssuedLink(link: IssuedLink): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        ...issuedLinkKey(link.nonce),
        ...link,
        ttl: ttlEpochSeconds(Date.parse(link.expiresAt) + 86_400_000),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getIssuedLink(nonce: string): Promise<IssuedLink | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: issuedLinkKey(nonce) }),
  );
  return Item
    ? {
        nonce: String(Item.nonce),
        partnerId: Number(Item.partnerId),
        issuedAt: String(Item.issuedAt),
        expiresAt: String(Item.expiresAt),
      }
    : undefined;
}
