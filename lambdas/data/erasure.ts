import { randomUUID } from 'node:crypto';
import { DeleteCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../core/contract/platform-events';
import type { ServiceEvent } from '../../core/contract/service-events';
import { partnerPartition, propertyPartition } from '../../core/partitions';
import { transactionCancellationCodes } from '../common/aws-errors';
import { linkOfErasedHostItems, listLinksOfEmail } from './activation-links';
import { nonceWithdrawalItem } from './activation-nonces';
import { auditEventItem, PLATFORM_ACTOR } from './audit';
import { dynamoDb, MAX_TRANSACTION_ITEMS, sortableId, type TransactItem, tableName } from './db';
import type { EventOutcome } from './event-versions';
import { publishedBeforeCreation, RefusedEventError } from './event-versions';
import type { HostRecord } from './hosts';
import { getHostRecord, hostErasureAnnouncedItem, hostErasureItems, markEmailClaimErasing } from './hosts';
import { knowledgeBaseDeletionItem } from './knowledge-base';
import { eraseOutboxOfHost, outboxEventItem } from './outbox';
import {
  getPropertyAnchor,
  getPropertyOfPartner,
  propertyDeletionItems,
  propertyErasedItem,
} from './properties';
import { getSponsorship, sponsorshipDeletionItem } from './sponsorships';

/*
 * `HostErasureRequested` (docs/design/events.md#erasure). In order, each step safe to run again:
 * 1. the address's claim is marked, so that no link can be issued for it any more until it goes;
 *    the host's unused activation links are ended and its address taken out of every link record;
 * 2. the decisive transaction: the account becomes a tombstone (no e-mail address, no name), its
 *    e-mail claim goes, and for every property the partner's item (its name), the PMS claim, the
 *    wizard's answers and a mark on the property's own item that blocks every later write; its
 *    sponsorships go. Partners stop seeing the host here. One transaction for a host with up to 24
 *    properties under one partner; beyond, the account and the first properties in the first, the
 *    rest right after;
 * 3. what is left and names no one is deleted: seats, reservations and their aggregates;
 * 4. the events about the host in the outbox keep their ids and lose the rest (an event still
 *    waiting to be delivered then never is), and `HostErased` goes to the platform, once.
 * The event is acknowledged only when all of it is done; a delivery cut short is delivered again
 * and carries on (the tombstone remembers what to look for).
 */

/** Deletes run this many at a time in the last step. */
const DELETE_CONCURRENCY = 16;

/** The erasure ran out of time in this delivery: the next one carries on from where it stopped. */
class ErasureUnfinishedError extends Error {
  override readonly name = 'ErasureUnfinishedError';
}

/** Step 1: links issued for the address and never used stop working; none keeps the address. */
async function endLinksOfHost(email: string, nowIso: string): Promise<void> {
  for (const link of await listLinksOfEmail(email)) {
    try {
      await dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [nonceWithdrawalItem(link.partnerId, link.nonce, link.expiresAt, nowIso)],
        }),
      );
    } catch (error) {
      // Used already (or withdrawn by an earlier delivery): it stays as it is.
      if (transactionCancellationCodes(error)?.[0] !== 'ConditionalCheckFailed') throw error;
    }
    try {
      await dynamoDb().send(
        new TransactWriteCommand({ TransactItems: linkOfErasedHostItems(email, link.nonce) }),
      );
    } catch (error) {
      // The link's record is gone (its retention ended): only the listing was left to delete.
      if (transactionCancellationCodes(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      await dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [linkOfErasedHostItems(email, link.nonce)[1] as TransactItem],
        }),
      );
    }
  }
}

/** Step 2's items for one property not marked erased yet: everything of it that names or shows the host. */
async function propertyErasureItems(propertyId: number, nowIso: string): Promise<TransactItem[]> {
  const anchor = await getPropertyAnchor(propertyId);
  if (!anchor || anchor.erasedAt !== undefined) return [];
  const property = await getPropertyOfPartner(anchor.partnerId, propertyId, {
    consistent: true,
    includeEnded: true,
  });
  return [
    propertyErasedItem(propertyId, nowIso),
    knowledgeBaseDeletionItem(propertyId),
    ...(property ? propertyDeletionItems(property) : []),
  ];
}

/**
 * Step 2 for what the tombstone names and is not erased yet, in transactions of at most 100 items
 * that never split one property's items; `first` (the account, its claim, the audit events) goes
 * in the first.
 */
async function eraseDecisively(record: HostRecord, first: TransactItem[], nowIso: string): Promise<void> {
  const sponsorships = await Promise.all(
    record.sponsors.map(async (partnerId) =>
      (await getSponsorship(partnerId, record.id)) ? [sponsorshipDeletionItem(partnerId, record.id)] : [],
    ),
  );
  const groups = await Promise.all(
    record.propertyIds.map((propertyId) => propertyErasureItems(propertyId, nowIso)),
  );
  const transactions: TransactItem[][] = [[...first, ...sponsorships.flat()]];
  for (const group of groups) {
    const last = transactions.at(-1) ?? [];
    if (last.length + group.length <= MAX_TRANSACTION_ITEMS) last.push(...group);
    else transactions.push([...group]);
  }
  for (const items of transactions.filter((items) => items.length > 0))
    await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
}

