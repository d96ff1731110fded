import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../core/contract/platform-events';
import { partnerPartition } from '../../core/partitions';
import { transactionCancellationCodes } from '../common/aws-errors';
import { auditEventItem, PLATFORM_ACTOR } from './audit';
import { dynamoDb, MAX_TRANSACTION_ITEMS, queryAll, sortableId, type TransactItem, tableName } from './db';
import type { EventOutcome } from './event-versions';
import {
  publishedBeforeCreation,
  RefusedEventError,
  storedVersionOf,
  versionVerdict,
} from './event-versions';
import { getHostStanding } from './hosts';
import { propertySponsorshipEndedItem, propertySponsorshipResumedItem } from './properties';

/**
 * A partner's sponsorship of a host (`PARTNER#<id>` / `HOST#<hostId>`): the host's active seat
 * count under that partner, the properties provisioned under it, and whether it has ended
 * (docs/design/events.md#sponsorships).
 */
const sponsorshipKey = (partnerId: number, hostId: number) => ({
  PK: partnerPartition(partnerId),
  SK: `HOST#${sortableId(hostId)}`,
});

export interface Sponsorship {
  readonly partnerId: number;
  readonly hostUserId: number;
  readonly activeSeats: number;
  readonly propertyIds: readonly number[];
  /** Set while the sponsorship has ended: the partner does not see the host. */
  readonly endedAt?: string;
  /** When the partner first sponsored the host. */
  readonly sponsoredSince?: string;
  /** When provisioning last sponsored the host (an ending from before it does not end it). */
  readonly lastProvisionedAt?: string;
  readonly version?: number;
  readonly eventFingerprint?: string;
}

function toSponsorship(item: Record<string, unknown>): Sponsorship {
  return {
    partnerId: Number(item.partnerId),
    hostUserId: Number(item.hostUserId),
    activeSeats: Number(item.activeSeats ?? 0),
    propertyIds:
      item.propertyIds instanceof Set ? [...item.propertyIds].map(Number).sort((a, b) => a - b) : [],
    ...(typeof item.endedAt === 'string' ? { endedAt: item.endedAt } : {}),
    ...(typeof item.sponsoredSince === 'string' ? { sponsoredSince: item.sponsoredSince } : {}),
    ...(typeof item.lastProvisionedAt === 'string' ? { lastProvisionedAt: item.lastProvisionedAt } : {}),
    ...storedVersionOf(item),
  };
}

/** The sponsorship, strongly consistent. */
export async function getSponsorship(partnerId: number, hostId: number): Promise<Sponsorship | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: sponsorshipKey(partnerId, hostId), ConsistentRead: true }),
  );
  return Item ? toSponsorship(Item) : undefined;
}

/**
 * Creates the sponsorship if needed, or sponsors the host again if it had ended, adds the
 * provisioned property and the newly activated seats; inside the provisioning transaction, so the
 * counter always equals the active seat items. Conditioned on the ending as provisioning read it
 * (`endedAt`, or none): an ending applied meanwhile makes provisioning read again, and bring back
 * the properties that ending hid.
 */
export function sponsorshipSeatsItem(
  partnerId: number,
  hostId: number,
  propertyId: number,
  addedSeats: number,
  nowIso: string,
  endedAtAsRead: string | undefined,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: sponsorshipKey(partnerId, hostId),
      UpdateExpression:
        'SET hostUserId = :hostId, partnerId = :partnerId, sponsoredSince = if_not_exists(sponsoredSince, :now), lastProvisionedAt = :now, GSI1PK = :hostIndex, GSI1SK = :partnerIndex ADD activeSeats :added, propertyIds :property REMOVE endedAt',
      ConditionExpression: endedAtAsRead === undefined ? 'attribute_not_exists(endedAt)' : 'endedAt = :ended',
      ExpressionAttributeValues: {
        ...(endedAtAsRead === undefined ? {} : { ':ended': endedAtAsRead }),
        ':hostId': hostId,
        ':partnerId': partnerId,
        ':now': nowIso,
        ':hostIndex': `HOST#${hostId}#SPONSORS`,
        ':partnerIndex': partnerPartition(partnerId),
        ':added': addedSeats,
        ':property': new Set([propertyId]),
      },
    },
  };
}

