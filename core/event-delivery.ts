/**
 * How the platform's events reach the consumer (docs/design/events.md#delivery), the same numbers
 * for the stack (EventBridge rule, SQS queues, event source mapping) and the local runtime that
 * emulates them. Side-effect free: the stack imports it.
 */

/**
 * The `source` of the platform's events (docs/design/events.md#the-contract), and that of this
 * service's own events to its consumer: an operator's `reservations import` (and the sample data
 * that goes its way) sends each changed row as a `ReservationChanged` in a sequence of versions of
 * its own, never in the platform's (docs/design/events.md#versions). Only principals of the stage's
 * own account can put the operators' source: the bus policy lets the platform's publishers put
 * `host-platform` alone. Here, not with the schemas (core/contract/platform-events.ts re-exports
 * them), so that the data modules that store each source's versions load no schema library.
 */
export const PLATFORM_EVENT_SOURCE = 'host-platform';
export const OPERATOR_EVENT_SOURCE = 'partner-api.operator';

/** Whose sequence of versions an event is in. */
export type EventSource = typeof PLATFORM_EVENT_SOURCE | typeof OPERATOR_EVENT_SOURCE;

/** The service's queues: the consumer's, and its dead-letter queue. */
export const SERVICE_QUEUE_NAMES = ['platformEvents', 'platformEventsDeadLetter'] as const;
export type ServiceQueueName = (typeof SERVICE_QUEUE_NAMES)[number];

/** The environment variable that holds a queue's URL (`PLATFORM_EVENTS_DEAD_LETTER_QUEUE_URL`). */
export const queueUrlVariable = (name: ServiceQueueName) =>
  `${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_QUEUE_URL`;

/**
 * Deliveries of one message before SQS moves it to the dead-letter queue (the redrive policy's
 * `maxReceiveCount`; AWS recommends at least 5 for a Lambda source). The consumer dead-letters an
 * event itself, with its reason, on the last one.
 */
export const EVENT_DELIVERY_ATTEMPTS = 5;

/** Messages per invocation of the consumer, and how long the mapping gathers them. */
export const EVENT_BATCH_SIZE = 10;

/**
 * The seconds from the platform's publish of an event (its envelope's `time`) to the consumer having
 * applied it (or found it changes nothing): the consumer's embedded metric per event, which the
 * event-lag objective is judged on (lib/service-objectives.ts).
 */
export const PLATFORM_EVENT_LAG_METRIC = 'PlatformEventLagSeconds';
export const EVENT_BATCHING_WINDOW_SECONDS = 1;

/** Most consumer instances at once (the mapping's `MaximumConcurrency`; AWS's minimum is 2). */
export const EVENT_CONSUMER_CONCURRENCY = 5;

/** The consumer's timeout: an erasure of a large history may take most of it. */
export const EVENT_CONSUMER_TIMEOUT_SECONDS = 60;

/**
 * The queue's visibility timeout: at least six times the function's timeout, plus the batching
 * window, as AWS advises for an SQS event source, so a message is never delivered again while an
 * invocation that holds it may still be running.
 */
export const EVENT_VISIBILITY_TIMEOUT_SECONDS =
  6 * EVENT_CONSUMER_TIMEOUT_SECONDS + EVENT_BATCHING_WINDOW_SECONDS;

/** How long a dead-lettered event is kept (SQS's maximum): operators redrive or read it before then. */
export const DEAD_LETTER_RETENTION_DAYS = 14;

/**
 * How long an event waits in the consumer's queue (SQS's default). Shorter than the dead-letter
 * queue's: SQS keeps a message's first enqueue time when it moves it to a standard dead-letter
 * queue, so an event dead-lettered at its latest (4 days old) still has 10 days there
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html).
 * An event left unconsumed that long is one the oldest-event alarm reported days before.
 */
export const EVENT_QUEUE_RETENTION_DAYS = 4;

/** The least time an operator has to read or redrive a dead-lettered event of the platform's. */
export const DEAD_LETTER_MIN_DAYS = DEAD_LETTER_RETENTION_DAYS - EVENT_QUEUE_RETENTION_DAYS;

/** The message attributes the consumer gives an event it dead-letters. */
export const DEAD_LETTER_ATTRIBUTES = {
  reason: 'reason',
  failedAt: 'failedAt',
  deliveries: 'deliveries',
} as const;
