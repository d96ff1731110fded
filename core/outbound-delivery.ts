import { OUTBOX_PARTITION } from './partitions';

/**
 * How the events this service sends reach the platform (docs/design/events.md#delivery-to-the-platform):
 * the same settings for the stack (the table's stream, the EventBridge Pipe, its enrichment and
 * target, the forwarding rule) and the local runtime that emulates them. Side-effect free: the
 * stack imports it.
 */

/**
 * The `source` of every event this service sends, and their detail-types: the contract's schemas
 * are in core/contract/service-events.ts (which the functions that write events import only as types,
 * so no schema library lands in their bundles).
 */
export const SERVICE_EVENT_SOURCE = 'partner-api';
export const SERVICE_EVENT_TYPES = ['HostProvisioned', 'KnowledgeBaseSubmitted', 'HostErased'] as const;

/**
 * What the table's stream carries: the keys of each changed item and nothing else, so the 24 hours
 * DynamoDB keeps a stream record hold no one's answers; the pipe's enrichment reads the outbox item
 * itself, as it is when it delivers (an erasure in between leaves nothing to deliver).
 */
export const STREAM_VIEW = 'KEYS_ONLY' as const;

/**
 * The pipe's filter (an EventBridge event pattern on the stream record): outbox items only, when
 * they are written. Pipes bills only the records that match
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes.html): the rate limiter's
 * writes and every other item's changes are dropped before they cost anything but the stream read.
 */
export const OUTBOX_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { Keys: { PK: { S: [{ prefix: OUTBOX_PARTITION }] } } },
} as const;

/** One record of the pipe's source, as its filter and enrichment see it (DynamoDB Streams' record). */
export interface OutboxStreamRecord {
  readonly eventID?: string;
  readonly eventName?: string;
  readonly eventSourceARN?: string;
  readonly dynamodb?: {
    readonly Keys?: Readonly<Record<string, { readonly S?: string }>>;
    readonly SequenceNumber?: string;
    readonly ApproximateCreationDateTime?: number;
  };
}

/** What the enrichment gives the target for each outbox item it delivers. */
export interface OutboundEntry {
  readonly detailType: string;
  /** When the change committed (the event's `time`). */
  readonly time: string;
  readonly detail: Record<string, unknown>;
}

/**
 * The pipe's target, the stage's outbound bus: each entry the enrichment returns becomes one event,
 * its detail-type and time read from the entry (dynamic path parameters), its detail the entry's
 * `detail` (the input template).
 */
export const OUTBOUND_TARGET = {
  source: SERVICE_EVENT_SOURCE,
  detailType: '$.detailType',
  time: '$.time',
  inputTemplate: '<$.detail>',
} as const;

/**
 * The rule on the stage's outbound bus that forwards to the platform's bus (the stage setting
 * `platformEventBus`, another account allowed): every event this service sends, and nothing else.
 */
export const FORWARDING_PATTERN = {
  source: [SERVICE_EVENT_SOURCE],
  'detail-type': [...SERVICE_EVENT_TYPES],
} as const;

/**
 * The pipe's batches: one record each, at once. A knowledge base at the wizard's limits makes an
 * event of up to about 220 KB, and the entries of one PutEvents must stay under 256 KB in all ("The
 * total entry size must be less than 256KB",
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html): one event per
 * request always fits. Events come at the pace of hosts, a few a second at most, and the pipe bills
 * each event alike, batched or not.
 */
export const OUTBOUND_BATCH_SIZE = 1;
export const OUTBOUND_BATCHING_WINDOW_SECONDS = 0;

/** The most the entries of one PutEvents may weigh, as EventBridge counts them (`putEventsEntrySize`). */
export const MAX_PUT_EVENTS_BYTES = 256 * 1024;

/**
 * A PutEvents entry's size as EventBridge counts it: 14 bytes for a Time, and the UTF-8 bytes of the
 * Source, DetailType, Detail and each Resource
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html).
 */
export function putEventsEntrySize(entry: {
  readonly Time?: unknown;
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly Resources?: readonly string[];
}): number {
  // What is not a string counts nothing (the local bus measures requests before it checks them).
  const bytes = (text: unknown) => (typeof text === 'string' ? Buffer.byteLength(text) : 0);
  const resources: readonly unknown[] = Array.isArray(entry.Resources) ? entry.Resources : [];
  return (
    (entry.Time === undefined ? 0 : 14) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    resources.reduce<number>((sum, resource) => sum + bytes(resource), 0)
  );
}
/**
 * A batch whose enrichment or target failed is tried again (halved each time, so one bad record
 * holds up no other) until its records are 23 hours old: an outage of the bus that long loses
 * nothing. -1 is "no limit but the age"
 * (https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceDynamoDBStreamParameters.html).
 * An hour inside the stream's 24 hours, so a record the pipe gives up on is still in the stream
 * when its dead-letter message names it, as AWS advises for stream sources. Failures alarm long
 * before; the outbox keeps the event 14 days, for `events resend` (docs/operators.md#the-events-this-service-sends).
 */
export const OUTBOUND_MAXIMUM_RETRY_ATTEMPTS = -1;
export const OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS = 82_800;

/**
 * The metric the enrichment publishes for each event it takes for delivery (CloudWatch's embedded
 * metric format, in the namespace the stack gives it): seconds from the change's commit (the
 * event's `occurredAt`) to that moment. Pipes publishes no iterator age for a stream source; this is
 * how old the deliveries are, and the stack alarms on its p99.
 */
export const OUTBOUND_LAG_METRIC = 'OutboundLagSeconds';

/**
 * How long an outbox item is kept after its change: long past the day the stream and the pipe
 * may still need it, for `events sent` to show what went out; the table's TTL then deletes it.
 */
export const OUTBOX_RETENTION_DAYS = 14;

/**
 * The attributes of an outbox item but its detail: what `events sent` shows in its table, and all
 * the read-only operator policy lets a Query of the outbox return (`dynamodb:Attributes`), so
 * holding that policy reads no host's e-mail, name or answers. The detail (`--json`) takes the
 * stage's data access.
 */
export const OUTBOX_SUMMARY_ATTRIBUTES = [
  'PK',
  'SK',
  'GSI1PK',
  'GSI1SK',
  'eventId',
  'detailType',
  'occurredAt',
  'hostUserId',
  'propertyId',
  'partnerId',
  'version',
  'sentAt',
  'erasedAt',
] as const;