/**
 * Moves the sponsorship's seat counter by `delta` (a seat switched on or off), never below zero,
 * and only while the sponsorship exists (an erasure deletes it).
 */
export function sponsorshipSeatDeltaItem(partnerId: number, hostId: number, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: sponsorshipKey(partnerId, hostId),
      UpdateExpression: 'ADD activeSeats :delta',
      ConditionExpression: `attribute_exists(PK)${delta < 0 ? ' AND activeSeats >= :floor' : ''}`,
      ExpressionAttributeValues: { ':delta': delta, ...(delta < 0 ? { ':floor': -delta } : {}) },
    },
  };
}

/** Deletes the sponsorship (an erasure). */
export function sponsorshipDeletionItem(partnerId: number, hostId: number): TransactItem {
  return { Delete: { TableName: tableName(), Key: sponsorshipKey(partnerId, hostId) } };
}

export interface SponsoredHostSeats {
  readonly hostUserId: number;
  readonly activeSeats: number;
}

/** Every host the partner sponsors with its active seats (one Query, paged); ended ones are left out. */
export async function listSponsoredHostSeats(partnerId: number): Promise<SponsoredHostSeats[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :partner AND begins_with(SK, :host)',
    FilterExpression: 'attribute_not_exists(endedAt)',
    ExpressionAttributeValues: { ':partner': partnerPartition(partnerId), ':host': 'HOST#' },
    ProjectionExpression: 'hostUserId, activeSeats',
  });
  return items.map((item) => ({
    hostUserId: Number(item.hostUserId),
    activeSeats: Number(item.activeSeats ?? 0),
  }));
}

/** Properties hidden in the ending's first transaction, beside the sponsorship and its audit event. */
const ROOM_BESIDE_THE_SPONSORSHIP = MAX_TRANSACTION_ITEMS - 2;

/** Writes items in transactions of at most 100, the first transaction holding `first`. */
async function writeInTransactions(first: TransactItem[], rest: TransactItem[]): Promise<void> {
  if (first.length + rest.length === 0) return;
  const room = MAX_TRANSACTION_ITEMS - first.length;
  await dynamoDb().send(new TransactWriteCommand({ TransactItems: [...first, ...rest.slice(0, room)] }));
  for (let start = room; start < rest.length; start += MAX_TRANSACTION_ITEMS) {
    await dynamoDb().send(
      new TransactWriteCommand({ TransactItems: rest.slice(start, start + MAX_TRANSACTION_ITEMS) }),
    );
  }
}

/**
 * `SponsorshipEnded`: the partner stops seeing the host and its properties. Applied when its
 * version is greater than the sponsorship's; an ending that occurred before provisioning last
 * sponsored the host records its version but leaves the newer sponsorship in place. One
 * transaction for a host with fewer than 98 properties under the partner; beyond, the sponsorship
 * and the first properties in the first, the other properties right after.
 */
