import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record, Shard } from '@aws-sdk/client-dynamodb-streams';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { OutboundEntry, OutboxStreamRecord } from '../core/outbound-delivery';
import {
  OUTBOUND_BATCH_SIZE,
  OUTBOUND_BATCHING_WINDOW_SECONDS,
  OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS,
  OUTBOUND_TARGET,
  OUTBOX_FILTER,
} from '../core/outbound-delivery';
import { OUTBOUND_ENRICHMENT } from '../core/routes';
import { applyInputTemplate, atPath, matchesPattern } from './event-patterns';
import type { InvocationOutcome } from './lambda-runtime';

/*
 * The EventBridge Pipe that delivers the outbox, on one machine (docs/design/events.md#on-one-machine):
 * it reads the table's stream on DynamoDB Local (DescribeStream, GetShardIterator, GetRecords, as
 * Pipes does), keeps the records its filter matches (`OUTBOX_FILTER`, the pattern the stack gives
 * AWS), hands them in batches to the same enrichment function in the local Lambda runtime, and puts
 * what it returns on the local outbound bus as the pipe's target would (`OUTBOUND_TARGET`: its
 * detail-type and time by JSON path, its detail by the input template). A shard's records go in
 * order, one batch at a time; a batch whose enrichment fails is tried again, a second later, until
 * its records are older than the pipe's maximum record age. Delivery is at least once.
 */

/** An event as the outbound bus receives it from the pipe: an EventBridge event. */
export interface OutboundEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** Invokes the enrichment with a batch, as the pipe does (synchronously, the batch as an array). */
type InvokeEnrichment = (
  functionName: string,
  records: readonly OutboxStreamRecord[],
) => Promise<InvocationOutcome>;

export interface OutboundPipeOptions {
  readonly dynamoDbEndpoint: string;
  readonly tableName: string;
  readonly invoke: InvokeEnrichment;
  /** The outbound bus: receives each event the pipe sends. */
  readonly put: (event: OutboundEvent) => void;
  /** How often an idle shard is read again. @default 200 */
  readonly pollIntervalMs?: number;
  /** How long a batch gathers records. @default OUTBOUND_BATCHING_WINDOW_SECONDS × 1000 */
  readonly batchingWindowMs?: number;
  /** Says what failed and will be tried again (the server's terminal). */
  readonly onError?: (message: string) => void;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const RETRY_AFTER_MS = 1_000;
const SHARD_LIST_MAX_AGE_MS = 60_000;

/** Reads each shard of the stream in order and delivers what the filter keeps. */
export class LocalOutboundPipe {
  private readonly streams: DynamoDBStreamsClient;
  private readonly dynamoDb: DynamoDBClient;
  /** Each shard's next iterator (undefined once a closed shard is read to its end). */
  private readonly iterators = new Map<string, string | undefined>();
  /** Each shard's last record read: where a new iterator starts when one expired. */
  private readonly lastSequence = new Map<string, string>();
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Records taken from the stream and not yet delivered (or dropped by the enrichment). */
  private pendingCount = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private delivered = 0;
  private streamArn: string | undefined;
  private knownShards: Shard[] | undefined;
  private shardsReadAtMs = 0;

  constructor(private readonly options: OutboundPipeOptions) {
    const client = { endpoint: options.dynamoDbEndpoint, region: 'local', credentials: LOCAL_CREDENTIALS };
    this.streams = new DynamoDBStreamsClient(client);
    this.dynamoDb = new DynamoDBClient(client);
  }

  start(): void {
    this.loop = this.run();
  }

  /**
   * Reads the stream to its end now and delivers what it finds, without the polling loop: what a
   * test steps through (the model-based test of the outbound events). Returns how many records it read.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (let read = await this.readOnce(); read > 0; read = await this.readOnce()) total += read;
    return total;
  }

  /** Events the pipe put on the bus since it started. */
  deliveredCount(): number {
    return this.delivered;
  }

  private async run(): Promise<void> {
    const pollMs = this.options.pollIntervalMs ?? 200;
    while (!this.stopped) {
      let read = 0;
      try {
        read = await this.readOnce();
      } catch (error) {
        this.options.onError?.(
          `outbound pipe: ${(error as Error).message}; reading the stream again shortly`,
        );
        await this.pause(RETRY_AFTER_MS);
      }
      if (read === 0) {
        this.notifyIdle();
        await this.pause(pollMs);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * The stream's shards, with the stream's ARN. Both are kept between passes: DynamoDB Local's
   * DescribeTable counts the index's items in the table (a scan of it, under the lock every write
   * waits for), so asking it on every poll stalls bulk writes into a large table. The shard list is
   * read again when a shard has been read to its end (its children hold what follows it), once a
   * minute, and after an error (a table made again has a new stream).
   */
  private async shards(): Promise<{ shard: Shard; streamArn: string }[]> {
    if (!this.streamArn) {
      const { Table } = await this.dynamoDb.send(
        new DescribeTableCommand({ TableName: this.options.tableName }),
      );
      if (!Table?.LatestStreamArn) throw new Error(`the table ${this.options.tableName} has no stream`);
      this.streamArn = Table.LatestStreamArn;
      this.knownShards = undefined;
    }
    const streamArn = this.streamArn;
    if (!this.knownShards || Date.now() - this.shardsReadAtMs > SHARD_LIST_MAX_AGE_MS) {
      const shards: Shard[] = [];
      let ExclusiveStartShardId: string | undefined;
      do {
        const { StreamDescription } = await this.streams.send(
          new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }),
        );
        shards.push(...(StreamDescription?.Shards ?? []));
        ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
      } while (ExclusiveStartShardId);
      this.knownShards = shards;
      this.shardsReadAtMs = Date.now();
    }
    return this.knownShards.map((shard) => ({ shard, streamArn }));
  }

