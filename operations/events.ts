import { setTimeout as sleep } from 'node:timers/promises';
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Message } from '@aws-sdk/client-sqs';
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import type { PlatformEvent } from '../core/contract/platform-events';
import { checkPlatformEvent, PLATFORM_EVENT_SOURCE } from '../core/contract/platform-events';
import { quoted } from '../core/domain/text';
import type { ServiceQueueName } from '../core/event-delivery';
import { DEAD_LETTER_ATTRIBUTES, queueUrlVariable } from '../core/event-delivery';
import { MAX_PUT_EVENTS_BYTES, putEventsEntrySize, SERVICE_EVENT_SOURCE } from '../core/outbound-delivery';
import { clientFor } from '../lambdas/common/aws-clients';
import { pauseBeforeRetry } from '../lambdas/common/backoff';
import { serviceConfig } from '../lambdas/common/config';
import { sqs } from '../lambdas/common/sqs';
import type { OutboxEvent } from '../lambdas/data/outbox';
import { listOutboxOfHost, listOutboxSince } from '../lambdas/data/outbox';
import { recordOperatorEvent } from './audit';
import { OperatorError } from './operator-error';
import type { OperatorTarget } from './target';

/*
 * The platform's events as operators handle them (docs/operators.md#events): publish a file of
 * them to the stage's bus (locally, the local runtime's), list what was dead-lettered and why,
 * and send it again; and the events this service sends the platform, as its outbox keeps them.
 * Every command here uses the AWS SDK's own EventBridge, SQS and DynamoDB clients, on the local
 * AWS endpoint or on the stage.
 */

const eventBridge = clientFor(
  (config) => config.local?.eventBridgeEndpoint,
  (options) => new EventBridgeClient(options),
);

function eventBusName(): string {
  const name = serviceConfig().eventBusName;
  if (!name)
    throw new OperatorError('This stage has no event bus of the platform’s events (EVENT_BUS_NAME).');
  return name;
}

function queueUrl(name: ServiceQueueName): string {
  const url = serviceConfig().queueUrls[name];
  if (!url) throw new OperatorError(`This stage has no ${queueUrlVariable(name)}.`);
  return url;
}

/** A line of an events file as operators write it: `{"detail-type": "...", "detail": {...}}`. */
export interface EventLineProblem {
  readonly line: number;
  readonly problems: readonly string[];
}

/**
 * The events of a JSON Lines file, each checked against the contract; empty lines are skipped.
 * Either every line is an event, or the lines that are not, each with its problems.
 */
export function parseEventLines(
  text: string,
): { ok: true; events: PlatformEvent[] } | { ok: false; errors: EventLineProblem[] } {
  const events: PlatformEvent[] = [];
  const errors: EventLineProblem[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      errors.push({ line: index + 1, problems: [`not JSON (${(error as Error).message})`] });
      return;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      errors.push({ line: index + 1, problems: ['must be an object with "detail-type" and "detail"'] });
      return;
    }
    const { 'detail-type': detailType, detail, ...others } = json as Record<string, unknown>;
    // A field the line cannot set is refused rather than dropped: the sender meant something by it.
    const unknown = Object.keys(others);
    if (unknown.length > 0) {
      errors.push({
        line: index + 1,
        problems: [
          `${unknown.map((field) => `"${quoted(field, 40)}"`).join(', ')}: a line holds only "detail-type" and "detail" (the source is always ${PLATFORM_EVENT_SOURCE}; EventBridge gives each event its id and time)`,
        ],
      });
      return;
    }
    const checked = checkPlatformEvent(detailType, detail);
    if (checked.ok) events.push(checked.event);
    else errors.push({ line: index + 1, problems: checked.problems });
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, events };
}

/** EventBridge takes at most 10 entries per PutEvents call. */
const PUT_EVENTS_BATCH = 10;
const PUT_EVENTS_ATTEMPTS = 4;

/**
 * The entries in requests EventBridge takes: at most ten, weighing less than 256 KB in all. An entry
 * heavier than that alone is sent alone, and EventBridge says why it refuses it.
 */
function requestsOf(entries: readonly PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const requests: PutEventsRequestEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = putEventsEntrySize(entry);
    const last = requests.at(-1);
    if (last && last.length < PUT_EVENTS_BATCH && bytes + size < MAX_PUT_EVENTS_BYTES) {
      last.push(entry);
      bytes += size;
    } else {
      requests.push([entry]);
      bytes = size;
    }
  }
  return requests;
}

