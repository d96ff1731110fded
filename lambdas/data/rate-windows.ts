import { BatchGetCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ProblemError } from '../../core/contract/problems';
import type { RateDecision, RateLimitPolicy, WindowView } from '../../core/domain/rate-limit';
import { observe, RATE_LIMIT, rateDecision, readBeforeWriting, roomIn } from '../../core/domain/rate-limit';
import { RATE_LIMIT_PARTITION } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, tableName } from './db';

/*
 * One item per key (its own partition prefix, so API handlers can be granted writes to these
 * items and no others) holding one list attribute, `admitted`: the times of the requests admitted
 * in the key's window, in the order their writes landed, and no more than `limit` of them.
 * Admitting a request appends its time under a condition on the list's size, so admissions from
 * any number of instances at once all succeed until the window is full; times more than a window
 * old are removed by the admission that needs their room. See docs/design/rate-limit.md for why
 * this is exact.
 */
const rateWindowKey = (prefix: string) => ({ PK: `${RATE_LIMIT_PARTITION}${prefix}`, SK: 'RATELIMIT' });
const ADMITTED = 'admitted';

/**
 * Times are 5-byte big-endian binaries of milliseconds since TIME_EPOCH_MS (until 2060).
 * DynamoDB compares binaries byte by byte, unsigned, so a fixed width compares as the numbers
 * do; 5 bytes against a number's 7 keep the item at most 35 + 11 + 120 × 6 = 766 bytes, so every
 * write is one write unit.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html
 */
const TIME_EPOCH_MS = Date.UTC(2026, 0, 1);
const TIME_BYTES = 5;
const TIME_MAX = 2 ** (8 * TIME_BYTES) - 1;

function toStored(ms: number): Uint8Array {
  const offset = Math.max(0, ms - TIME_EPOCH_MS);
  if (offset > TIME_MAX) throw new Error('Rate-window times past 2060 need a wider encoding');
  const bytes = new Uint8Array(TIME_BYTES);
  let rest = offset;
  for (let index = TIME_BYTES - 1; index >= 0; index--) {
    bytes[index] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  return bytes;
}

/** A stored time; anything else reads as the epoch, which is never busy and so is removed first. */
function fromStored(value: unknown): number {
  if (!(value instanceof Uint8Array) || value.length !== TIME_BYTES) return TIME_EPOCH_MS;
  return value.reduce((sum, byte) => sum * 256 + byte, 0) + TIME_EPOCH_MS;
}

/** The admission times of a stored item, in its order (none for an item not written yet). */
function timesOf(item: Record<string, unknown> | undefined): number[] {
  const stored = item?.[ADMITTED];
  return Array.isArray(stored) ? stored.map(fromStored) : [];
}

/** The item a failed conditional write returned (ReturnValuesOnConditionCheckFailure). */
function itemOfConditionFailure(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, NativeAttributeValue> }).Item;
  return item ? unmarshall(item as Parameters<typeof unmarshall>[0]) : undefined;
}

/**
 * Removals in one write: each adds a comparison and an AND to the condition, and DynamoDB allows
 * 300 operators and 4 KB in an expression (100 removals: about 200 operators and 3.3 KB). One
 * removal makes room in a list of `limit` times; more only after the limit was lowered.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-expression-parameters
 */
const MAX_REMOVALS = 100;

/** A write's outcome, with the stored times either way (just after it, or as they stood). */
interface Attempt {
  readonly admitted: boolean;
  readonly times: number[];
}

/** Names DynamoDB gives a request it refused for capacity, before doing anything. */
const THROTTLING_ERROR_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
]);

/**
 * An admitting write whose outcome is unknown: no answer came in time, the connection dropped, or
 * DynamoDB answered with a server error, and the write may have landed. A transient failure: the
 * request is answered 503.
 */
class AdmissionOutcomeUnknownError extends Error {
  override readonly name = 'AdmissionOutcomeUnknown';
}

