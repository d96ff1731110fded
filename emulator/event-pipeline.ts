import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { CONSUMER_EVENT_PATTERN } from '../core/contract/platform-events';
import { quoted } from '../core/domain/text';
import type { ServiceQueueName } from '../core/event-delivery';
import {
  EVENT_BATCH_SIZE,
  EVENT_BATCHING_WINDOW_SECONDS,
  EVENT_CONSUMER_CONCURRENCY,
  EVENT_DELIVERY_ATTEMPTS,
} from '../core/event-delivery';
import { FORWARDING_PATTERN, MAX_PUT_EVENTS_BYTES, putEventsEntrySize } from '../core/outbound-delivery';
import { EVENT_CONSUMER } from '../core/routes';
import { matchesPattern } from './event-patterns';
import type { InvocationOutcome } from './lambda-runtime';

/*
 * The AWS engines the platform's events go through, emulated on one machine the way
 * `api-gateway.ts` emulates API Gateway (docs/design/local-runtime.md#events): an EventBridge bus
 * whose rule sends the contract's events to an SQS queue; the queue, with its visibility timeout,
 * receive counts and redrive policy to a dead-letter queue; and the event source mapping that
 * polls it and invokes the consumer function with batches, reading the partial batch responses.
 * Delivery is at least once, as in AWS: a batch whose invocation fails, or the messages it names
 * as failed, are delivered again after the visibility timeout.
 */

const ACCOUNT = '000000000000';
const REGION = 'local';
export const LOCAL_EVENT_BUS_NAME = 'partner-api-local-platform-events';
/** The local outbound bus: what the pipe (and `events resend`) put this service's events on. */
export const LOCAL_OUTBOUND_BUS_NAME = 'partner-api-local-service-events';
/**
 * The service's queues, and the local stand-in of the platform's bus: a queue that receives what
 * the outbound bus's rule forwards to the platform (docs/design/events.md#on-one-machine), which a
 * local platform reads with SQS's ReceiveMessage.
 */
type LocalQueueName = ServiceQueueName | 'platformInbox';
const QUEUE_NAMES: Readonly<Record<LocalQueueName, string>> = {
  platformEvents: 'partner-api-local-platform-events',
  platformEventsDeadLetter: 'partner-api-local-platform-events-dead-letter',
  platformInbox: 'partner-api-local-platform-inbox',
};

/** The local address of a queue, as SQS's QueueUrl (the local AWS endpoint answers it). */
export const localQueueUrl = (awsEndpoint: string, name: LocalQueueName) =>
  `${awsEndpoint}/${ACCOUNT}/${QUEUE_NAMES[name]}`;