/**
 * Puts entries on a bus, ten per call at most and under 256 KB in all, sending again the entries EventBridge did not accept (a
 * partial failure answers 200 with `FailedEntryCount`). Returns how many were accepted, and the
 * EventBridge ids they were given (what a dead-lettered event's envelope names it by); an entry
 * still refused after the retries is an `OperatorError` that says how many got through, so nothing
 * is lost silently.
 */
async function putOnBus(
  all: readonly PutEventsRequestEntry[],
): Promise<{ accepted: number; eventIds: string[] }> {
  let accepted = 0;
  const eventIds: string[] = [];
  for (const request of requestsOf(all)) {
    let entries = request;
    for (let attempt = 1; entries.length > 0; attempt++) {
      const { Entries = [] } = await eventBridge().send(new PutEventsCommand({ Entries: entries }));
      const refused = entries.filter((_, index) => Entries[index]?.EventId === undefined);
      accepted += entries.length - refused.length;
      for (const entry of Entries) if (entry.EventId !== undefined) eventIds.push(entry.EventId);
      if (refused.length > 0 && attempt === PUT_EVENTS_ATTEMPTS) {
        const why = Entries.find((entry) => entry.ErrorCode)?.ErrorMessage ?? 'no reason given';
        throw new OperatorError(
          `${accepted} of ${all.length} events were accepted; EventBridge kept refusing ${refused.length} (${why}). Send the rest again: a repeated event changes nothing.`,
        );
      }
      if (refused.length > 0) await pauseBeforeRetry(attempt, 200);
      entries = refused;
    }
  }
  return { accepted, eventIds };
}

/** Sends the platform's events (or the operators' own) to the stage's bus of the platform's events. */
export function publishPlatformEvents(
  events: readonly PlatformEvent[],
): Promise<{ accepted: number; eventIds: string[] }> {
  const bus = eventBusName();
  return putOnBus(
    events.map((event) => ({
      EventBusName: bus,
      Source: event.source ?? PLATFORM_EVENT_SOURCE,
      DetailType: event.type,
      Detail: JSON.stringify(event.detail),
    })),
  );
}

/** `events publish`: sends checked events and records how many in the audit trail. */
export async function publishEventsFile(
  target: Pick<OperatorTarget, 'actor'>,
  events: readonly PlatformEvent[],
  nowMs: number,
) {
  const result = await publishPlatformEvents(events);
  const byType: Record<string, number> = {};
  for (const event of events) byType[event.type] = (byType[event.type] ?? 0) + 1;
  await recordOperatorEvent(
    target,
    'events.published',
    { details: { accepted: result.accepted, ...byType } },
    nowMs,
  );
  return result;
}

/** A dead-lettered event as `events failed` shows it. */
export interface FailedEvent {
  readonly message_id: string;
  /** EventBridge's id of the event: the one the consumer's log names, whatever queue it is in. */
  readonly event_id: string | null;
  readonly detail_type: string;
  readonly detail: unknown;
  readonly reason: string;
  readonly failed_at: string | null;
  readonly deliveries: number | null;
}

/** The EventBridge event a dead-lettered message carries (its `id`), or the message's own id. */
function eventIdOf(message: Message): string {
  try {
    const { id } = JSON.parse(message.Body ?? '') as { id?: unknown };
    if (typeof id === 'string' && id) return `event:${id}`;
  } catch {
    // Not JSON: the message is its own event.
  }
  return `message:${message.MessageId ?? ''}`;
}

function failedEventOf(message: Message): FailedEvent {
  let envelope: Record<string, unknown> = {};
  try {
    envelope = JSON.parse(message.Body ?? '') as Record<string, unknown>;
  } catch {
    // Shown as it is: its reason says it is not JSON.
  }
  const attribute = (name: string) => message.MessageAttributes?.[name]?.StringValue;
  const deliveries = attribute(DEAD_LETTER_ATTRIBUTES.deliveries);
  return {
    message_id: message.MessageId ?? '',
    event_id: typeof envelope.id === 'string' ? envelope.id : null,
    detail_type: typeof envelope['detail-type'] === 'string' ? envelope['detail-type'] : '(unknown)',
    detail: envelope.detail ?? message.Body ?? null,
    // Without a reason, SQS moved it after its last delivery (the consumer timed out or crashed).
    reason:
      attribute(DEAD_LETTER_ATTRIBUTES.reason) ??
      'No reason recorded: its last delivery ended without an answer (a timeout or a crash); see the consumer’s logs.',
    failed_at: attribute(DEAD_LETTER_ATTRIBUTES.failedAt) ?? null,
    deliveries: deliveries === undefined ? null : Number(deliveries),
  };
}

/** Most dead-lettered events one `events failed` lists. */
const MAX_LISTED = 1_000;
/** How long the listing keeps the messages it read hidden, before giving them back at once. */
const LISTING_VISIBILITY_SECONDS = 30;

