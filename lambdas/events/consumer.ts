import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { parseEventEnvelope } from '../../core/contract/platform-events';
import {
  EVENT_DELIVERY_ATTEMPTS,
  PLATFORM_EVENT_LAG_METRIC,
  queueUrlVariable,
} from '../../core/event-delivery';
import { serviceConfig } from '../common/config';
import { logger } from '../common/logger';
import type { EventOutcome } from '../data/event-versions';
import { RefusedEventError } from '../data/event-versions';
import { applyPlatformEvent, applyReservationEvents } from './apply-event';

/**
 * The consumer of the platform's events (docs/design/events.md): SQS delivers them in batches,
 * Powertools' batch processor runs one record handler per message and answers the messages that
 * failed (`ReportBatchItemFailures`), so one bad event never fails or delays its batch.
 *
 * A record ends one of three ways:
 * - applied, or found to change nothing (a duplicate, an older version, an erased entity): done;
 * - refused, because it can never apply (it breaks the contract, names an unknown id, or
 *   disagrees with an event of the same version): sent to the dead-letter queue with the reason,
 *   and done, at once, so that nothing behind it waits;
 * - failed for a reason that may pass (DynamoDB busy or unreachable, an erasure not finished in
 *   time): reported as failed, so SQS delivers it again after the visibility timeout; on its last
 *   delivery it goes to the dead-letter queue with the reason instead.
 * The records of a batch are handled side by side; the `ReservationChanged` events of one property
 * are applied together (`planBatch`), each record still answered for on its own.
 * Events are validated by the handler, not by the processor's parser integration: an
 * event that breaks the contract must reach the dead-letter queue with its reason at once, not
 * fail `EVENT_DELIVERY_ATTEMPTS` times first.
 */
const processor = new BatchProcessor(EventType.SQS);

/**
 * Each applied event's lag from the platform's publish, as CloudWatch's embedded metric format: one
 * log line per batch, its namespace and `service` dimension from the environment the stack sets.
 */
const metrics = new Metrics();

/** Time kept back from the invocation's deadline to report the batch. */
const DEADLINE_MARGIN_MS = 5_000;

/** The EventBridge id in a message body, if it has one. */
function eventIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

async function deadLetter(record: SQSRecord, reason: string): Promise<void> {
  const variable = queueUrlVariable('platformEventsDeadLetter');
  const queueUrl = serviceConfig().queueUrls.platformEventsDeadLetter;
  if (!queueUrl) throw new Error(`${variable} is not set: the consumer has no dead-letter queue to send to.`);
  const { sendToDeadLetterQueue } = await import('./dead-letter');
  await sendToDeadLetterQueue(queueUrl, record, reason);
  // EventBridge's event id too: the dead-letter queue gives the message a new id, the event keeps it.
  logger.warn('Event dead-lettered', {
    messageId: record.messageId,
    eventId: eventIdOf(record.body),
    reason,
  });
}

/**
 * What an event's transaction writes to, roughly: a property's partition and items, a sponsorship,
 * a host. Records of one batch with the same key are applied one after the other, the others side
 * by side: two transactions on the same items at once would only cancel each other
 * (`TransactionConflict`) and retry. An efficiency of this instance only: correctness is in the
 * transactions' conditions, whatever runs where.
 */
function contentionKey(event: PlatformEvent): string {
  switch (event.type) {
    case 'SponsorshipEnded':
      return `sponsorship:${event.detail.partner_id}:${event.detail.host_user_id}`;
    case 'HostErasureRequested':
      return `host:${event.detail.host_user_id}`;
    default:
      return `property:${event.detail.property_id}`;
  }
}

const running = new Map<string, Promise<unknown>>();

/** Runs `work` after the work of the same key that this instance started before it. */
async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = running.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(work);
  running.set(key, mine);
  try {
    return await mine;
  } finally {
    if (running.get(key) === mine) running.delete(key);
  }
}

type Applied = EventOutcome | RefusedEventError;

