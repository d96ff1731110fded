import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../core/contract/platform-events';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import { partnerPartition } from '../../core/partitions';
import { dynamoDb, sortableId, type TransactItem, tableName } from './db';
import type { EventOutcome } from './event-versions';
import { RefusedEventError, storedVersionOf, versionVerdict } from './event-versions';
import { getAgreementProducts } from './partners';
import type { PropertyAnchor } from './properties';
import { propertyNotErasedCheckItem } from './properties';
import { sponsorshipSeatDeltaItem } from './sponsorships';

/**
 * A seat: one product active on one sponsored property (`PARTNER#<id>` / `SEAT#<property>#<product>`).
 * Provisioning creates seats; the platform's `SeatActivated` and `SeatDeactivated` switch them on
 * and off after (docs/design/events.md#seats). An inactive seat stays stored with its version.
 */
export interface Seat {
  readonly partnerId: number;
  readonly propertyId: number;
  readonly hostUserId: number;
  readonly productId: ProductId;
  readonly activatedAt: string;
}

export type SeatStatus = 'active' | 'inactive';

const seatKey = (partnerId: number, propertyId: number, productId: ProductId) => ({
  PK: partnerPartition(partnerId),
  SK: `SEAT#${sortableId(propertyId)}#${productId}`,
});

/** The seats of a property as stored, active or not, by product. */
export async function listSeatsOfProperty(
  partnerId: number,
  propertyId: number,
): Promise<Map<ProductId, SeatStatus>> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :partner AND begins_with(SK, :seats)',
      ExpressionAttributeValues: {
        ':partner': partnerPartition(partnerId),
        ':seats': `SEAT#${sortableId(propertyId)}#`,
      },
      ConsistentRead: true,
    }),
  );
  return new Map(
    Items.filter((item) => isProductId(String(item.productId))).map((item) => [
      String(item.productId),
      item.status === 'inactive' ? 'inactive' : 'active',
    ]),
  );
}

/** Products active on a property. */
export async function listActiveProductsOfProperty(
  partnerId: number,
  propertyId: number,
): Promise<ProductId[]> {
  const seats = await listSeatsOfProperty(partnerId, propertyId);
  return [...seats].filter(([, status]) => status === 'active').map(([productId]) => productId);
}

/**
 * A seat provisioning activates: a new one (a product is never activated twice on a property), or
 * one switched off before and chosen again. `provisionedAt` tells later events that a host chose
 * it then (a deactivation from before does not undo it).
 */
export function seatActivationItem(seat: Seat, existing: SeatStatus | undefined): TransactItem {
  const key = seatKey(seat.partnerId, seat.propertyId, seat.productId);
  if (existing === undefined)
    return {
      Put: {
        TableName: tableName(),
        Item: { ...key, ...seat, status: 'active', provisionedAt: seat.activatedAt },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #status = :active, activatedAt = :now, provisionedAt = :now',
      ConditionExpression: '#status = :inactive',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':active': 'active', ':inactive': 'inactive', ':now': seat.activatedAt },
    },
  };
}

/**
 * A seat already active that a host chose again through an activation link: `provisionedAt` moves
 * to now, so a deactivation the platform made before this choice, delivered after it, does not
 * undo it (docs/design/events.md#versions).
 */
export function seatChosenAgainItem(
  seat: Pick<Seat, 'partnerId' | 'propertyId' | 'productId'>,
  nowIso: string,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: seatKey(seat.partnerId, seat.propertyId, seat.productId),
      UpdateExpression: 'SET provisionedAt = :now',
      ConditionExpression: '#status = :active',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':active': 'active', ':now': nowIso },
    },
  };
}

/**
 * `SeatActivated` / `SeatDeactivated` on a property of `anchor`: the seat follows the event of
 * the greatest version, and its host's seat counter moves with it, in one transaction conditioned
 * on the seat as read. An activation needs the product in the partner's agreement; a deactivation
 * applies to any seat stored, and to one not seen yet only for a product of the agreement (a
 * deactivation that arrives before its activation). A deactivation that occurred before a host
 * chose the product again through an activation link records its version and changes nothing.
 */
export async function applySeatEvent(
  type: 'SeatActivated' | 'SeatDeactivated',
  detail: PlatformEventDetail<'SeatActivated'>,
  anchor: PropertyAnchor,
  fingerprint: string,
  nowIso: string,
): Promise<EventOutcome> {
  const { partnerId, propertyId, hostUserId } = anchor;
  const productId = detail.product_id;
  const key = seatKey(partnerId, propertyId, productId);
  const { Item: stored } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  const entity = `the ${productId} seat of property ${propertyId}`;
  const verdict = versionVerdict(storedVersionOf(stored), detail.version, fingerprint, entity);
  if (verdict !== 'newer') return verdict;
  const wasActive = stored !== undefined && stored.status !== 'inactive';
  const activating = type === 'SeatActivated';
  if (activating || stored === undefined) {
    const agreement = await getAgreementProducts(partnerId);
    if (!agreement?.includes(productId))
      throw new RefusedEventError(
        `${productId} is not in the agreement of partner ${partnerId}, which sponsors property ${propertyId}: ` +
          'its seats are never counted for that partner (widen the agreement, then redrive)',
      );
  }
  const chosenSince = typeof stored?.provisionedAt === 'string' ? stored.provisionedAt : undefined;
  // Instants compared as instants: "…05Z" and "…05.500Z" do not sort as text the way they occur.
  const isActive =
    activating ||
    (wasActive && chosenSince !== undefined && Date.parse(detail.occurred_at) <= Date.parse(chosenSince));
  const delta = (isActive ? 1 : 0) - (wasActive ? 1 : 0);
  const readVersion = storedVersionOf(stored).version;
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...key,
          partnerId,
          propertyId,
          hostUserId,
          productId,
          status: isActive ? 'active' : 'inactive',
          activatedAt: isActive && !wasActive ? nowIso : (stored?.activatedAt ?? nowIso),
          ...(chosenSince ? { provisionedAt: chosenSince } : {}),
          version: detail.version,
          eventFingerprint: fingerprint,
          changedAt: detail.occurred_at,
        },
        // The seat as read, the host's last choice of it included: nothing else changed it meanwhile.
        ConditionExpression:
          stored === undefined
            ? 'attribute_not_exists(PK)'
            : [
                '#status = :status',
                readVersion === undefined ? 'attribute_not_exists(version)' : 'version = :read',
                chosenSince === undefined ? 'attribute_not_exists(provisionedAt)' : 'provisionedAt = :chosen',
              ].join(' AND '),
        ...(stored === undefined
          ? {}
          : {
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': stored.status,
                ...(readVersion === undefined ? {} : { ':read': readVersion }),
                ...(chosenSince === undefined ? {} : { ':chosen': chosenSince }),
              },
            }),
      },
    },
    propertyNotErasedCheckItem(propertyId),
  ];
  if (delta !== 0) items.push(sponsorshipSeatDeltaItem(partnerId, hostUserId, delta));
  await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
  return 'applied';
}