const queueArn = (name: LocalQueueName) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${QUEUE_NAMES[name]}`;
const busArn = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${LOCAL_EVENT_BUS_NAME}`;
const outboundBusArn = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${LOCAL_OUTBOUND_BUS_NAME}`;

type MessageAttributes = Record<string, { DataType: string; StringValue?: string }>;

interface Message {
  readonly messageId: string;
  readonly body: string;
  readonly attributes: MessageAttributes;
  readonly sentTimestamp: number;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  /** When it is visible again (0: now). */
  visibleAt: number;
  receiptHandle?: string;
  /** The queue whose redrive policy dead-lettered it (SQS's DeadLetterQueueSourceArn); none when sent here. */
  readonly source?: LocalQueue;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** One SQS standard queue: visibility timeouts, receive counts, and a redrive policy. */
class LocalQueue {
  readonly messages = new Map<string, Message>();
  /** Messages sent to the queue since it was made (by the bus's rule, SendMessage or a move). */
  sent = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly name: LocalQueueName,
    readonly visibilityTimeoutMs: number,
    readonly redrive?: { readonly deadLetter: LocalQueue; readonly maxReceiveCount: number },
  ) {}

  send(body: string, attributes: MessageAttributes = {}, source?: LocalQueue): Message {
    const message: Message = {
      messageId: randomUUID(),
      body,
      attributes,
      sentTimestamp: Date.now(),
      receiveCount: 0,
      visibleAt: 0,
      ...(source ? { source } : {}),
    };
    this.messages.set(message.messageId, message);
    this.sent += 1;
    this.wake();
    return message;
  }

  /** Calls `listener` whenever a message may have become visible. */
  onVisible(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  wake(): void {
    for (const listener of [...this.listeners]) listener();
  }

  visible(now = Date.now()): Message[] {
    return [...this.messages.values()].filter((message) => message.visibleAt <= now);
  }

  /** Receives up to `max` visible messages, hiding them for `visibilityTimeoutMs`. */
  receive(max: number, visibilityTimeoutMs = this.visibilityTimeoutMs): Message[] {
    const now = Date.now();
    const received = this.visible(now).slice(0, max);
    for (const message of received) {
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.visibleAt = now + visibilityTimeoutMs;
      message.receiptHandle = randomUUID();
      this.wakeAt(message.visibleAt);
    }
    return received;
  }

  private wakeAt(at: number): void {
    setTimeout(() => this.wake(), Math.max(0, at - Date.now()) + 1).unref();
  }

  byReceipt(receiptHandle: string): Message | undefined {
    return [...this.messages.values()].find((message) => message.receiptHandle === receiptHandle);
  }

  delete(message: Message): void {
    this.messages.delete(message.messageId);
  }

  /** A received message that was not deleted: visible again later, or dead-lettered (redrive policy). */
  release(message: Message): void {
    if (this.redrive && message.receiveCount >= this.redrive.maxReceiveCount) {
      this.messages.delete(message.messageId);
      this.redrive.deadLetter.send(message.body, message.attributes, this);
    }
  }

  changeVisibility(message: Message, timeoutMs: number): void {
    message.visibleAt = Date.now() + timeoutMs;
    this.wakeAt(message.visibleAt);
  }

  get arn(): string {
    return queueArn(this.name);
  }
}

/** An SQS record of the event Lambda receives from the mapping. */
function sqsRecord(queue: LocalQueue, message: Message): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentTimestamp),
      SenderId: ACCOUNT,
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.attributes).map(([name, value]) => [
        name,
        {
          dataType: value.DataType,
          ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
        },
      ]),
    ) as SQSRecord['messageAttributes'],
    md5OfBody: md5(message.body),
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: REGION,
  };
}

/** A rejected AWS API call: its status and the error AWS would name. */
class LocalAwsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EventPipelineOptions {
  /**
   * The queue's visibility timeout. AWS's (`EVENT_VISIBILITY_TIMEOUT_SECONDS`) is six minutes;
   * locally a failed batch is delivered again sooner, so that what the retries do can be seen.
   * @default 2_000
   */
  readonly visibilityTimeoutMs?: number;
  /** @default EVENT_BATCHING_WINDOW_SECONDS × 1000 */
  readonly batchingWindowMs?: number;
  /** Says on the terminal what AWS would do silently (an event put on a bus no rule listens on). */
  readonly onNotice?: (line: string) => void;
}

/** Invokes the consumer with a batch, as the event source mapping does. */
export type InvokeConsumer = (functionName: string, event: SQSEvent) => Promise<InvocationOutcome>;

/** Events sent to the consumer's queue, and those handled: applied, or dead-lettered. */
export interface EventCounts {
  readonly sent: number;
  readonly handled: number;
}

/** The bus, its rule, the two queues and the mapping to the consumer. */
export class LocalEventPipeline {
  readonly queue: LocalQueue;
  readonly deadLetterQueue: LocalQueue;
  /** What the service sent the platform: the local platform's bus, as a queue it reads. */
  readonly platformInbox: LocalQueue;
  private readonly batchingWindowMs: number;
  private readonly onNotice: (line: string) => void;
  private invoke: InvokeConsumer | undefined;
  private inFlight = 0;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly pollers: Promise<void>[] = [];
  /** Messages the consumer was given that left the queue: applied, or dead-lettered. */
  private handled = 0;
  private readonly progressListeners = new Set<(counts: EventCounts) => void>();
  /** Message move tasks (`events redrive`), newest first. */
  private readonly moveTasks: { handle: string; status: string; moved: number; startedAt: number }[] = [];

  constructor(options: EventPipelineOptions = {}) {
    const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 2_000;
    this.batchingWindowMs = options.batchingWindowMs ?? EVENT_BATCHING_WINDOW_SECONDS * 1000;
    this.onNotice = options.onNotice ?? (() => undefined);
    this.deadLetterQueue = new LocalQueue('platformEventsDeadLetter', visibilityTimeoutMs);
    this.queue = new LocalQueue('platformEvents', visibilityTimeoutMs, {
      deadLetter: this.deadLetterQueue,
      maxReceiveCount: EVENT_DELIVERY_ATTEMPTS,
    });
    this.platformInbox = new LocalQueue('platformInbox', 30_000);
  }

  /**
   * The outbound bus: its rule forwards the service's events to the platform's bus (locally, the
   * platform's inbox queue), as the stack's forwarding rule does on AWS.
   */
  putOutbound(event: Record<string, unknown>): void {
    if (matchesPattern(FORWARDING_PATTERN, event)) this.platformInbox.send(JSON.stringify(event));
  }

  queueByUrl(url: unknown): LocalQueue {
    const name = typeof url === 'string' ? url.split('/').at(-1) : undefined;
    const queue = [this.queue, this.deadLetterQueue, this.platformInbox].find(
      (candidate) => QUEUE_NAMES[candidate.name] === name,
    );
    if (!queue)
      throw new LocalAwsError(
        400,
        'com.amazonaws.sqs#QueueDoesNotExist',
        'The specified queue does not exist.',
      );
    return queue;
  }

  queueByArn(arn: unknown): LocalQueue {
    const queue = [this.queue, this.deadLetterQueue].find((candidate) => candidate.arn === arn);
    if (!queue)
      throw new LocalAwsError(
        400,
        'com.amazonaws.sqs#ResourceNotFoundException',
        'The resource does not exist.',
      );
    return queue;
  }

  get busArn(): string {
    return busArn;
  }

  /**
   * EventBridge's PutEvents on the local buses: each entry checked as EventBridge checks it
   * (`entryProblem`), given an id, and matched against its bus's rule: on the platform's bus
   * `CONSUMER_EVENT_PATTERN` (the stack's: the contract's detail-types from the platform's source
   * or the operators'), which sends the whole event to the queue; on the outbound bus the
   * forwarding rule to the platform's inbox (`putOutbound`). An entry without `EventBusName` goes
   * to the account's default bus, and one naming a bus that does not exist is taken too: AWS
   * answers both with an event id and no rule of this service sees them
   * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEventsRequestEntry.html;
   * https://github.com/aws/aws-cli/issues/9186). Locally the terminal says so.
   */
  putEvents(
    entries: readonly Record<string, unknown>[],
  ): { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[] {
    return entries.map((entry) => {
      const problem = entryProblem(entry);
      if (problem) return problem;
      const busName = String(entry.EventBusName ?? 'default');
      const id = randomUUID();
      const event = {
        version: '0',
        id,
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: ACCOUNT,
        time: eventTime(entry.Time),
        region: REGION,
        resources: Array.isArray(entry.Resources) ? entry.Resources : [],
        detail: JSON.parse(String(entry.Detail)),
      };
      if (busName === LOCAL_OUTBOUND_BUS_NAME || busName === outboundBusArn) this.putOutbound(event);
      else if (busName === LOCAL_EVENT_BUS_NAME || busName === busArn) {
        if (matchesPattern(CONSUMER_EVENT_PATTERN, event)) this.queue.send(JSON.stringify(event));
      } else
        this.onNotice(
          `local EventBridge: a ${quoted(String(entry.DetailType), 128)} event was put on the bus "${quoted(busName, 256)}", where no rule of this service listens (AWS takes it too, and drops it); the service's events go to EventBusName "${LOCAL_EVENT_BUS_NAME}"`,
        );
      return { EventId: id };
    });
  }

  /**
   * SQS's StartMessageMoveTask from the dead-letter queue (the redrive `events redrive` starts):
   * every message moves to `DestinationArn`, as a new message. Without a destination, SQS returns
   * each message to the queue it was dead-lettered from; a message the consumer sent to the
   * dead-letter queue itself has none, so here it stays where it is.
   */
  startMessageMove(sourceArn: unknown, destinationArn: unknown): string {
    const source = this.queueByArn(sourceArn);
    if (source !== this.deadLetterQueue)
      throw new LocalAwsError(
        400,
        'com.amazonaws.sqs#InvalidParameterValue',
        'Source queue must be configured as a Dead Letter Queue.',
      );
    const destination = destinationArn === undefined ? undefined : this.queueByArn(destinationArn);
    const handle = randomUUID();
    const messages = [...source.messages.values()].filter((message) => destination ?? message.source);
    for (const message of messages) {
      source.delete(message);
      (destination ?? message.source ?? this.queue).send(message.body, message.attributes);
    }
    this.moveTasks.unshift({ handle, status: 'COMPLETED', moved: messages.length, startedAt: Date.now() });
    return handle;
  }

  listMoveTasks() {
    return this.moveTasks.slice(0, 10).map((task) => ({
      TaskHandle: task.handle,
      Status: task.status,
      SourceArn: this.deadLetterQueue.arn,
      ApproximateNumberOfMessagesMoved: task.moved,
      ApproximateNumberOfMessagesToMove: task.moved,
      StartedTimestamp: task.startedAt,
    }));
  }

  /** Starts the event source mapping: `EVENT_CONSUMER_CONCURRENCY` pollers invoking the consumer. */
  start(invoke: InvokeConsumer): void {
    this.invoke = invoke;
    for (let index = 0; index < EVENT_CONSUMER_CONCURRENCY; index++) this.pollers.push(this.poll());
  }

  /** Waits until a message is visible (or the pipeline stops). */
  private waitForVisible(): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped || this.queue.visible().length > 0) {
        resolve();
        return;
      }
      const off = this.queue.onVisible(() => {
        if (this.stopped || this.queue.visible().length > 0) {
          off();
          resolve();
        }
      });
    });
  }

  /**
   * One poller of the mapping: takes a batch when `EVENT_BATCH_SIZE` messages are visible or the
   * batching window has passed since one was, invokes the consumer, deletes what it handled and
   * leaves the rest to come back after the visibility timeout (or to the dead-letter queue).
   */
  private async poll(): Promise<void> {
    while (!this.stopped) {
      await this.waitForVisible();
      if (this.stopped) return;
      const windowEnds = Date.now() + this.batchingWindowMs;
      while (this.queue.visible().length < EVENT_BATCH_SIZE && Date.now() < windowEnds && !this.stopped)
        await new Promise((resolve) => setTimeout(resolve, Math.min(25, windowEnds - Date.now())));
      const batch = this.queue.receive(EVENT_BATCH_SIZE);
      if (batch.length === 0) continue;
      this.inFlight += 1;
      try {
        await this.deliver(batch);
      } finally {
        this.inFlight -= 1;
        this.notifyIfIdle();
      }
    }
  }

  private async deliver(batch: Message[]): Promise<void> {
    const event: SQSEvent = { Records: batch.map((message) => sqsRecord(this.queue, message)) };
    let failed: Set<string>;
    try {
      const outcome = await (this.invoke ?? (() => Promise.reject(new Error('no consumer'))))(
        EVENT_CONSUMER.id,
        event,
      );
      failed = outcome.ok
        ? failedItems(outcome.payload, batch)
        : new Set(batch.map((message) => message.messageId));
    } catch {
      failed = new Set(batch.map((message) => message.messageId));
    }
    for (const message of batch) {
      // Delivered twice when its visibility timeout passed during a slow batch: counted once.
      const queued = this.queue.messages.has(message.messageId);
      if (failed.has(message.messageId)) this.queue.release(message);
      else this.queue.delete(message);
      if (queued && !this.queue.messages.has(message.messageId)) this.handled += 1;
    }
    const counts = this.eventCounts();
    for (const listener of [...this.progressListeners]) listener(counts);
  }

  /** How many events were sent to the consumer's queue so far, and how many of them are handled. */
  eventCounts(): EventCounts {
    return { sent: this.queue.sent, handled: this.handled };
  }

  /** Calls `listener` with the counts after each batch the consumer was given; returns its removal. */
  onProgress(listener: (counts: EventCounts) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  private notifyIfIdle(): void {
    if (!this.idle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Nothing left to deliver: no message in the queue, and no batch being handled. */
  idle(): boolean {
    return this.inFlight === 0 && this.queue.messages.size === 0;
  }

  /** Resolves once every event sent so far has been handled (applied, or dead-lettered). */
  settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      // A message hidden by a failed delivery comes back by itself; check again when it may have.
      const check = setInterval(() => {
        if (this.idle()) {
          clearInterval(check);
          resolve();
        }
      }, 50);
      check.unref();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.wake();
    await Promise.all(this.pollers);
  }
}

/**
 * The messages a partial batch response names as failed. Lambda treats a response it cannot read
 * (not JSON, an empty or unknown identifier) as the whole batch failing; no response, or an empty
 * or null list, as the whole batch succeeding.
 */
function failedItems(payload: string, batch: readonly Message[]): Set<string> {
  const all = new Set(batch.map((message) => message.messageId));
  let response: unknown;
  try {
    response = JSON.parse(payload);
  } catch {
    return all;
  }
  const failures = (response as { batchItemFailures?: unknown } | null)?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const named = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    named.add(id);
  }
  return named;
}