/** Every item of a query, key only. */
async function keysOf(input: {
  KeyConditionExpression: string;
  ExpressionAttributeValues: Record<string, unknown>;
}) {
  const keys: { PK: unknown; SK: unknown }[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDb().send(
      new QueryCommand({
        TableName: tableName(),
        ...input,
        ProjectionExpression: 'PK, SK',
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) keys.push({ PK: item.PK, SK: item.SK });
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return keys;
}

/**
 * Step 3: the seats and the property partitions (reservations, aggregates) of the erased host,
 * all but the properties' own items, which stay as tombstones. Stops at `deadlineMs`.
 */
async function deleteWhatIsLeft(record: HostRecord, deadlineMs: number): Promise<void> {
  const anchors = await Promise.all(record.propertyIds.map((propertyId) => getPropertyAnchor(propertyId)));
  for (const anchor of anchors) {
    if (!anchor) continue;
    const keys = [
      ...(await keysOf({
        KeyConditionExpression: 'PK = :partner AND begins_with(SK, :seats)',
        ExpressionAttributeValues: {
          ':partner': partnerPartition(anchor.partnerId),
          ':seats': `SEAT#${sortableId(anchor.propertyId)}#`,
        },
      })),
      ...(
        await keysOf({
          KeyConditionExpression: 'PK = :property',
          ExpressionAttributeValues: { ':property': propertyPartition(anchor.propertyId) },
        })
      ).filter((key) => key.SK !== 'PROPERTY'),
    ];
    for (let start = 0; start < keys.length; start += DELETE_CONCURRENCY) {
      if (Date.now() > deadlineMs)
        throw new ErasureUnfinishedError(`Erasure of host ${record.id} continues in the next delivery.`);
      await Promise.all(
        keys
          .slice(start, start + DELETE_CONCURRENCY)
          .map((Key) => dynamoDb().send(new DeleteCommand({ TableName: tableName(), Key }))),
      );
    }
  }
}

/**
 * Erases a host. Irreversible and idempotent: a second request, or a delivery after one cut short,
 * finishes what is left and changes nothing else. Refused for a host id that never existed.
 */
export async function eraseHost(
  detail: PlatformEventDetail<'HostErasureRequested'>,
  publishedAt: string | undefined,
  nowIso: string,
  deadlineMs: number,
): Promise<EventOutcome> {
  const hostId = detail.host_user_id;
  const found = await getHostRecord(hostId);
  if (!found) throw new RefusedEventError(`no host ${hostId}`);
  const { account } = found;
  // A request published before this account existed was about no one (or an id's earlier holder).
  const refusal = publishedBeforeCreation(publishedAt, account?.createdAt, `host ${hostId}`);
  if (refusal) throw refusal;
  // Erasure cannot be undone, so no margin here: a host cannot have asked before its account existed
  // (compared to the whole second, which is all a platform's time may carry).
  if (account && Date.parse(detail.requested_at) < Math.floor(Date.parse(account.createdAt) / 1000) * 1000)
    throw new RefusedEventError(
      `host ${hostId} was created at ${account.createdAt}, after the erasure was requested (${detail.requested_at}): the request is not about this account`,
    );
  let first: TransactItem[] = [];
  if (account) {
    await markEmailClaimErasing(account.email, hostId, nowIso);
    await endLinksOfHost(account.email, nowIso);
    first = [
      ...hostErasureItems(account, detail.requested_at, nowIso),
      ...found.sponsors.map((partnerId) =>
        auditEventItem({
          at: nowIso,
          actor: PLATFORM_ACTOR,
          action: 'host.erased',
          partnerId,
          hostId,
          details: { requested_at: detail.requested_at, properties: found.propertyIds.length },
        }),
      ),
    ];
    await eraseDecisively(found, first, nowIso);
  }
  // The tombstone as stored now: it names what a provisioning added meanwhile, and what an
  // earlier delivery did not reach.
  const tombstone = (await getHostRecord(hostId)) ?? found;
  await eraseDecisively(tombstone, [], nowIso);
  await deleteWhatIsLeft(tombstone, deadlineMs);
  await eraseOutboxOfHost(hostId, nowIso);
  await announceErasure(hostId, tombstone.erasureRequestedAt ?? detail.requested_at, nowIso);
  return account ? 'applied' : 'duplicate';
}

/** Step 4's last write: `HostErased` from the outbox, with the tombstone's mark that it was sent. */
async function announceErasure(hostId: number, requestedAt: string, nowIso: string): Promise<void> {
  const event: ServiceEvent<'HostErased'> = {
    type: 'HostErased',
    detail: { event_id: randomUUID(), host_user_id: hostId, requested_at: requestedAt, erased_at: nowIso },
  };
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [hostErasureAnnouncedItem(hostId, nowIso), outboxEventItem(event)],
      }),
    );
  } catch (error) {
    // Sent by an earlier delivery of the request: nothing more to say.
    if (transactionCancellationCodes(error)?.[0] !== 'ConditionalCheckFailed') throw error;
  }
}
