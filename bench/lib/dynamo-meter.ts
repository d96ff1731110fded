import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Per-call DynamoDB usage, as the client sees it. */
export interface DynamoUsage {
  requests: number;
  itemsRead: number;
  readCapacity: number;
  writeCapacity: number;
}

/**
 * Counts requests, items returned and capacity consumed by a document client (it asks every
 * call for ReturnConsumedCapacity=TOTAL). `take()` returns and resets the counters.
 */
export function meterDynamo(client: DynamoDBDocumentClient): { take(): DynamoUsage } {
  let usage: DynamoUsage = { requests: 0, itemsRead: 0, readCapacity: 0, writeCapacity: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (!('ReturnConsumedCapacity' in input)) input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const output = result.output as Record<string, unknown>;
      usage.requests += 1;
      if (typeof output.Count === 'number') usage.itemsRead += output.Count;
      else if (output.Item) usage.itemsRead += 1;
      else if (output.Responses && typeof output.Responses === 'object' && !Array.isArray(output.Responses)) {
        usage.itemsRead += Object.values(output.Responses as Record<string, unknown[]>).reduce(
          (sum, items) => sum + items.length,
          0,
        );
      }
      const consumed = [output.ConsumedCapacity].flat().filter(Boolean) as {
        CapacityUnits?: number;
        ReadCapacityUnits?: number;
        WriteCapacityUnits?: number;
      }[];
      for (const entry of consumed) {
        const units = entry.CapacityUnits ?? 0;
        if (/Put|Update|Delete|TransactWrite|BatchWrite/.test(String(context.commandName)))
          usage.writeCapacity += units;
        else usage.readCapacity += units;
      }
      return result;
    },
    { step: 'initialize', name: 'benchDynamoMeter' },
  );
  return {
    take() {
      const taken = usage;
      usage = { requests: 0, itemsRead: 0, readCapacity: 0, writeCapacity: 0 };
      return taken;
    },
  };
}
