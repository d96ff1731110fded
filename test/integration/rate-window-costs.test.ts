import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RateDecision } from '../../core/domain/rate-limit';
import { RATE_LIMIT } from '../../core/domain/rate-limit';
import { isTransientAwsError } from '../../lambdas/common/aws-errors';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { createRateLimiter } from '../../lambdas/data/rate-windows';
import { expectExactWindows, virtualClock } from '../support/rate-window-table';

/**
 * What the limiter's writes cost on DynamoDB Local, as DynamoDB bills them: each admitting write
 * is metered by its ConsumedCapacity, and each failed conditional write counted (DynamoDB bills
 * those too, by the stored item's size, at least one write unit:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity).
 * The limiters run in this process, each as one Lambda instance would, on the suite's table.
 */
const { limit, windowMs } = RATE_LIMIT;
const meter = { writes: 0, units: 0, failed: 0, maxUnits: 0, removals: 0, reads: 0, readUnits: 0 };
dynamoDb().middlewareStack.add(
  (next, context) => async (args) => {
    if (/^Get/.test(String(context.commandName))) {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      meter.reads += 1;
      meter.readUnits +=
        (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity
          ?.CapacityUnits ?? 0;
      return result;
    }
    if (!/Update/.test(String(context.commandName))) return next(args);
    (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
    try {
      const result = await next(args);
      const units =
        (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity
          ?.CapacityUnits ?? 0;
      meter.writes += 1;
      meter.units += units;
      meter.maxUnits = Math.max(meter.maxUnits, units);
      if (/REMOVE/.test(String((args.input as { UpdateExpression?: string }).UpdateExpression)))
        meter.removals += 1;
      return result;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') meter.failed += 1;
      throw error;
    }
  },
  { step: 'initialize', name: 'rateLimitCostMeter' },
);

function metered() {
  const start = { ...meter };
  return () => ({
    writes: meter.writes - start.writes,
    units: meter.units - start.units,
    failed: meter.failed - start.failed,
  });
}

function meteredReads() {
  const start = { ...meter };
  return () => ({ reads: meter.reads - start.reads, readUnits: meter.readUnits - start.readUnits });
}

const freshKey = () => `svc_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}`;

async function storedCount(prefix: string): Promise<number> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: { PK: `RATELIMIT#${prefix}`, SK: 'RATELIMIT' } }),
  );
  return Array.isArray(Item?.admitted) ? Item.admitted.length : 0;
}

