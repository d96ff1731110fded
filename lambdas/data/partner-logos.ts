import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LogoType, PartnerBranding } from '../../core/domain/branding';
import { LOGO_TYPES } from '../../core/domain/branding';
import { partnerPartition } from '../../core/partitions';
import { dynamoDb, type TransactItem, tableName } from './db';
import { partnerKey } from './partners';

/**
 * A partner's logo: an item of its own in the partner's partition, beside the partner item that
 * names its type and digest. The partner item stays small (every page, key issue and CLI listing
 * reads it; a listing reads every partner's), and the 400 KB item limit is far from a logo of at
 * most `MAX_LOGO_BYTES`.
 */
const logoKey = (partnerId: number) => ({ PK: partnerPartition(partnerId), SK: 'LOGO' });

export interface PartnerLogo {
  readonly contentType: LogoType;
  /** The file, base64. */
  readonly data: string;
  readonly sha256: string;
}

export const logoDigest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');

export async function getPartnerLogo(partnerId: number): Promise<PartnerLogo | undefined> {
  const { Item } = await dynamoDb().send(new GetCommand({ TableName: tableName(), Key: logoKey(partnerId) }));
  if (
    !Item ||
    typeof Item.data !== 'string' ||
    typeof Item.sha256 !== 'string' ||
    !(LOGO_TYPES as readonly unknown[]).includes(Item.contentType)
  )
    return undefined;
  return { contentType: Item.contentType as LogoType, data: Item.data, sha256: Item.sha256 };
}

/**
 * Transaction items that replace a partner's branding: the partner item's `branding` (only that
 * attribute: the agreement and everything else stay as they are) and the logo item, written with
 * a new logo (`logo` given) or deleted (`logo: null`); `undefined` keeps the stored one.
 */
export function brandingUpdateItems(
  partnerId: number,
  branding: PartnerBranding,
  logo: { bytes: Uint8Array; contentType: LogoType } | null | undefined,
): TransactItem[] {
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: partnerKey(partnerId),
        UpdateExpression: 'SET branding = :branding',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':branding': branding },
      },
    },
  ];
  if (logo === null) items.push({ Delete: { TableName: tableName(), Key: logoKey(partnerId) } });
  else if (logo)
    items.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...logoKey(partnerId),
          contentType: logo.contentType,
          data: Buffer.from(logo.bytes).toString('base64'),
          sha256: logoDigest(logo.bytes),
        },
      },
    });
  return items;
}