/**
 * The admitting write is sent once. The SDK retries a timeout or a server error, but an append
 * sent again after one that landed would take a second place in the window: a request could use
 * up to three of its key's places and the key be refused before 120 admissions. So such a failure
 * ends the request (a 503, having taken at most one place), and only throttling, which DynamoDB
 * refuses before writing, is retried. The middleware sits inside the SDK's retry middleware
 * (finalizeRequest, high priority) and outside the deserializer, so it sees service errors too.
 * https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html
 */
function sentOnce<C extends UpdateCommand>(command: C): C {
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (
          !(error instanceof Error) ||
          error instanceof AdmissionOutcomeUnknownError ||
          isConditionFailure(error) ||
          THROTTLING_ERROR_NAMES.has(error.name)
        )
          throw error;
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status !== undefined && status < 500) throw error;
        throw new AdmissionOutcomeUnknownError(
          `The admitting write may have landed, with no answer (${error.name}: ${error.message}); not sent again.`,
        );
      }
    },
    // No name: lib-dynamodb joins a command's stack to the client's twice, so a named middleware
    // would be refused as a duplicate; the second copy passes the first one's error on.
    { step: 'finalizeRequest', priority: 'low' },
  );
  return command;
}

/**
 * Admits one request: appends its time, on condition that the list then holds at most `limit`
 * times. `expired` are the positions, in the instance's view, of times more than a window old
 * that the append removes to make room: each on condition that the time now at that position is
 * still that old, so a removal never takes a time inside the window, whatever other instances did
 * meanwhile. Without removals the write also creates the item of a key's first request.
 */
async function admit(
  prefix: string,
  nowMs: number,
  expiredInView: readonly number[],
  policy: RateLimitPolicy,
): Promise<Attempt> {
  const expired = expiredInView.slice(0, MAX_REMOVALS);
  let update: string;
  let condition: string;
  let values: Record<string, unknown>;
  if (expired.length === 0) {
    update = 'SET #admitted = list_append(if_not_exists(#admitted, :none), :now)';
    condition = 'attribute_not_exists(#admitted) OR size(#admitted) < :limit';
    values = { ':none': [], ':now': [toStored(nowMs)], ':limit': policy.limit };
  } else {
    // The list holds fewer than `limit + expired` times, so setting that position appends; every
    // action reads the list as it was before the write, so the removals name positions in it.
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
    const end = policy.limit + expired.length;
    update = `SET #admitted[${end}] = :now REMOVE ${expired.map((index) => `#admitted[${index}]`).join(', ')}`;
    condition = [
      'size(#admitted) < :end',
      ...expired.map((index) => `#admitted[${index}] <= :freeBefore`),
    ].join(' AND ');
    values = { ':now': toStored(nowMs), ':end': end, ':freeBefore': toStored(nowMs - policy.windowMs) };
  }
  try {
    const { Attributes } = await dynamoDb().send(
      sentOnce(
        new UpdateCommand({
          TableName: tableName(),
          Key: rateWindowKey(prefix),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#admitted': ADMITTED },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { admitted: true, times: timesOf(Attributes) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { admitted: false, times: timesOf(itemOfConditionFailure(error)) };
  }
}

/** The stored times, read strongly consistent: one read unit, the item being under 4 KB. */
async function readWindow(prefix: string): Promise<number[]> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: rateWindowKey(prefix),
      ConsistentRead: true,
      ProjectionExpression: '#admitted',
      ExpressionAttributeNames: { '#admitted': ADMITTED },
    }),
  );
  return timesOf(Item);
}

export interface RateLimiterOptions {
  readonly clock?: () => number;
  readonly policy?: RateLimitPolicy;
}

export interface RateLimiter {
  /** Counts one request of a key: admitted, or refused because its window is full. */
  consume(prefix: string): Promise<RateDecision>;
  /** Forgets this limiter's views (tests). */
  forget(): void;
}