/**
 * The dead-lettered events with their reasons, oldest first. SQS has no way to look at a message
 * without receiving it: each is received (hidden from other readers for a moment), and made
 * visible again as soon as the listing is done, so `events redrive` can move it right after.
 */
export async function listFailedEvents(): Promise<{ events: FailedEvent[]; more: boolean }> {
  const url = queueUrl('platformEventsDeadLetter');
  const received = new Map<string, Message>();
  try {
    while (received.size < MAX_LISTED) {
      const { Messages = [] } = await sqs().send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: LISTING_VISIBILITY_SECONDS,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      );
      if (Messages.length === 0) break;
      for (const message of Messages) if (message.MessageId) received.set(message.MessageId, message);
    }
  } finally {
    const handles = [...received.values()].flatMap((message) =>
      message.ReceiptHandle ? [message.ReceiptHandle] : [],
    );
    for (let start = 0; start < handles.length; start += 10) {
      await sqs().send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: handles.slice(start, start + 10).map((handle, index) => ({
            Id: String(index),
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          })),
        }),
      );
    }
  }
  const sent = (message: Message) => Number(message.Attributes?.SentTimestamp ?? 0);
  // One line per event: listed during a redrive, an event can be read before it moved and again
  // after the consumer refused it anew (a new message, the same EventBridge event id); the last says.
  const latest = new Map<string, Message>();
  for (const message of [...received.values()].sort((a, b) => sent(a) - sent(b))) {
    latest.delete(eventIdOf(message));
    latest.set(eventIdOf(message), message);
  }
  const events = [...latest.values()].map(failedEventOf);
  return { events, more: received.size >= MAX_LISTED };
}

