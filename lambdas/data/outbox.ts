import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent, ServiceEventType } from '../../core/contract/service-events';
import type { OutboundEntry } from '../../core/outbound-delivery';
import {
  OUTBOX_RETENTION_DAYS,
  OUTBOX_SUMMARY_ATTRIBUTES,
  SERVICE_EVENT_TYPES,
} from '../../core/outbound-delivery';
import { OUTBOX_INDEX_PARTITION, OUTBOX_PARTITION } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, GSI1, queryAll, type TransactItem, tableName, ttlEpochSeconds } from './db';

/*
 * The outbox (docs/design/events.md#what-this-service-sends): each event this service sends the
 * platform is an item written in the same transaction as the change it reports, so a change that
 * commits has its event and one that fails has none. The table's stream carries the item's keys to
 * an EventBridge Pipe, whose enrichment (`takeForDelivery`) reads it and gives it to the stage's bus.
 *
 * `OUTBOX#<host>` / `<occurred at>#<event id>`: one partition per host, where an erasure finds every
 * event about the host with a strongly consistent query; on the index, `OUTBOX_DAY#<UTC day>` by
 * time, for `events sent`. Kept `OUTBOX_RETENTION_DAYS`, then the table's TTL deletes it.
 */

const outboxKey = (hostUserId: number, occurredAt: string, eventId: string) => ({
  PK: `${OUTBOX_PARTITION}${hostUserId}`,
  SK: `${occurredAt}#${eventId}`,
});
const dayPartition = (iso: string) => `${OUTBOX_INDEX_PARTITION}${iso.slice(0, 10)}`;
const DAY_MS = 86_400_000;

/** The ids an event is about: kept when an erasure takes out everything else. */
function idsOf(event: ServiceEvent): { hostUserId: number; propertyId?: number; partnerId?: number } {
  const detail = event.detail as Record<string, unknown>;
  const property = detail.property as { property_id?: unknown } | undefined;
  const propertyId = detail.property_id ?? property?.property_id;
  return {
    hostUserId: Number(detail.host_user_id),
    ...(typeof propertyId === 'number' ? { propertyId } : {}),
    ...(typeof detail.partner_id === 'number' ? { partnerId: detail.partner_id } : {}),
  };
}

/** When an event's change happened: its `occurred_at`, or when an erasure was done. */
function occurredAtOf(event: ServiceEvent): string {
  return event.type === 'HostErased' ? event.detail.erased_at : event.detail.occurred_at;
}

/** Where an event is in its host's partition: what a page keeps to ask later whether it was sent. */
export const outboxSortKey = (event: ServiceEvent) => `${occurredAtOf(event)}#${event.detail.event_id}`;

/**
 * When the pipe took an event of the outbox for delivery: none while it waits (strongly consistent).
 */
export async function sentAtOf(hostUserId: number, sortKey: string): Promise<string | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: `${OUTBOX_PARTITION}${hostUserId}`, SK: sortKey },
      ProjectionExpression: 'sentAt',
      ConsistentRead: true,
    }),
  );
  return typeof Item?.sentAt === 'string' ? Item.sentAt : undefined;
}

/**
 * The put that records an event in the outbox, inside the transaction of the change it reports
 * (never alone: an event without its change, or a change without its event, is what the outbox
 * exists to rule out).
 */