const SQS_SYSTEM_ATTRIBUTES = (message: Message) => ({
  ApproximateReceiveCount: String(message.receiveCount),
  SentTimestamp: String(message.sentTimestamp),
  ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
  SenderId: ACCOUNT,
});

/**
 * The largest message body the service's queues take: SQS's default `MaximumMessageSize`, which the
 * stack's queues keep (SQS allows up to 1 MiB when a queue is set to it).
 */
const MAX_MESSAGE_BYTES = 262_144;

/** A visibility timeout in seconds, 0 to 12 hours as SQS takes it; anything else is refused. */
function visibilitySeconds(value: unknown): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200)
    throw new LocalAwsError(
      400,
      'com.amazonaws.sqs#InvalidParameterValue',
      'VisibilityTimeout must be a whole number of seconds from 0 to 43200.',
    );
  return seconds;
}

/** Most entries of one PutEvents call, as EventBridge allows. */
const MAX_PUT_EVENTS_ENTRIES = 10;

/** What an SQS or EventBridge API call of the local AWS endpoint answers, and what IAM would see. */
export interface LocalApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The IAM action and resource of the call (`sqs:SendMessage` on the queue's ARN). */
  readonly action: string;
  readonly resource?: string;
  /** The queue of an SQS call. */
  readonly queue?: ServiceQueueName;
}