/** How many views of keys one instance keeps (least recently used first out). */
const VIEW_LIMIT = 10_000;

/**
 * A rate limiter with its own views of keys' windows, as one Lambda instance holds them. The
 * views are only an optimisation: each answer refreshes them, and a stale one costs at most a
 * failed write, which returns the stored list.
 *
 * Admission costs one conditional UpdateItem; admissions from any number of instances do not
 * collide, because each appends under a condition on the list's size. A refusal costs nothing
 * when the view already shows `limit` busy times. A write fails only when the window is full or
 * another instance removed the expired times first, and either is another instance's admission:
 * the failure returns the stored list, and the next attempt decides from it, so contention never
 * ends in a 5xx. When the view is probably full (readBeforeWriting), the instance reads before it
 * writes.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const { clock = Date.now, policy = RATE_LIMIT } = options;
  const views = new Map<string, WindowView>();
  const remember = (prefix: string, view: WindowView | undefined) => {
    if (!view) return;
    views.delete(prefix);
    views.set(prefix, view);
    if (views.size > VIEW_LIMIT) {
      const oldest = views.keys().next().value;
      if (oldest !== undefined) views.delete(oldest);
    }
  };
  return {
    async consume(prefix) {
      let view = views.get(prefix);
      let looked = false;
      const maxAttempts = 2 * policy.limit + 2;
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const nowMs = clock();
        const times = view?.times ?? [];
        const room = roomIn(times, nowMs, policy);
        if (room === undefined) {
          remember(prefix, view);
          return rateDecision(times, nowMs, false, policy);
        }
        // At most one read per request, and none after an answer this request already had.
        const read = view && !looked ? readBeforeWriting(view, nowMs, policy) : undefined;
        looked = true;
        if (read) {
          if (read.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, read.waitMs));
          const startedMs = clock();
          const stored = await readWindow(prefix);
          view = observe(view, { times: stored, admitted: false }, startedMs, clock(), policy);
          continue;
        }
        const outcome = await admit(prefix, nowMs, room.expired, policy);
        view = observe(view, outcome, nowMs, clock(), policy);
        if (outcome.admitted) {
          remember(prefix, view);
          return rateDecision(outcome.times, nowMs, true, policy);
        }
      }
      // Unreachable while clocks agree: each failed attempt was another instance's admission.
      throw new ProblemError(
        'service-unavailable',
        'Too many simultaneous requests for this key; retry shortly.',
        { 'Retry-After': '1' },
      );
    },
    forget() {
      views.clear();
    },
  };
}

/** This instance's limiter (module state is per Lambda instance). */
const instanceLimiter = createRateLimiter();

/** Counts one request against its key's exact window (see {@link createRateLimiter}). */
export function consumeRequest(prefix: string): Promise<RateDecision> {
  return instanceLimiter.consume(prefix);
}

/** Last time each key was admitted (the latest of its times), for operators (`keys list`). */
export async function lastUsedOfKeys(prefixes: readonly string[]): Promise<Map<string, string>> {
  const lastUsed = new Map<string, string>();
  for (let start = 0; start < prefixes.length; start += 100) {
    const chunk = prefixes.slice(start, start + 100);
    const { Responses } = await dynamoDb().send(
      new BatchGetCommand({
        RequestItems: {
          [tableName()]: {
            Keys: chunk.map(rateWindowKey),
            ProjectionExpression: 'PK, #admitted',
            ExpressionAttributeNames: { '#admitted': ADMITTED },
          },
        },
      }),
    );
    for (const item of Responses?.[tableName()] ?? []) {
      const latest = Math.max(TIME_EPOCH_MS, ...timesOf(item));
      if (latest > TIME_EPOCH_MS)
        lastUsed.set(String(item.PK).slice(RATE_LIMIT_PARTITION.length), new Date(latest).toISOString());
    }
  }
  return lastUsed;
}

/** Forgets this instance's views (tests). */
export function forgetRateWindows(): void {
  instanceLimiter.forget();
}
