import type {
  DynamoDBDocumentClientResolvedConfig,
  GetCommandInput,
  ServiceInputTypes,
  ServiceOutputTypes,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';
import { expect } from 'vitest';

type DocumentClientStub = AwsStub<
  ServiceInputTypes,
  ServiceOutputTypes,
  DynamoDBDocumentClientResolvedConfig
>;

/** A conditional write refused, as the SDK throws it (the stored item marshalled on it). */
function conditionFailure(item: Record<string, unknown> | undefined): Error {
  return Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    $fault: 'client',
    $metadata: {},
    ...(item ? { Item: marshall(item) } : {}),
  });
}

/** DynamoDB's order of binaries: byte by byte, unsigned. */
function compareBinary(a: Uint8Array, b: Uint8Array): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** The number a stored time encodes (ms since the window epoch of rate-windows.ts). */
const decode = (time: Uint8Array) => time.reduce((sum, byte) => sum * 256 + byte, 0);

/** Why a write was refused: the list was full, or a time it meant to remove was no longer there. */
export type RefusalReason = 'full' | 'removed-meanwhile';

/**
 * DynamoDB's behaviour for the rate-window calls of `lambdas/data/rate-windows.ts`, in memory:
 * the append (`list_append(if_not_exists(…))` under a condition on the list's size, which also
 * creates the item), the append that removes expired times (`SET #admitted[end]`, past the end,
 * with `REMOVE` of positions in the list as it was, under a condition on the size and on each
 * removed time), and the strongly consistent read of the list. Each call is atomic, as in
 * DynamoDB, and calls from concurrent promises interleave at their awaits; `onCall` runs as each
 * call starts (a test's clock can move there, so that calls take time). Unknown expressions fail
 * the test.
 */
export function fakeRateWindowTable(dynamo: DocumentClientStub, options: { onCall?: () => void } = {}) {
  const items = new Map<string, Record<string, unknown>>();
  const writes = { admitted: 0, removed: 0, refused: 0, refusals: [] as RefusalReason[], reads: 0 };
  const refuse = (item: Record<string, unknown> | undefined, reason: RefusalReason) => {
    writes.refused += 1;
    writes.refusals.push(reason);
    return conditionFailure(item);
  };
  dynamo.on(GetCommand).callsFake(async (input: GetCommandInput) => {
    options.onCall?.();
    await Promise.resolve();
    const pk = String(input.Key?.PK);
    if (!pk.startsWith('RATELIMIT#')) return {};
    if (input.ConsistentRead !== true || input.ProjectionExpression !== '#admitted')
      throw new Error('The fake rate-window table reads the list only, strongly consistent');
    writes.reads += 1;
    const item = items.get(pk);
    return item ? { Item: structuredClone({ admitted: item.admitted }) } : {};
  });
  dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    options.onCall?.();
    await Promise.resolve(); // a write answers asynchronously, so concurrent calls interleave
    const pk = String(input.Key?.PK);
    const item = items.get(pk);
    const stored = Array.isArray(item?.admitted) ? (item.admitted as Uint8Array[]) : undefined;
    const values = input.ExpressionAttributeValues ?? {};
    const update = input.UpdateExpression ?? '';
    if (update === 'SET #admitted = list_append(if_not_exists(#admitted, :none), :now)') {
      if (input.ConditionExpression !== 'attribute_not_exists(#admitted) OR size(#admitted) < :limit')
        throw new Error(`Unexpected condition: ${input.ConditionExpression}`);
      if (stored && stored.length >= Number(values[':limit'])) throw refuse(item, 'full');
      const next = {
        ...(item ?? { PK: pk, SK: input.Key?.SK }),
        admitted: [...(stored ?? []), ...(values[':now'] as Uint8Array[])],
      };
      items.set(pk, next);
      writes.admitted += 1;
      return { Attributes: structuredClone(next) };
    }
    const pruning = /^SET #admitted\[(\d+)\] = :now REMOVE ((?:#admitted\[\d+\](?:, )?)+)$/.exec(update);
    if (pruning) {
      const end = Number(pruning[1]);
      const removed = [...(pruning[2] ?? '').matchAll(/#admitted\[(\d+)\]/g)].map((match) =>
        Number(match[1]),
      );
      const expected = [
        'size(#admitted) < :end',
        ...removed.map((index) => `#admitted[${index}] <= :freeBefore`),
      ].join(' AND ');
      if (input.ConditionExpression !== expected || Number(values[':end']) !== end)
        throw new Error(`Unexpected condition: ${input.ConditionExpression}`);
      const list = stored ?? [];
      if (list.length >= end) throw refuse(item, 'full');
      const freeBefore = values[':freeBefore'] as Uint8Array;
      for (const index of removed) {
        const time = list[index];
        if (time === undefined || compareBinary(time, freeBefore) > 0)
          throw refuse(item, 'removed-meanwhile');
      }
      const next = {
        ...(item ?? { PK: pk, SK: input.Key?.SK }),
        admitted: [...list.filter((_, index) => !removed.includes(index)), values[':now'] as Uint8Array],
      };
      items.set(pk, next);
      writes.admitted += 1;
      writes.removed += removed.length;
      return { Attributes: structuredClone(next) };
    }
    throw new Error(`The fake rate-window table does not know this update: ${update}`);
  });
  return {
    items,
    writes,
    /** A key's times as stored, in their order (ms since the window epoch of rate-windows.ts). */
    storedTimes(prefix: string): number[] {
      const stored = items.get(`RATELIMIT#${prefix}`)?.admitted;
      return Array.isArray(stored) ? (stored as Uint8Array[]).map(decode) : [];
    },
  };
}

/** A clock the test moves: admissions a window apart without waiting a minute. */
export function virtualClock(startMs = Date.now()) {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

/**
 * The limit is exact over a run's decisions: no window holds more than `limit` admissions, and a
 * request was refused only when its window held exactly `limit`.
 */
export function expectExactWindows(
  outcomes: readonly { atMs: number; admitted: boolean }[],
  { limit, windowMs }: { limit: number; windowMs: number },
): void {
  const admittedAt = outcomes.filter((outcome) => outcome.admitted).map((outcome) => outcome.atMs);
  const inWindow = (atMs: number) => admittedAt.filter((at) => at > atMs - windowMs && at <= atMs).length;
  for (const at of admittedAt) expect(inWindow(at)).toBeLessThanOrEqual(limit);
  for (const outcome of outcomes.filter((candidate) => !candidate.admitted))
    expect(inWindow(outcome.atMs)).toBe(limit);
}