/**
 * EventBridge's PutEvents on the local buses: the request checked as EventBridge checks it (1 to 10
 * entries, under 256 KB in all), then each entry (`putEvents`).
 */
function answerPutEvents(
  pipeline: LocalEventPipeline,
  operation: string,
  body: Record<string, unknown>,
  action: string,
): LocalApiAnswer {
  if (operation !== 'PutEvents')
    throw new LocalAwsError(400, 'UnknownOperationException', `${operation} is not emulated locally.`);
  const entries = Array.isArray(body.Entries) ? (body.Entries as unknown[]) : [];
  if (entries.length === 0 || entries.length > MAX_PUT_EVENTS_ENTRIES)
    throw new LocalAwsError(
      400,
      'ValidationException',
      `Entries must hold 1 to ${MAX_PUT_EVENTS_ENTRIES} events.`,
    );
  if (!entries.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)))
    throw new LocalAwsError(400, 'SerializationException', 'Every entry of Entries must be an object.');
  const objects = entries as Record<string, unknown>[];
  // "If you submit a request in which none of the entries have each of these properties,
  // EventBridge fails the entire request" (the PutEventsRequestEntry reference).
  if (!objects.some(isComplete))
    throw new LocalAwsError(
      400,
      'ValidationException',
      'No entry has a Source, a DetailType and a Detail: EventBridge needs all three.',
    );
  const bytes = objects.reduce((sum, entry) => sum + putEventsEntrySize(entry as never), 0);
  if (bytes >= MAX_PUT_EVENTS_BYTES)
    throw new LocalAwsError(
      400,
      'ValidationException',
      `Total size of the entries in the request is over the limit (${bytes} bytes, less than ${MAX_PUT_EVENTS_BYTES} allowed).`,
    );
  const results = pipeline.putEvents(objects);
  return {
    status: 200,
    body: { FailedEntryCount: results.filter((result) => result.ErrorCode).length, Entries: results },
    action,
    resource: pipeline.busArn,
  };
}

