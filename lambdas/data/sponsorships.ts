import { partnerPartition } from '../../core/partitions';
import { queryAll, sortableId, type TransactItem, tableName } from './db';

/** A partner's sponsorship of a host, with the host's active seat count under that partner. */
const sponsorshipKey = (partnerId: number, hostId: number) => ({
  PK: partnerPartition(partnerId),
  SK: `HOST#${sortableId(hostId)}`,
});

/**
 * Creates the sponsorship if needed and adds newly activated seats to its counter; inside the
 * provisioning transaction, so the counter always equals the seat items.
 */
export function sponsorshipSeatsItem(
  partnerId: number,
  hostId: number,
  addedSeats: number,
  nowIso: string,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: sponsorshipKey(partnerId, hostId),
      UpdateExpression:
        'SET hostUserId = :hostId, partnerId = :partnerId, sponsoredSince = if_not_exists(sponsoredSince, :now), GSI1PK = :hostIndex, GSI1SK = :partnerIndex ADD activeSeats :added',
      ExpressionAttributeValues: {
        ':hostId': hostId,
        ':partnerId': partnerId,
        ':now': nowIso,
        ':hostIndex': `HOST#${hostId}#SPONSORS`,
        ':partnerIndex': partnerPartition(partnerId),
        ':added': addedSeats,
      },
    },
  };
}

export interface SponsoredHostSeats {
  readonly hostUserId: number;
  readonly activeSeats: number;
}

/** Every host the partner sponsors with its active seats (one Query, paged). */
export async function listSponsoredHostSeats(partnerId: number): Promise<SponsoredHostSeats[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :partner AND begins_with(SK, :host)',
    ExpressionAttributeValues: { ':partner': partnerPartition(partnerId), ':host': 'HOST#' },
    ProjectionExpression: 'hostUserId, activeSeats',
  });
  return items.map((item) => ({
    hostUserId: Number(item.hostUserId),
    activeSeats: Number(item.activeSeats ?? 0),
  }));
}