  /** A new iterator of a shard: after the last record read, or from its oldest. */
  private async newIterator(streamArn: string, shardId: string): Promise<string | undefined> {
    const after = this.lastSequence.get(shardId);
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  }

  /** One pass over the shards: every record found is delivered (or dropped) before it returns. */
  private async readOnce(): Promise<number> {
    try {
      return await this.readShards();
    } catch (error) {
      this.streamArn = undefined; // found again on the next pass
      throw error;
    }
  }

  private async readShards(): Promise<number> {
    let read = 0;
    for (const { shard, streamArn } of await this.shards()) {
      const shardId = shard.ShardId ?? '';
      if (this.iterators.has(shardId) && this.iterators.get(shardId) === undefined) continue; // closed, read
      const iterator = this.iterators.get(shardId) ?? (await this.newIterator(streamArn, shardId));
      let page: { Records?: _Record[]; NextShardIterator?: string };
      try {
        page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1_000 }));
      } catch (error) {
        // An iterator lives 15 minutes (a laptop that slept): start again after the last record read.
        if ((error as Error).name !== 'ExpiredIteratorException') throw error;
        this.iterators.delete(shardId);
        continue;
      }
      const records = page.Records ?? [];
      this.iterators.set(shardId, page.NextShardIterator);
      if (page.NextShardIterator === undefined) this.knownShards = undefined; // closed: its children follow
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) this.lastSequence.set(shardId, last);
      read += records.length;
      await this.deliverInOrder(records.map((record) => wireRecord(record, streamArn)));
    }
    return read;
  }

  /** The records the filter keeps, in batches, each delivered before the next is taken. */
  private async deliverInOrder(records: readonly OutboxStreamRecord[]): Promise<void> {
    const kept = records.filter((record) => matchesPattern(OUTBOX_FILTER, record));
    if (kept.length === 0) return;
    this.pendingCount += kept.length;
    // The batching window: a record alone waits for company, as the pipe's does.
    if (kept.length < OUTBOUND_BATCH_SIZE)
      await this.pause(this.options.batchingWindowMs ?? OUTBOUND_BATCHING_WINDOW_SECONDS * 1000);
    for (let start = 0; start < kept.length && !this.stopped; start += OUTBOUND_BATCH_SIZE) {
      const batch = kept.slice(start, start + OUTBOUND_BATCH_SIZE);
      await this.deliverBatch(batch);
      this.pendingCount -= batch.length;
    }
  }

  /** Enrichment, then the target, tried again until it works or the records are too old. */
  private async deliverBatch(batch: readonly OutboxStreamRecord[]): Promise<void> {
    const oldest = Math.min(...batch.map((record) => recordTimeMs(record)));
    while (!this.stopped) {
      const outcome = await this.options.invoke(OUTBOUND_ENRICHMENT.id, batch).catch(
        (error: Error): InvocationOutcome =>
          ({
            ok: false,
            errorType: 'Runtime.Unknown',
            errorMessage: error.message,
          }) as InvocationOutcome,
      );
      if (outcome.ok) {
        for (const entry of JSON.parse(outcome.payload || '[]') as OutboundEntry[]) this.putOnBus(entry);
        return;
      }
      if (Date.now() - oldest > OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS * 1000) {
        this.options.onError?.(
          `outbound pipe: a batch older than the maximum record age was dropped (${outcome.errorMessage})`,
        );
        return;
      }
      this.options.onError?.(
        `outbound pipe: the enrichment failed (${outcome.errorMessage}); trying the batch again`,
      );
      await this.pause(RETRY_AFTER_MS);
    }
  }

  /** The target: one event on the outbound bus, read from the entry as `OUTBOUND_TARGET` says. */
  private putOnBus(entry: OutboundEntry): void {
    const time = atPath(entry, OUTBOUND_TARGET.time);
    this.options.put({
      version: '0',
      id: randomUUID(),
      'detail-type': String(atPath(entry, OUTBOUND_TARGET.detailType)),
      source: OUTBOUND_TARGET.source,
      account: '000000000000',
      time: typeof time === 'string' ? time.replace(/\.\d{3}Z$/, 'Z') : new Date().toISOString(),
      region: 'local',
      resources: [],
      detail: applyInputTemplate(OUTBOUND_TARGET.inputTemplate, entry),
    });
    this.delivered += 1;
  }

  private notifyIdle(): void {
    if (this.pendingCount > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Resolves after the pipe has read the stream to its end and delivered all it found. */
  caughtUp(): Promise<void> {
    return new Promise((resolve) => {
      // One more pass after this call: records written before it are read by then.
      let passes = 0;
      const waiter = () => {
        passes += 1;
        if (passes >= 2) resolve();
        else this.idleWaiters.push(waiter);
      };
      this.idleWaiters.push(waiter);
      this.wake?.();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.streams.destroy();
    this.dynamoDb.destroy();
  }
}

/**
 * A stream record as Pipes hands it on (DynamoDB Streams' JSON, with the stream's ARN): the SDK
 * reads the record's time as a Date, the wire and the pipe carry epoch seconds.
 */
function wireRecord(record: _Record, streamArn: string): OutboxStreamRecord {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...record,
    eventSourceARN: streamArn,
    dynamodb: {
      ...record.dynamodb,
      ...(created instanceof Date ? { ApproximateCreationDateTime: created.getTime() / 1000 } : {}),
    },
  } as OutboxStreamRecord;
}

/** When the stream record was written (DynamoDB gives epoch seconds), or now. */
function recordTimeMs(record: OutboxStreamRecord): number {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return typeof seconds === 'number' ? seconds * 1000 : Date.now();
}
