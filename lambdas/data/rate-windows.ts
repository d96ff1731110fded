import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ProblemError } from '../../core/contract/problems';
import type { RateDecision, RateLimitPolicy, SlotTimes } from '../../core/domain/rate-limit';
import {
  chooseFreeSlot,
  emptySlots,
  NEVER_ADMITTED,
  RATE_LIMIT,
  rateDecision,
} from '../../core/domain/rate-limit';
import { RATE_LIMIT_PARTITION } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, tableName } from './db';

/*
 * One item per key (its own partition prefix, so API handlers can be granted writes to these
 * items and no others) holding the key's slots in one list attribute, `slots`: per slot, the
 * time of the last request admitted through it, as milliseconds since SLOT_TIME_EPOCH_MS (0 for
 * a slot never used). Admitting a request is one UpdateItem that claims one slot under a
 * condition on that slot alone; see docs/design/rate-limit.md for why this is exact.
 */
const rateWindowKey = (prefix: string) => ({ PK: `${RATE_LIMIT_PARTITION}${prefix}`, SK: 'RATELIMIT' });
const SLOTS = 'slots';

/**
 * Stored times count from here, not from 1970: at most 12 significant digits (7 bytes each)
 * until 2057, so the item of 120 slots is about 1,000 bytes and every write is one write unit.
 */
const SLOT_TIME_EPOCH_MS = Date.UTC(2026, 0, 1);
const toStored = (ms: number) => (ms === NEVER_ADMITTED ? 0 : ms - SLOT_TIME_EPOCH_MS);
const fromStored = (value: number) => (value === 0 ? NEVER_ADMITTED : value + SLOT_TIME_EPOCH_MS);

/** The slots of a stored item, or undefined when it has none of the current size. */
function slotsOf(item: Record<string, unknown> | undefined, policy: RateLimitPolicy): number[] | undefined {
  const stored = item?.[SLOTS];
  if (!Array.isArray(stored) || stored.length !== policy.limit) return undefined;
  return stored.map((value) => (typeof value === 'number' ? fromStored(value) : NEVER_ADMITTED));
}

/** The item a failed conditional write returned (ReturnValuesOnConditionCheckFailure). */
function itemOfConditionFailure(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, NativeAttributeValue> }).Item;
  return item ? unmarshall(item as Parameters<typeof unmarshall>[0]) : undefined;
}

type Attempt =
  | { readonly admitted: true; readonly slots: number[] }
  /** The stored item: its slots, or none yet (a new key, or slots of another size). */
  | { readonly admitted: false; readonly slots?: number[]; readonly item?: Record<string, unknown> };

/**
 * Claims one slot: only if it is free (a condition on that slot alone, no version number) and
 * the list has the current size.
 */
async function claimSlot(
  prefix: string,
  slot: number,
  nowMs: number,
  policy: RateLimitPolicy,
): Promise<Attempt> {
  try {
    const { Attributes } = await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rateWindowKey(prefix),
        UpdateExpression: `SET #slots[${slot}] = :now`,
        ConditionExpression: `size(#slots) = :limit AND #slots[${slot}] <= :freeBefore`,
        ExpressionAttributeNames: { '#slots': SLOTS },
        ExpressionAttributeValues: {
          ':now': toStored(nowMs),
          ':freeBefore': toStored(nowMs - policy.windowMs),
          ':limit': policy.limit,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const slots = slotsOf(Attributes, policy);
    if (!slots) throw new Error(`The rate window of ${prefix} came back without its ${policy.limit} slots`);
    return { admitted: true, slots };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const item = itemOfConditionFailure(error);
    return { admitted: false, slots: slotsOf(item, policy), item };
  }
}

/**
 * Writes the whole slot list: for a key's first request, and once after the limit changed size
 * (the times already stored are kept).
 */
async function createWindow(prefix: string, slots: SlotTimes, policy: RateLimitPolicy): Promise<Attempt> {
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rateWindowKey(prefix),
        UpdateExpression: 'SET #slots = :slots',
        ConditionExpression: 'attribute_not_exists(#slots) OR size(#slots) <> :limit',
        ExpressionAttributeNames: { '#slots': SLOTS },
        ExpressionAttributeValues: { ':slots': slots.map(toStored), ':limit': policy.limit },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { admitted: true, slots: [...slots] };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const item = itemOfConditionFailure(error);
    return { admitted: false, slots: slotsOf(item, policy), item };
  }
}