/**
 * SQS's JSON protocol (`AmazonSQS.<Operation>`) and EventBridge's (`AWSEvents.PutEvents`) on the
 * local AWS endpoint: the calls the consumer and the operator CLI make, with the SDK's own clients.
 */
export async function answerQueueOrBusCall(
  pipeline: LocalEventPipeline,
  target: string,
  body: Record<string, unknown>,
): Promise<LocalApiAnswer> {
  const [service, operation = ''] = target.split('.');
  const action = `${service === 'AWSEvents' ? 'events' : 'sqs'}:${operation}`;
  try {
    if (service === 'AWSEvents') return answerPutEvents(pipeline, operation, body, action);
    if (operation === 'StartMessageMoveTask' || operation === 'ListMessageMoveTasks') {
      const source = pipeline.queueByArn(body.SourceArn);
      const answer =
        operation === 'StartMessageMoveTask'
          ? { TaskHandle: pipeline.startMessageMove(body.SourceArn, body.DestinationArn) }
          : { Results: pipeline.listMoveTasks() };
      return {
        status: 200,
        body: answer,
        action,
        resource: source.arn,
        ...(source.name === 'platformInbox' ? {} : { queue: source.name }),
      };
    }
    const queue = pipeline.queueByUrl(body.QueueUrl);
    const answered = (answer: Record<string, unknown>) => ({
      status: 200,
      body: answer,
      action,
      resource: queue.arn,
      ...(queue.name === 'platformInbox' ? {} : { queue: queue.name }),
    });
    switch (operation) {
      case 'SendMessage': {
        const text = String(body.MessageBody ?? '');
        if (text === '' || Buffer.byteLength(text) > MAX_MESSAGE_BYTES)
          throw new LocalAwsError(
            400,
            'com.amazonaws.sqs#InvalidParameterValue',
            `The message body must be 1 to ${MAX_MESSAGE_BYTES} bytes (the queue's MaximumMessageSize).`,
          );
        const message = queue.send(text, (body.MessageAttributes ?? {}) as MessageAttributes);
        return answered({ MessageId: message.messageId, MD5OfMessageBody: md5(message.body) });
      }
      case 'ReceiveMessage': {
        const max = Math.min(10, Math.max(1, Number(body.MaxNumberOfMessages ?? 1)));
        const waitUntil = Date.now() + Math.min(20, Number(body.WaitTimeSeconds ?? 0)) * 1000;
        const timeout =
          body.VisibilityTimeout === undefined ? undefined : visibilitySeconds(body.VisibilityTimeout) * 1000;
        let messages = queue.receive(max, timeout);
        while (messages.length === 0 && Date.now() < waitUntil) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          messages = queue.receive(max, timeout);
        }
        return answered({
          Messages: messages.map((message) => ({
            MessageId: message.messageId,
            ReceiptHandle: message.receiptHandle,
            MD5OfBody: md5(message.body),
            Body: message.body,
            Attributes: SQS_SYSTEM_ATTRIBUTES(message),
            MessageAttributes: message.attributes,
          })),
        });
      }
      case 'DeleteMessage': {
        const message = queue.byReceipt(String(body.ReceiptHandle ?? ''));
        if (message) queue.delete(message);
        return answered({});
      }
      case 'ChangeMessageVisibilityBatch': {
        const entries = Array.isArray(body.Entries) ? (body.Entries as Record<string, unknown>[]) : [];
        const successful: { Id: unknown }[] = [];
        const failed: Record<string, unknown>[] = [];
        for (const entry of entries) {
          const message = queue.byReceipt(String(entry.ReceiptHandle ?? ''));
          if (message) {
            queue.changeVisibility(message, visibilitySeconds(entry.VisibilityTimeout ?? 0) * 1000);
            successful.push({ Id: entry.Id });
          } else
            failed.push({
              Id: entry.Id,
              Code: 'ReceiptHandleIsInvalid',
              SenderFault: true,
              Message: 'The receipt handle is not valid.',
            });
        }
        return answered({ Successful: successful, Failed: failed });
      }
      case 'GetQueueAttributes': {
        const now = Date.now();
        const visible = queue.visible(now).length;
        return answered({
          Attributes: {
            QueueArn: queue.arn,
            ApproximateNumberOfMessages: String(visible),
            ApproximateNumberOfMessagesNotVisible: String(queue.messages.size - visible),
          },
        });
      }
      default:
        throw new LocalAwsError(
          400,
          'com.amazonaws.sqs#UnsupportedOperation',
          `${operation} is not emulated locally.`,
        );
    }
  } catch (error) {
    if (!(error instanceof LocalAwsError)) throw error;
    return { status: error.status, body: { __type: error.type, message: error.message }, action };
  }
}