export async function endSponsorship(
  detail: PlatformEventDetail<'SponsorshipEnded'>,
  fingerprint: string,
  publishedAt: string | undefined,
  nowIso: string,
): Promise<EventOutcome> {
  const { partner_id: partnerId, host_user_id: hostId, version } = detail;
  const sponsorship = await getSponsorship(partnerId, hostId);
  if (!sponsorship) {
    if ((await getHostStanding(hostId)) === 'erased') return 'erased';
    throw new RefusedEventError(`partner ${partnerId} has no sponsorship of host ${hostId}`);
  }
  const refusal = publishedBeforeCreation(
    publishedAt,
    sponsorship.sponsoredSince,
    `the sponsorship of host ${hostId} by partner ${partnerId}`,
  );
  if (refusal) throw refusal;
  const verdict = versionVerdict(
    sponsorship,
    version,
    fingerprint,
    `the sponsorship of host ${hostId} by partner ${partnerId}`,
  );
  if (verdict === 'duplicate' && sponsorship.endedAt !== undefined) {
    // A delivery that ended before the last of several transactions: hide what it did not reach.
    await writeInTransactions(
      [],
      sponsorship.propertyIds
        .slice(ROOM_BESIDE_THE_SPONSORSHIP)
        .map((propertyId) => propertySponsorshipEndedItem(partnerId, propertyId, nowIso)),
    );
  }
  if (verdict !== 'newer') return verdict;
  const endsIt =
    sponsorship.endedAt === undefined &&
    (sponsorship.lastProvisionedAt === undefined ||
      Date.parse(detail.occurred_at) > Date.parse(sponsorship.lastProvisionedAt));
  const sponsorshipItem: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: sponsorshipKey(partnerId, hostId),
      UpdateExpression: `SET version = :version, eventFingerprint = :fingerprint${endsIt ? ', endedAt = :now' : ''}`,
      // What was read still holds: the version, and the last provisioning the decision compared.
      ConditionExpression:
        'attribute_exists(PK) AND ' +
        (sponsorship.version === undefined ? 'attribute_not_exists(version)' : 'version = :read') +
        ' AND ' +
        (sponsorship.lastProvisionedAt === undefined
          ? 'attribute_not_exists(lastProvisionedAt)'
          : 'lastProvisionedAt = :provisioned'),
      ExpressionAttributeValues: {
        ':version': version,
        ':fingerprint': fingerprint,
        ...(endsIt ? { ':now': nowIso } : {}),
        ...(sponsorship.version === undefined ? {} : { ':read': sponsorship.version }),
        ...(sponsorship.lastProvisionedAt === undefined
          ? {}
          : { ':provisioned': sponsorship.lastProvisionedAt }),
      },
    },
  };
  const first = [sponsorshipItem];
  if (endsIt)
    first.push(
      auditEventItem({
        at: nowIso,
        actor: PLATFORM_ACTOR,
        action: 'sponsorship.ended',
        partnerId,
        hostId,
        details: { version, occurred_at: detail.occurred_at },
      }),
    );
  const hidden = endsIt
    ? sponsorship.propertyIds.map((propertyId) => propertySponsorshipEndedItem(partnerId, propertyId, nowIso))
    : [];
  await writeInTransactions(first, hidden);
  return 'applied';
}

/**
 * When provisioning sponsors a host again: its other properties under the partner, hidden when the
 * sponsorship ended, are the partner's again. `now` fits them in the provisioning transaction (so
 * they come back with the sponsorship, or not at all); `later` are the rest, for `resumeLater`.
 */
export function resumedPropertyItems(
  sponsorship: Sponsorship,
  exceptPropertyId: number,
  room: number,
): { now: TransactItem[]; later: TransactItem[] } {
  const items = sponsorship.propertyIds
    .filter((propertyId) => propertyId !== exceptPropertyId)
    .map((propertyId) => propertySponsorshipResumedItem(sponsorship.partnerId, propertyId));
  return items.length <= room ? { now: items, later: [] } : { now: [], later: items };
}

/**
 * The properties a host with many of them gets back after the provisioning transaction, each
 * transaction conditioned on that provisioning being still the last word: an ending applied
 * meanwhile hid them, and they stay hidden.
 */
export async function resumeLater(
  partnerId: number,
  hostId: number,
  provisionedAt: string,
  items: TransactItem[],
): Promise<void> {
  const stillSponsored: TransactItem = {
    ConditionCheck: {
      TableName: tableName(),
      Key: sponsorshipKey(partnerId, hostId),
      ConditionExpression: 'attribute_not_exists(endedAt) AND lastProvisionedAt = :provisioned',
      ExpressionAttributeValues: { ':provisioned': provisionedAt },
    },
  };
  for (let start = 0; start < items.length; start += MAX_TRANSACTION_ITEMS - 1) {
    try {
      await dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [stillSponsored, ...items.slice(start, start + MAX_TRANSACTION_ITEMS - 1)],
        }),
      );
    } catch (error) {
      if (transactionCancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return;
      throw error;
    }
  }
}