export function outboxEventItem(event: ServiceEvent): TransactItem {
  const occurredAt = occurredAtOf(event);
  const ids = idsOf(event);
  const detail = event.detail as Record<string, unknown>;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        PK: `${OUTBOX_PARTITION}${ids.hostUserId}`,
        SK: outboxSortKey(event),
        GSI1PK: dayPartition(occurredAt),
        GSI1SK: `${occurredAt}#${event.detail.event_id}`,
        eventId: event.detail.event_id,
        detailType: event.type,
        detail,
        occurredAt,
        ...ids,
        ...(typeof detail.version === 'number' ? { version: detail.version } : {}),
        // Kept the retention from when it is written (an event about an earlier time, such as a
        // demo host's provisioning, is kept the full retention too).
        ttl: ttlEpochSeconds(Math.max(Date.parse(occurredAt), Date.now()) + OUTBOX_RETENTION_DAYS * DAY_MS),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** An event of the outbox as `events sent` shows it. */
export interface OutboxEvent {
  readonly eventId: string;
  readonly detailType: ServiceEventType;
  readonly occurredAt: string;
  readonly hostUserId: number;
  readonly propertyId?: number;
  readonly partnerId?: number;
  readonly version?: number;
  /** The detail as delivered; none once an erasure took it out (then `erasedAt`). */
  readonly detail?: Record<string, unknown>;
  /** When the pipe took it for delivery (its enrichment read it); none while it waits. */
  readonly sentAt?: string;
  readonly erasedAt?: string;
}

const isEventType = (value: unknown): value is ServiceEventType =>
  typeof value === 'string' && (SERVICE_EVENT_TYPES as readonly string[]).includes(value);

function toOutboxEvent(item: Record<string, unknown>): OutboxEvent | undefined {
  if (!isEventType(item.detailType) || typeof item.eventId !== 'string') return undefined;
  const text = (name: string) => (typeof item[name] === 'string' ? { [name]: item[name] as string } : {});
  const number = (name: string) => (typeof item[name] === 'number' ? { [name]: item[name] as number } : {});
  return {
    eventId: item.eventId,
    detailType: item.detailType,
    occurredAt: String(item.occurredAt),
    hostUserId: Number(item.hostUserId),
    ...number('propertyId'),
    ...number('partnerId'),
    ...number('version'),
    ...(item.detail && typeof item.detail === 'object'
      ? { detail: item.detail as Record<string, unknown> }
      : {}),
    ...text('sentAt'),
    ...text('erasedAt'),
  };
}

/**
 * The pipe's enrichment, for one outbox item the stream named: marks when it was first taken for
 * delivery and gives back what the target sends. Nothing when the item is gone or an erasure took
 * its detail out (an event that waited in the stream while its host was erased is never sent).
 */
export async function takeForDelivery(
  key: { PK: string; SK: string },
  nowIso: string,
): Promise<OutboundEntry | undefined> {
  if (!key.PK.startsWith(OUTBOX_PARTITION)) return undefined;
  try {
    const { Attributes } = await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET sentAt = if_not_exists(sentAt, :now)',
        ConditionExpression: 'attribute_exists(detail)',
        ExpressionAttributeValues: { ':now': nowIso },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const event = Attributes && toOutboxEvent(Attributes);
    return event?.detail
      ? { detailType: event.detailType, time: event.occurredAt, detail: event.detail }
      : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** A Query's projection of the summary attributes (no detail), or of everything. */
function projection(details: boolean) {
  if (details) return {};
  return {
    Select: 'SPECIFIC_ATTRIBUTES' as const,
    ProjectionExpression: OUTBOX_SUMMARY_ATTRIBUTES.map((_, index) => `#a${index}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(
      OUTBOX_SUMMARY_ATTRIBUTES.map((name, index) => [`#a${index}`, name]),
    ),
  };
}

/**
 * The events of the outbox about one host, oldest first (strongly consistent); without `details`,
 * their ids, type, version and times only.
 */
export async function listOutboxOfHost(hostUserId: number, { details = true } = {}): Promise<OutboxEvent[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :host',
    ExpressionAttributeValues: { ':host': `${OUTBOX_PARTITION}${hostUserId}` },
    ConsistentRead: true,
    ...projection(details),
  });
  return items.flatMap((item) => toOutboxEvent(item) ?? []);
}

/**
 * The events of the outbox from `sinceMs` on, oldest first: one index query per UTC day; without
 * `details`, their ids, type, version and times only.
 */
export async function listOutboxSince(
  sinceMs: number,
  nowMs: number,
  limit: number,
  { details = true } = {},
): Promise<OutboxEvent[]> {
  const since = new Date(sinceMs).toISOString();
  // Nothing is kept longer than the retention (and a day for the TTL's own delay): earlier days
  // hold nothing, and are not read one query each.
  const first = Math.max(sinceMs, nowMs - (OUTBOX_RETENTION_DAYS + 1) * DAY_MS);
  const events: OutboxEvent[] = [];
  for (let day = Math.floor(first / DAY_MS) * DAY_MS; day <= nowMs && events.length < limit; day += DAY_MS) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamoDb().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: GSI1,
          KeyConditionExpression: 'GSI1PK = :day AND GSI1SK >= :since',
          ExpressionAttributeValues: { ':day': dayPartition(new Date(day).toISOString()), ':since': since },
          ...projection(details),
          Limit: limit - events.length,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const event = toOutboxEvent(item);
        if (event) events.push(event);
      }
      ExclusiveStartKey = events.length < limit ? page.LastEvaluatedKey : undefined;
    } while (ExclusiveStartKey);
  }
  return events;
}

/**
 * An erasure's part here: every event about the host keeps its ids, type, version and times, and
 * loses its detail (the e-mail address, names, the wizard's answers), whether it was delivered or
 * still waits (then it is never delivered: `takeForDelivery`). Safe to run again.
 */
export async function eraseOutboxOfHost(hostUserId: number, nowIso: string): Promise<number> {
  let erased = 0;
  for (const event of await listOutboxOfHost(hostUserId)) {
    if (!event.detail || event.detailType === 'HostErased') continue;
    try {
      await dynamoDb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: outboxKey(hostUserId, event.occurredAt, event.eventId),
          UpdateExpression: 'SET erasedAt = :now REMOVE detail',
          ConditionExpression: 'attribute_exists(detail)',
          ExpressionAttributeValues: { ':now': nowIso },
        }),
      );
      erased += 1;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return erased;
}
