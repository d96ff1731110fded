import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AUDIT_INDEX_PARTITION, AUDIT_PARTITION } from '../../core/partitions';
import { serviceConfig } from '../common/config';
import { dynamoDb, GSI1, type TransactItem, tableName, ttlEpochSeconds } from './db';

/**
 * The audit trail: who did what, and when. Append-only: events are only ever created (a put on
 * condition that the item does not exist), never changed or deleted by the service; the table's
 * TTL removes them after the stage's retention (`auditRetentionDays`). See docs/design/audit.md.
 */
export const AUDIT_ACTIONS = [
  'partner.approved',
  'key.issued',
  'key.revealed',
  'key.reveal-refused',
  'key.rotated',
  'key.revoked',
  'link.created',
  'host.provisioned',
  'onboarding.completed',
  'reservations.imported',
  'agreement.changed',
  'partner.suspended',
  'partner.resumed',
  'catalog.changed',
  'partner.branded',
  'sample-data.added',
  'sponsorship.ended',
  'host.erased',
  'events.published',
  'events.redriven',
  'events.resent',
  'data.migrated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** Actors of events the pages record; operators are named by their AWS identity or user name. */
export const HOST_ACTOR = 'host';
export const PARTNER_ACTOR = 'partner';
/** The actor of what the platform's events do (docs/design/events.md). */
export const PLATFORM_ACTOR = 'platform';

/**
 * One event. Only ids and counts: never a key, a token, a reveal secret or a host's e-mail
 * (the type has no field for them, and `details` takes names, ids and numbers).
 */
export interface AuditEvent {
  readonly at: string;
  readonly actor: string;
  readonly action: AuditAction;
  /** The partner concerned; none for catalog changes. */
  readonly partnerId?: number;
  readonly keyPrefix?: string;
  readonly hostId?: number;
  readonly propertyId?: number;
  /** An activation link's nonce (its id, not the token). */
  readonly linkNonce?: string;
  /** API Gateway's request id of the page request that caused the event. */
  readonly requestId?: string;
  readonly details?: Readonly<Record<string, string | number | readonly string[]>>;
}

const SERVICE_SCOPE = 'service';
const partitionOf = (partnerId: number | undefined) =>
  `${AUDIT_PARTITION}${partnerId === undefined ? SERVICE_SCOPE : partnerId}`;

/** The put that records an event: alone, or inside the transaction of the action it records. */
export function auditEventItem(event: AuditEvent): TransactItem {
  // Time first, so both the partner's partition and the index sort by time; random after, so two
  // events of one millisecond are two items.
  const sortKey = `${event.at}#${randomBytes(6).toString('hex')}`;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        PK: partitionOf(event.partnerId),
        SK: sortKey,
        GSI1PK: AUDIT_INDEX_PARTITION,
        GSI1SK: sortKey,
        ...event,
        ttl: ttlEpochSeconds(Date.parse(event.at) + serviceConfig().auditRetentionDays * 86_400_000),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export async function recordAuditEvent(event: AuditEvent): Promise<void> {
  const { Put } = auditEventItem(event);
  await dynamoDb().send(new PutCommand(Put as ConstructorParameters<typeof PutCommand>[0]));
}

export interface AuditQuery {
  readonly partnerId?: number;
  readonly action?: AuditAction;
  /** ISO 8601: events at or after this time. */
  readonly since?: string;
  readonly limit: number;
}

const STORED_FIELDS = [
  'at',
  'actor',
  'action',
  'partnerId',
  'keyPrefix',
  'hostId',
  'propertyId',
  'linkNonce',
  'requestId',
  'details',
] as const;

function toEvent(item: Record<string, unknown>): AuditEvent | undefined {
  if (typeof item.at !== 'string' || typeof item.actor !== 'string') return undefined;
  if (typeof item.action !== 'string' || !isAuditAction(item.action)) return undefined;
  return Object.fromEntries(
    STORED_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]]),
  ) as unknown as AuditEvent;
}

/** Events newest first: one partner's (its partition) or everyone's (the index). */
export async function listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
  const onIndex = query.partnerId === undefined;
  const [partitionKey, sortKey] = onIndex ? ['GSI1PK', 'GSI1SK'] : ['PK', 'SK'];
  const events: AuditEvent[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDb().send(
      new QueryCommand({
        TableName: tableName(),
        ...(onIndex ? { IndexName: GSI1 } : {}),
        KeyConditionExpression: `${partitionKey} = :partition${query.since ? ` AND ${sortKey} >= :since` : ''}`,
        ...(query.action
          ? { FilterExpression: '#action = :action', ExpressionAttributeNames: { '#action': 'action' } }
          : {}),
        ExpressionAttributeValues: {
          ':partition': onIndex ? AUDIT_INDEX_PARTITION : partitionOf(query.partnerId),
          ...(query.since ? { ':since': query.since } : {}),
          ...(query.action ? { ':action': query.action } : {}),
        },
        ScanIndexForward: false,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const event = toEvent(item);
      if (event) events.push(event);
      if (events.length === query.limit) return events;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return events;
}