/**
 * An event's `time` as EventBridge gives it, to the second: the publisher's `Time` when the entry
 * has one (the SDK sends epoch seconds), else when the bus took it.
 */
function eventTime(publisherTime: unknown): string {
  const ms = publisherTimeMs(publisherTime);
  return new Date(ms ?? Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The publisher's `Time` in milliseconds (the SDK sends epoch seconds); undefined when absent or not a time. */
function publisherTimeMs(publisherTime: unknown): number | undefined {
  const ms =
    typeof publisherTime === 'number'
      ? publisherTime * 1000
      : typeof publisherTime === 'string'
        ? Date.parse(publisherTime)
        : Number.NaN;
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;
}

/** The farthest a JavaScript date reaches from 1970 (ECMAScript's time value range). */
const MAX_DATE_MS = 8.64e15;
/** Longest a source and a detail-type may be (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEventsRequestEntry.html). */
const MAX_SOURCE_CHARACTERS = 256;
const MAX_DETAIL_TYPE_CHARACTERS = 128;

/** Whether an entry has what EventBridge needs to send an event: a source, a detail-type and a detail. */
function isComplete(entry: Record<string, unknown>): boolean {
  return (
    typeof entry.Source === 'string' &&
    entry.Source !== '' &&
    typeof entry.DetailType === 'string' &&
    entry.DetailType !== '' &&
    typeof entry.Detail === 'string'
  );
}

/** Why EventBridge fails one entry (its error code and message), or undefined when it takes it. */
function entryProblem(
  entry: Record<string, unknown>,
): { ErrorCode: string; ErrorMessage: string } | undefined {
  const invalid = (parameter: string, reason: string) => ({
    ErrorCode: 'InvalidArgument',
    ErrorMessage: `Parameter ${parameter} is not valid. Reason: ${reason}`,
  });
  if (typeof entry.Source !== 'string' || entry.Source === '') return invalid('Source', 'it is required.');
  if ([...entry.Source].length > MAX_SOURCE_CHARACTERS)
    return invalid('Source', `it is longer than ${MAX_SOURCE_CHARACTERS} characters.`);
  if (typeof entry.DetailType !== 'string' || entry.DetailType === '')
    return invalid('DetailType', 'it is required.');
  if ([...entry.DetailType].length > MAX_DETAIL_TYPE_CHARACTERS)
    return invalid('DetailType', `it is longer than ${MAX_DETAIL_TYPE_CHARACTERS} characters.`);
  if (entry.Time !== undefined && publisherTimeMs(entry.Time) === undefined)
    return invalid('Time', 'it is not a time.');
  if (
    entry.Resources !== undefined &&
    !(Array.isArray(entry.Resources) && entry.Resources.every((resource) => typeof resource === 'string'))
  )
    return invalid('Resources', 'it must be a list of ARNs.');
  let detail: unknown;
  try {
    detail = JSON.parse(String(entry.Detail ?? ''));
  } catch {
    detail = undefined;
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  return undefined;
}