/** Runs `applyPlatformEvent` for one event, after the work of its contention key. */
function applyAlone(event: PlatformEvent, deadlineMs: number): () => Promise<Applied> {
  return () => oneAtATime(contentionKey(event), () => applyPlatformEvent(event, Date.now(), deadlineMs));
}

/** `work`, run once however many callers ask for its result. */
function once<T>(work: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => {
    started ??= work();
    return started;
  };
}

/**
 * How each valid event of a batch is applied: the `ReservationChanged` events of one property
 * together (a transaction for many, not one each: a property's backlog of bookings drains a batch
 * at a time), every other event alone.
 */
function planBatch(
  events: ReadonlyMap<string, PlatformEvent>,
  deadlineMs: number,
): Map<string, () => Promise<Applied>> {
  const plan = new Map<string, () => Promise<Applied>>();
  const byProperty = new Map<number, { messageId: string; event: PlatformEvent<'ReservationChanged'> }[]>();
  for (const [messageId, event] of events) {
    if (event.type !== 'ReservationChanged') {
      plan.set(messageId, applyAlone(event, deadlineMs));
      continue;
    }
    const group = byProperty.get(event.detail.property_id) ?? [];
    group.push({ messageId, event });
    byProperty.set(event.detail.property_id, group);
  }
  for (const [propertyId, group] of byProperty) {
    const [first] = group;
    if (group.length === 1 && first) {
      plan.set(first.messageId, applyAlone(first.event, deadlineMs));
      continue;
    }
    const results = once(() =>
      oneAtATime(`property:${propertyId}`, () =>
        applyReservationEvents(
          group.map(({ event }) => event),
          propertyId,
          Date.now(),
        ),
      ),
    );
    group.forEach(({ messageId }, index) => {
      plan.set(messageId, async () => (await results())[index] as Applied);
    });
  }
  return plan;
}

async function handleRecord(
  record: SQSRecord,
  event: PlatformEvent,
  apply: () => Promise<Applied>,
): Promise<void> {
  try {
    const outcome = await apply();
    if (outcome instanceof RefusedEventError) throw outcome;
    logger.debug('Event handled', { messageId: record.messageId, type: event.type, outcome });
    const publishedMs = event.publishedAt === undefined ? Number.NaN : Date.parse(event.publishedAt);
    if (Number.isFinite(publishedMs))
      metrics.addMetric(
        PLATFORM_EVENT_LAG_METRIC,
        MetricUnit.Seconds,
        Math.max(0, (Date.now() - publishedMs) / 1000),
      );
  } catch (error) {
    if (error instanceof RefusedEventError) {
      await deadLetter(record, `${event.type} cannot be applied: ${error.message.replace(/\.$/, '')}.`);
      return;
    }
    if (Number(record.attributes.ApproximateReceiveCount) >= EVENT_DELIVERY_ATTEMPTS) {
      await deadLetter(
        record,
        `${event.type} failed on each of its ${EVENT_DELIVERY_ATTEMPTS} deliveries; the last time: ${(error as Error).name}: ${(error as Error).message}`,
      );
      return;
    }
    logger.error('Event failed; SQS delivers it again', {
      messageId: record.messageId,
      type: event.type,
      error: (error as Error).name,
    });
    throw error;
  }
}

export const handler = async (batch: SQSEvent, context: Context) => {
  const deadlineMs = Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
  const events = new Map<string, PlatformEvent>();
  const problems = new Map<string, string[]>();
  for (const record of batch.Records) {
    const checked = parseEventEnvelope(record.body, Date.now());
    if (checked.ok) events.set(record.messageId, checked.event);
    else problems.set(record.messageId, checked.problems);
  }
  const plan = planBatch(events, deadlineMs);
  const response = await processPartialResponse(
    batch,
    async (record: SQSRecord) => {
      const event = events.get(record.messageId);
      const apply = plan.get(record.messageId);
      if (!event || !apply) {
        const found = problems.get(record.messageId) ?? ['it could not be read'];
        await deadLetter(record, `It does not follow the contract: ${found.join('; ')}`);
        return;
      }
      await handleRecord(record, event, apply);
    },
    processor,
    { context },
  );
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  return response;
};