/** What an item without slots of the current size still tells: the times it holds. */
function resized(item: Record<string, unknown> | undefined, policy: RateLimitPolicy): number[] {
  const stored = Array.isArray(item?.[SLOTS]) ? (item[SLOTS] as unknown[]) : [];
  return emptySlots(policy).map((_, index) => {
    const value = stored[index];
    return typeof value === 'number' ? fromStored(value) : NEVER_ADMITTED;
  });
}

export interface RateLimiterOptions {
  readonly clock?: () => number;
  readonly random?: () => number;
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
 * A rate limiter with its own views of keys' slots, as one Lambda instance holds them. The
 * views are only an optimisation: each write's answer refreshes them, and a stale one costs at
 * most a failed write that returns the stored slots.
 *
 * Admission costs one conditional UpdateItem and no read; a refusal costs nothing when the
 * view already shows every slot busy. A failed condition means another instance admitted a
 * request through that slot: the failure returns the stored slots and the next attempt chooses
 * among those free. Every failure is another instance's admission, so at most `limit` can
 * happen before the view is full and the request is refused: contention never ends in a 5xx.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const { clock = Date.now, random = Math.random, policy = RATE_LIMIT } = options;
  const views = new Map<string, SlotTimes>();
  const remember = (prefix: string, slots: SlotTimes) => {
    views.delete(prefix);
    views.set(prefix, slots);
    if (views.size > VIEW_LIMIT) {
      const oldest = views.keys().next().value;
      if (oldest !== undefined) views.delete(oldest);
    }
  };
  return {
    async consume(prefix) {
      let view: SlotTimes | undefined = views.get(prefix);
      /** Whether the stored item is known to lack slots of the current size. */
      let withoutWindow = false;
      const maxAttempts = 2 * policy.limit + 2;
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const nowMs = clock();
        const known = view ?? emptySlots(policy);
        const slot = chooseFreeSlot(known, nowMs, random, policy);
        if (slot === undefined) {
          remember(prefix, known);
          return rateDecision(known, nowMs, false, policy);
        }
        const outcome: Attempt = withoutWindow
          ? await createWindow(
              prefix,
              known.map((time, index) => (index === slot ? nowMs : time)),
              policy,
            )
          : await claimSlot(prefix, slot, nowMs, policy);
        if (outcome.admitted) {
          remember(prefix, outcome.slots);
          return rateDecision(outcome.slots, nowMs, true, policy);
        }
        withoutWindow = outcome.slots === undefined;
        view = outcome.slots ?? resized(outcome.item, policy);
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

/** Last time each key was admitted (the latest of its slots), for operators (`keys list`). */
export async function lastUsedOfKeys(prefixes: readonly string[]): Promise<Map<string, string>> {
  const lastUsed = new Map<string, string>();
  for (let start = 0; start < prefixes.length; start += 100) {
    const chunk = prefixes.slice(start, start + 100);
    const { Responses } = await dynamoDb().send(
      new BatchGetCommand({
        RequestItems: {
          [tableName()]: {
            Keys: chunk.map(rateWindowKey),
            ProjectionExpression: 'PK, #slots',
            ExpressionAttributeNames: { '#slots': SLOTS },
          },
        },
      }),
    );
    for (const item of Responses?.[tableName()] ?? []) {
      const stored = Array.isArray(item[SLOTS]) ? (item[SLOTS] as unknown[]) : [];
      const latest = Math.max(0, ...stored.map((value) => (typeof value === 'number' ? value : 0)));
      if (latest > 0)
        lastUsed.set(
          String(item.PK).slice(RATE_LIMIT_PARTITION.length),
          new Date(fromStored(latest)).toISOString(),
        );
    }
  }
  return lastUsed;
}

/** Forgets this instance's views (tests). */
export function forgetRateWindows(): void {
  instanceLimiter.forget();
}