/** How many events wait in a queue, and how many are being delivered (SQS's approximate counts). */
export async function queueDepth(name: ServiceQueueName): Promise<{ waiting: number; inFlight: number }> {
  const { Attributes = {} } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl(name),
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    waiting: Number(Attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

/**
 * How many of `eventIds` (EventBridge's ids of events this operator put) wait in the dead-letter
 * queue. A listing receives the messages it shows for as long as it takes, so a listing of someone
 * else at the same moment (an `events failed`, another `publish --wait`) may hide some: while fewer
 * are found than the queue grew by (`grewBy`, others' refusals included), it looks again a second
 * later, three times in all, and keeps the most it found.
 */
export async function deadLetteredOf(eventIds: readonly string[], grewBy: number): Promise<number> {
  const ours = new Set(eventIds);
  let found = 0;
  for (let attempt = 1; attempt <= DEAD_LETTER_LOOKS; attempt++) {
    if (attempt > 1) await sleep(1_000);
    const { events } = await listFailedEvents();
    found = Math.max(
      found,
      events.filter((event) => event.event_id !== null && ours.has(event.event_id)).length,
    );
    if (found >= Math.min(grewBy, ours.size)) break;
  }
  return found;
}

/** How many times `deadLetteredOf` lists the dead letters at most. */
const DEAD_LETTER_LOOKS = 3;

/** How long `--wait` waits for the queue to empty. */
export const EVENTS_WAIT_SECONDS = 60;

/**
 * Waits until the queue holds nothing, waiting or being delivered: every event sent before is
 * applied or dead-lettered. SQS's counts are approximate (on AWS they may lag by a minute), so this
 * is a convenience for scripts and tests, not a guarantee. False when `timeoutMs` passed first.
 */
export async function eventsApplied(timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  // Two empty readings in a row: a batch between two pollers is never counted as none.
  for (let empty = 0; empty < 2; ) {
    if (Date.now() > until) return false;
    const { waiting, inFlight } = await queueDepth('platformEvents');
    empty = waiting + inFlight === 0 ? empty + 1 : 0;
    if (empty < 2) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * `events redrive`: SQS moves every dead-lettered event to the events queue (a message move task,
 * with the queue as its destination: events the consumer dead-lettered itself have no source queue
 * for SQS to return them to), where the consumer applies it again; one still refused comes back
 * with its reason.
 */
export async function redriveFailedEvents(target: Pick<OperatorTarget, 'actor'>, nowMs: number) {
  const deadLetterUrl = queueUrl('platformEventsDeadLetter');
  const { Attributes = {} } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: deadLetterUrl,
      AttributeNames: ['QueueArn', 'ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const waiting =
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  if (waiting === 0) return { moving: 0, task: null };
  const { Attributes: events = {} } = await sqs().send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl('platformEvents'), AttributeNames: ['QueueArn'] }),
  );
  try {
    const { TaskHandle } = await sqs().send(
      new StartMessageMoveTaskCommand({ SourceArn: Attributes.QueueArn, DestinationArn: events.QueueArn }),
    );
    await recordOperatorEvent(target, 'events.redriven', { details: { events: waiting } }, nowMs);
    return { moving: waiting, task: TaskHandle ?? null };
  } catch (error) {
    // One move task at a time per queue, among others: SQS says why, and nothing moved.
    if ((error as { $fault?: string }).$fault === 'client')
      throw new OperatorError(`SQS refused the redrive: ${(error as Error).message}`);
    throw error;
  }
}

/** How far back `events sent` looks when not told: a day. */
export const SENT_EVENTS_DEFAULT_HOURS = 24;
/** Most events one `events sent` lists. */
const MAX_SENT_LISTED = 1_000;

/** An event this service sent (or is sending) the platform, as `events sent --json` prints it. */
export interface SentEvent {
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  /** When its change committed (the event's `time` on the bus). */
  readonly time: string;
  readonly version: number | null;
  readonly host_user_id: number;
  readonly property_id: number | null;
  /** The detail as delivered; ids only once an erasure took the rest out (`erased_at`). */
  readonly detail: Record<string, unknown>;
  /** When the pipe took it for delivery; null while it waits. */
  readonly sent_at: string | null;
  readonly erased_at: string | null;
}

function sentEventOf(event: OutboxEvent): SentEvent {
  const ids = {
    event_id: event.eventId,
    host_user_id: event.hostUserId,
    ...(event.propertyId === undefined ? {} : { property_id: event.propertyId }),
    ...(event.partnerId === undefined ? {} : { partner_id: event.partnerId }),
    ...(event.version === undefined ? {} : { version: event.version }),
  };
  return {
    id: event.eventId,
    'detail-type': event.detailType,
    source: SERVICE_EVENT_SOURCE,
    time: event.occurredAt,
    version: event.version ?? null,
    host_user_id: event.hostUserId,
    property_id: event.propertyId ?? null,
    detail: event.detail ?? ids,
    sent_at: event.sentAt ?? null,
    erased_at: event.erasedAt ?? null,
  };
}

/**
 * `events sent`: the events this service sent the platform (docs/operators.md#the-events-this-service-sends),
 * oldest first, from the outbox: about one host (every event kept of it), or since a time. An
 * erased host's events show their ids, type, version and times only; so do all of them without
 * `details` (what the read-only operator policy may read).
 */
export async function listSentEvents(
  query: { readonly sinceMs: number; readonly hostUserId?: number },
  nowMs: number,
  { details = true }: { readonly details?: boolean } = {},
): Promise<{ events: SentEvent[]; more: boolean }> {
  const found =
    query.hostUserId === undefined
      ? await listOutboxSince(query.sinceMs, nowMs, MAX_SENT_LISTED + 1, { details })
      : (await listOutboxOfHost(query.hostUserId, { details })).filter(
          (event) => Date.parse(event.occurredAt) >= query.sinceMs,
        );
  return { events: found.slice(0, MAX_SENT_LISTED).map(sentEventOf), more: found.length > MAX_SENT_LISTED };
}

/**
 * `events resend`: the events the outbox keeps, about one host or since a time, put on the stage's
 * outbound bus again, as the pipe put them (its rule forwards them to the platform's bus): after
 * an alarm said the platform did not get them. The platform applies them by version, so an event
 * it had changes nothing. An erased host's events are ids only, and are not sent.
 */
export async function resendEvents(
  target: Pick<OperatorTarget, 'actor'>,
  query: { readonly sinceMs: number; readonly hostUserId?: number },
  nowMs: number,
): Promise<{ resent: number; erased: number; more: boolean }> {
  const bus = serviceConfig().outboundEventBusName;
  if (!bus)
    throw new OperatorError(
      'This stage has no outbound bus of the events it sends (OUTBOUND_EVENT_BUS_NAME).',
    );
  const { events, more } = await listSentEvents(query, nowMs);
  const sendable = events.filter((event) => event.erased_at === null);
  const { accepted } = await putOnBus(
    sendable.map((event) => ({
      EventBusName: bus,
      Source: SERVICE_EVENT_SOURCE,
      DetailType: event['detail-type'],
      Detail: JSON.stringify(event.detail),
      Time: new Date(event.time),
    })),
  );
  await recordOperatorEvent(
    target,
    'events.resent',
    { details: { events: accepted, ...(query.hostUserId === undefined ? {} : { host: query.hostUserId }) } },
    nowMs,
  );
  return { resent: accepted, erased: events.length - sendable.length, more };
}