describe('the rate limiter’s writes on DynamoDB Local', () => {
  it('admits a fresh key’s 120 requests with 120 writes of one unit each and no failed condition', async () => {
    const key = freshKey();
    const limiter = createRateLimiter();
    const cost = metered();

    const decisions: RateDecision[] = [];
    for (let request = 0; request <= limit; request++) decisions.push(await limiter.consume(key));

    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(limit);
    expect(decisions.at(-1)).toMatchObject({ admitted: false, remaining: 0 });
    // The 121st was refused from the view the 120th write returned: no call at all.
    expect(cost()).toEqual({ writes: limit, units: limit, failed: 0 });
    // The item with 120 times stays under 1 KB: no write of it cost more than one unit.
    expect(meter.maxUnits).toBe(1);
  });

  it('admits a fresh key’s requests from 50 instances at once without a failed condition until the window is full', async () => {
    const key = freshKey();
    const instances = Array.from({ length: 50 }, () => createRateLimiter());
    // Each instance serves its share of a burst one request at a time, as a Lambda instance does.
    const burst = async () =>
      (
        await Promise.all(
          instances.map(async (instance) => [await instance.consume(key), await instance.consume(key)]),
        )
      ).flat();

    const underCost = metered();
    const under = await burst();
    const underFigures = underCost();
    const overCost = metered();
    const over = await burst();
    const overFigures = overCost();

    expect(under.filter((decision) => decision.admitted)).toHaveLength(100);
    expect(underFigures).toEqual({ writes: 100, units: 100, failed: 0 });
    expect(over.filter((decision) => decision.admitted)).toHaveLength(limit - 100);
    // Over the limit, an instance learns that the window is full from one failed write at most.
    expect(overFigures.writes).toBe(limit - 100);
    expect(overFigures.failed).toBeLessThanOrEqual(instances.length);
  });

  it('removes up to 100 expired times in the admitting write, once, when two instances race to make the room', async () => {
    const key = freshKey();
    const clock = virtualClock();
    const [first, second] = [
      createRateLimiter({ clock: clock.now }),
      createRateLimiter({ clock: clock.now }),
    ];
    for (let request = 0; request < limit; request++) await first.consume(key);
    expect((await second.consume(key)).admitted).toBe(false);
    clock.advance(windowMs);
    const cost = metered();

    const decisions = await Promise.all([first.consume(key), second.consume(key)]);

    expect(decisions.map((decision) => decision.admitted)).toEqual([true, true]);
    expect(decisions.map((decision) => decision.remaining).sort()).toEqual([limit - 2, limit - 1]);
    // One made the room, removing 100 of the 120 expired times (the most one write removes); the
    // other's removal found them gone and appended to the list it got back.
    expect(await storedCount(key)).toBe(limit - 100 + 2);
    expect(cost()).toEqual({ writes: 2, units: 2, failed: 1 });
  });

  it('reads, one read unit, instead of a failing write when the pace it saw says the window has filled since', async () => {
    const key = freshKey();
    const clock = virtualClock();
    const [watcher, others] = [
      createRateLimiter({ clock: clock.now }),
      createRateLimiter({ clock: clock.now }),
    ];
    await watcher.consume(key);
    clock.advance(500);
    for (let request = 0; request < 60; request++) await others.consume(key);
    clock.advance(500);
    await watcher.consume(key); // room 58 in its view, others admitting 60 per second
    for (let request = 0; request < 58; request++) await others.consume(key);
    clock.advance(1_000);
    const writes = metered();
    const reads = meteredReads();

    const decision = await watcher.consume(key);

    expect(decision).toMatchObject({ admitted: false, remaining: 0 });
    expect(writes()).toEqual({ writes: 0, units: 0, failed: 0 });
    expect(reads()).toEqual({ reads: 1, readUnits: 1 });
  });

  /**
   * Makes the next admitting write of `key` fail after it was sent: `landed` lets DynamoDB apply it
   * and then loses the answer (a timeout, as the SDK reports one), otherwise DynamoDB's throttling
   * refusal is thrown before anything is sent. Counts the writes of `key` that reached DynamoDB.
   */
  function failNextWrite(key: string, how: 'landed' | 'throttled') {
    const name = `failNextWrite-${key}`;
    let failed = false;
    const sent = { count: 0 };
    dynamoDb().middlewareStack.add(
      (next, context) => async (args) => {
        const ofKey = /Update/.test(String(context.commandName)) && JSON.stringify(args.input).includes(key);
        if (ofKey && !failed && how === 'throttled') {
          failed = true;
          throw Object.assign(new Error('Throughput exceeds the current capacity.'), {
            name: 'ProvisionedThroughputExceededException',
            $metadata: { httpStatusCode: 400 },
          });
        }
        const result = await next(args);
        if (!ofKey) return result;
        sent.count += 1;
        if (!failed) {
          failed = true;
          throw Object.assign(new Error('No answer within 2500 ms.'), { name: 'TimeoutError' });
        }
        return result;
      },
      { step: 'deserialize', priority: 'low', name },
    );
    return { sent, done: () => dynamoDb().middlewareStack.remove(name) };
  }

  it('sends an admission once: an answer lost after the write landed is a 503 that took one place, never two', async () => {
    const key = freshKey();
    const lost = failNextWrite(key, 'landed');
    try {
      const error = await createRateLimiter()
        .consume(key)
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );

      expect(error).toMatchObject({ name: 'AdmissionOutcomeUnknown' });
      expect(isTransientAwsError(error)).toBe(true);
      expect(lost.sent.count).toBe(1);
      expect(await storedCount(key)).toBe(1);
    } finally {
      lost.done();
    }
    await expect(createRateLimiter().consume(key)).resolves.toMatchObject({
      admitted: true,
      remaining: limit - 2,
    });
  });

  it('retries an admission DynamoDB refused for capacity, which wrote nothing', async () => {
    const key = freshKey();
    const throttled = failNextWrite(key, 'throttled');
    try {
      await expect(createRateLimiter().consume(key)).resolves.toMatchObject({
        admitted: true,
        remaining: limit - 1,
      });
      expect(throttled.sent.count).toBe(1);
      expect(await storedCount(key)).toBe(1);
    } finally {
      throttled.done();
    }
  });

  it('is exact on DynamoDB’s own conditions for any instances racing in any order, and wastes no write while the window has room', async () => {
    const removalsBefore = meter.removals;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.record({
            advanceMs: fc.integer({ min: 0, max: 40_000 }),
            requests: fc.integer({ min: 1, max: 70 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.infiniteStream(fc.nat()),
        async (instanceCount, batches, choices) => {
          const key = freshKey();
          const clock = virtualClock();
          const limiters = Array.from({ length: instanceCount }, () =>
            createRateLimiter({ clock: clock.now }),
          );
          const pick = choices[Symbol.iterator]();
          const outcomes: { atMs: number; admitted: boolean }[] = [];
          let mayHaveFilled = false;
          for (const batch of batches) {
            clock.advance(batch.advanceMs);
            const storedBefore = await storedCount(key);
            const cost = metered();
            const decisions = await Promise.all(
              Array.from({ length: batch.requests }, () => {
                const limiter = limiters[(pick.next().value ?? 0) % instanceCount] ?? limiters[0];
                if (!limiter) throw new Error('no limiter');
                return limiter.consume(key);
              }),
            );
            outcomes.push(
              ...decisions.map((decision) => ({ atMs: decision.atMs, admitted: decision.admitted })),
            );
            const stored = await storedCount(key);
            expect(stored).toBeLessThanOrEqual(limit);
            // Until the list may have filled (see the unit test's property), no write fails.
            if (!mayHaveFilled && storedBefore + batch.requests <= limit) expect(cost().failed).toBe(0);
            mayHaveFilled ||= storedBefore + batch.requests >= limit;
          }
          expectExactWindows(outcomes, { limit, windowMs });
        },
      ),
      { numRuns: 12 },
    );
    // Windows are emptied through the admitting writes' removals (of a full list's expired times), not
    // only filled: what the runs drew may not have filled a list and let it expire (12 runs of random
    // batches), so one run surely does.
    const key = freshKey();
    const clock = virtualClock();
    const limiter = createRateLimiter({ clock: clock.now });
    for (let request = 0; request < limit; request++) await limiter.consume(key);
    clock.advance(windowMs + 1_000);
    await expect(limiter.consume(key)).resolves.toMatchObject({ admitted: true, remaining: limit - 1 });
    expect(meter.removals - removalsBefore).toBeGreaterThan(0);
  });
});
