/**
 * One independent Lambda instance of the rate limiter, in its own process: its own module
 * state (views of keys), its own DynamoDB client, nothing shared with the others but DynamoDB
 * Local. Driven over stdin/stdout by bench/sections/limiter.ts, one JSON line each way:
 *   in:  {"key": "svc_…", "at": [ms since epoch, …]}  (run one request at each time, in order)
 *   out: {"ready": true} once warm, then one {"requests": [...], "writes": {...}} per burst.
 * The table comes from the environment (STAGE, tableName, DYNAMODB_ENDPOINT), as for a handler.
 */
import { createInterface } from 'node:readline';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemSizeBytes } from '../lib/item-size';

const { dynamoDb } = await import('../../lambdas/data/db');
const { createRateLimiter } = await import('../../lambdas/data/rate-windows');

/**
 * Writes as DynamoDB bills them (a failed conditional write costs the stored item's size too),
 * and the reads of the window an instance makes before a write that would probably fail.
 */
const writes = {
  admitted: 0,
  conditionFailures: 0,
  admittedUnits: 0,
  failedUnits: 0,
  reads: 0,
  readUnits: 0,
};
dynamoDb().middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    if (/Get/.test(String(context.commandName))) {
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      writes.reads += 1;
      writes.readUnits +=
        (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity
          ?.CapacityUnits ?? 0;
      return result;
    }
    if (!/Update/.test(String(context.commandName))) return next(args);
    input.ReturnConsumedCapacity = 'TOTAL';
    try {
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      writes.admitted += 1;
      writes.admittedUnits += consumed?.CapacityUnits ?? 0;
      return result;
    } catch (error) {
      const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      if ((error as Error).name === 'ConditionalCheckFailedException') {
        writes.conditionFailures += 1;
        // Billed on the larger of the stored and the written item, at least 1 unit per KB started.
        writes.failedUnits += Math.max(1, Math.ceil((item ? itemSizeBytes(unmarshall(item)) : 0) / 1024));
      }
      throw error;
    }
  },
  { step: 'initialize', name: 'benchWriteMeter' },
);

const limiter = createRateLimiter();
// Warm: modules loaded, connection open, code compiled, on a key of its own.
for (let request = 0; request < 30; request++)
  await limiter.consume(`svc_w${String(process.pid).padStart(7, '0').slice(-7)}`);
writes.admitted = 0;
writes.admittedUnits = 0;
writes.conditionFailures = 0;
writes.failedUnits = 0;
writes.reads = 0;
writes.readUnits = 0;
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const { key, at } = JSON.parse(line) as { key: string; at: number[] };
  const before = { ...writes };
  const requests: {
    scheduledMs: number;
    latencyMs: number;
    waitedMs: number;
    writes: number;
    reads: number;
    admitted?: boolean;
    error?: string;
  }[] = [];
  for (const scheduledMs of at) {
    const wait = scheduledMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // Latency from the scheduled time: a request that had to wait for this busy instance counts it.
    const waitedMs = Math.max(0, Date.now() - scheduledMs);
    const started = performance.now() - waitedMs;
    const writesBefore = writes.admitted + writes.conditionFailures;
    const readsBefore = writes.reads;
    const outcome: { admitted?: boolean; error?: string } = await limiter.consume(key).then(
      (decision) => ({ admitted: decision.admitted }),
      (error: Error) => ({ error: error.name }),
    );
    requests.push({
      scheduledMs,
      latencyMs: performance.now() - started,
      waitedMs,
      writes: writes.admitted + writes.conditionFailures - writesBefore,
      reads: writes.reads - readsBefore,
      ...outcome,
    });
  }
  process.stdout.write(
    `${JSON.stringify({
      requests,
      writes: {
        admitted: writes.admitted - before.admitted,
        admittedUnits: writes.admittedUnits - before.admittedUnits,
        conditionFailures: writes.conditionFailures - before.conditionFailures,
        failedUnits: writes.failedUnits - before.failedUnits,
        reads: writes.reads - before.reads,
        readUnits: writes.readUnits - before.readUnits,
      },
    })}\n`,
  );
}
