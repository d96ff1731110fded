import { randomBytes } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LocalRuntime } from '../../emulator/runtime';
import { createBenchPartner } from '../lib/datasets';
import { benchKeyPrefix, callApi } from '../lib/in-process';
import { itemSizeBytes } from '../lib/item-size';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import { formatNumber, percentile } from '../lib/stats';

/*
 * 11. The events this service sends the platform. Commit-to-delivered lag through the local
 * server's own outbound pipe (DynamoDB Local's stream, the filter, the enrichment in the local
 * Lambda runtime, the outbound bus and its rule to the platform's inbox queue): provisionings made
 * in this process, each event's arrival read from the inbox with SQS's ReceiveMessage. Write units
 * of a provisioning and of a wizard submission, with the outbox item and without it (the same
 * outbox item sized as DynamoDB sizes it), and of the enrichment's mark on one event. Stream
 * records per partner API call (the rate limiter's write is one): what the pipe reads and filters
 * out on every call.
 */

const LAG_SAMPLES = 40;
const LAG_BUDGET_MS = 5_000;
const API_CALLS = 200;
/** What the outbox may add to a transaction: one item of at most 1 KB, transactional (2 units per KB). */
const PROVISIONING_OUTBOX_BUDGET = 2;
/** A typical submission (3 answers, 2 offers, check-in text) is an item of at most 2 KB: 4 units. */
const SUBMISSION_OUTBOX_BUDGET = 4;

/** The transactions this process sends, as written: what the outbox adds is read off them. */
const transactions: { items: Record<string, Record<string, unknown>>[] }[] = [];
let recording = false;
async function recordTransactions(): Promise<void> {
  const { dynamoDb } = await import('../../lambdas/data/db');
  dynamoDb().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: Record<string, Record<string, unknown>>[] };
      if (recording && input.TransactItems) transactions.push({ items: input.TransactItems });
      return next(args);
    },
    { step: 'initialize', name: 'benchOutboundTransactions', override: true },
  );
}

/**
 * DynamoDB bills a transactional write 2 write units per KB of the item, rounded up
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling),
 * and an UpdateItem 1 unit per KB of the larger of the item before and after. DynamoDB Local
 * reports one figure per transaction whatever its items, so the units are computed from the items.
 */
const transactionalUnits = (bytes: number) => 2 * Math.ceil(bytes / 1024);
const outboxPut = (transaction: (typeof transactions)[number]) =>
  transaction.items.find((item) =>
    String((item.Put?.Item as { PK?: unknown } | undefined)?.PK ?? '').startsWith('OUTBOX#'),
  )?.Put?.Item as Record<string, unknown> | undefined;

interface Lag {
  readonly lagsMs: number[];
  readonly lost: number;
}

/** Provisionings made here, and the time from each commit to its event in the platform's inbox. */
async function measureLag(runtime: LocalRuntime, partnerId: number): Promise<Lag> {
  const { provisionSponsoredHost } = await import('../../lambdas/data/provisioning');
  const { listOutboxOfHost } = await import('../../lambdas/data/outbox');
  const sqs = new SQSClient({
    endpoint: runtime.awsEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'operator', secretAccessKey: runtime.secretAccessKey },
  });
  const queueUrl = `${runtime.awsEndpoint}/000000000000/partner-api-local-platform-inbox`;
  const committed = new Map<string, number>();
  const arrived = new Map<string, number>();
  let reading = true;
  const delivered = () => [...committed.keys()].filter((id) => arrived.has(id)).length;
  const reader = (async () => {
    while (reading || delivered() < committed.size) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const at = performance.now();
      for (const message of Messages) {
        const id = (JSON.parse(message.Body ?? '{}') as { detail?: { event_id?: string } }).detail?.event_id;
        if (id && !arrived.has(id)) arrived.set(id, at);
      }
      if (!reading && Messages.length === 0) break;
    }
  })();
  for (let sample = 0; sample < LAG_SAMPLES; sample++) {
    const label = `outbound-lag-${sample}-${randomBytes(3).toString('hex')}`;
    const { hostUserId } = await provisionSponsoredHost({
      partnerId,
      contactEmail: `${label}@example.com`,
      contactName: `Bench ${label}`,
      pmsHotelId: label,
      propertyName: `Bench ${label}`,
      productIds: ['assistant'],
      nowMs: Date.now(),
    });
    const at = performance.now();
    const [event] = await listOutboxOfHost(hostUserId);
    if (event) committed.set(event.eventId, at);
    // Spread, with some close together: 0 to 400 ms apart.
    await new Promise((resolve) => setTimeout(resolve, (sample * 97) % 400));
  }
  const deadline = performance.now() + 30_000;
  while (delivered() < committed.size && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  reading = false;
  await reader;
  sqs.destroy();
  const lagsMs = [...committed].flatMap(([id, at]) => {
    const end = arrived.get(id);
    return end === undefined ? [] : [end - at];
  });
  return { lagsMs, lost: committed.size - lagsMs.length };
}

interface OutboxWrite {
  /** Actions in the change's transaction, the outbox's put among them. */
  readonly actions: number;
  /** The outbox item, as DynamoDB sizes it. */
  readonly itemBytes: number;
  /** What the item adds to the transaction: 2 units per KB. */
  readonly addedUnits: number;
}

interface Writes {
  readonly provisioning: OutboxWrite;
  readonly submission: OutboxWrite;
  /** The enrichment's UpdateItem (its mark) of the submission's item: 1 unit per KB. */
  readonly enrichmentUnits: number;
}

/** The outbox's share of the last transaction recorded. */
function outboxWrite(): OutboxWrite {
  const transaction = transactions.at(-1);
  const item = transaction ? outboxPut(transaction) : undefined;
  if (!transaction || !item) throw new Error('The change wrote no outbox item in its transaction');
  const itemBytes = itemSizeBytes(item);
  return { actions: transaction.items.length, itemBytes, addedUnits: transactionalUnits(itemBytes) };
}

/** A provisioning and a wizard submission as the pages make them, and what the outbox adds to each. */
async function measureWrites(partnerId: number): Promise<Writes> {
  const { provisionSponsoredHost } = await import('../../lambdas/data/provisioning');
  const { getKnowledgeBase, saveAnswers, submitKnowledgeBase } = await import(
    '../../lambdas/data/knowledge-base'
  );
  const { listOutboxOfHost } = await import('../../lambdas/data/outbox');
  await recordTransactions();
  const label = `outbound-wcu-${randomBytes(3).toString('hex')}`;
  recording = true;
  const provisioned = await provisionSponsoredHost({
    partnerId,
    contactEmail: `${label}@example.com`,
    contactName: `Bench ${label}`,
    pmsHotelId: label,
    propertyName: `Bench ${label}`,
    productIds: ['assistant', 'upsells'],
    nowMs: Date.now(),
  });
  const provisioning = outboxWrite();
  const property = { partnerId, propertyId: provisioned.propertyId };
  const nowIso = new Date().toISOString();
  const checkin = 'From 3 pm; the key box code is 4711. Parking behind the house.';
  const faqs = [1, 2, 3].map((n) => ({
    question: `Question ${n}: is there something guests often ask?`,
    answer: `Answer ${n}, with a sentence or two of detail about the property and the area.`,
  }));
  const offers = [1, 2].map((n) => ({
    title: `Offer ${n}`,
    description: 'For two, on request.',
    priceMinor: 2_500,
    currency: 'EUR',
  }));
  await saveAnswers(property, { attribute: 'checkInInstructions', value: checkin }, nowIso);
  await saveAnswers(property, { attribute: 'faqs', value: faqs }, nowIso);
  await saveAnswers(property, { attribute: 'upsells', value: offers }, nowIso);
  await submitKnowledgeBase(
    property,
    await getKnowledgeBase(provisioned.propertyId),
    {
      event: (version, first) => ({
        type: 'KnowledgeBaseSubmitted',
        detail: {
          event_id: crypto.randomUUID(),
          host_user_id: provisioned.hostUserId,
          partner_id: partnerId,
          property_id: provisioned.propertyId,
          first_submission: first,
          language: 'en',
          knowledge_base: {
            property_name: `Bench ${label}`,
            checkin_instructions: checkin,
            faqs,
            offers: offers.map((offer) => ({
              title: offer.title,
              description: offer.description,
              price_minor: offer.priceMinor,
              currency: 'EUR' as const,
            })),
          },
          version,
          occurred_at: new Date().toISOString(),
        },
      }),
      firstAudit: { at: nowIso, actor: 'host', action: 'onboarding.completed', partnerId },
    },
    new Date().toISOString(),
  );
  const submission = outboxWrite();
  recording = false;
  // The item as the enrichment rewrites it: with its mark, the larger of before and after.
  const submitted = (await listOutboxOfHost(provisioned.hostUserId)).find(
    (event) => event.detailType === 'KnowledgeBaseSubmitted',
  );
  const marked =
    submission.itemBytes + itemSizeBytes({ sentAt: submitted?.sentAt ?? new Date().toISOString() });
  return { provisioning, submission, enrichmentUnits: Math.ceil(marked / 1024) };
}

/** Stream records the table writes per partner API call: the pipe reads each and filters it out. */
async function measureStreamRecords(
  runtime: LocalRuntime,
): Promise<{ calls: number; records: number; outbox: number }> {
  const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand } =
    await import('@aws-sdk/client-dynamodb-streams');
  const client = {
    endpoint: runtime.dynamoDbEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  };
  const dynamo = new DynamoDBClient(client);
  const streams = new DynamoDBStreamsClient(client);
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: runtime.tableName }));
  const StreamArn = Table?.LatestStreamArn;
  const shards = async () =>
    (await streams.send(new DescribeStreamCommand({ StreamArn }))).StreamDescription?.Shards ?? [];
  // Iterators at the end of every shard now: what is read later was written after.
  const iterators = new Map<string, string | undefined>();
  for (const shard of await shards()) {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' }),
    );
    iterators.set(shard.ShardId ?? '', ShardIterator);
  }
  for (let call = 0; call < API_CALLS; call++)
    await callApi('usage', { partnerId: 1, keyPrefix: benchKeyPrefix() });
  let records = 0;
  let outbox = 0;
  for (const shard of await shards()) {
    let iterator =
      iterators.get(shard.ShardId ?? '') ??
      (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
    for (let empty = 0; iterator && empty < 2; ) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1_000 }));
      const found = page.Records ?? [];
      records += found.length;
      outbox += found.filter((record) => record.dynamodb?.Keys?.PK?.S?.startsWith('OUTBOX#')).length;
      empty = found.length === 0 ? empty + 1 : 0;
      iterator = page.NextShardIterator;
    }
  }
  dynamo.destroy();
  streams.destroy();
  return { calls: API_CALLS, records, outbox };
}

export async function measureOutbound(runtime: LocalRuntime): Promise<SectionResult> {
  const partnerId = await createBenchPartner('outbound', Date.now());
  progress(`outbound: commit-to-delivered lag, ${LAG_SAMPLES} provisionings`);
  const lag = await measureLag(runtime, partnerId);
  progress('outbound: what the outbox adds to a provisioning and a submission');
  const writes = await measureWrites(partnerId);
  progress(`outbound: stream records of ${API_CALLS} API calls`);
  const stream = await measureStreamRecords(runtime);
  const sorted = [...lag.lagsMs].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const perCall = stream.records / stream.calls;
  const budgets: BudgetCheck[] = [
    {
      name: 'commit-to-delivered lag',
      budget: `p99 ≤ ${LAG_BUDGET_MS / 1000} s, none lost (locally: the stream, the pipe, the enrichment, the bus and its rule to the platform's inbox)`,
      measured: `p50 ${formatNumber(p50, 0)} ms, p99 ${formatNumber(p99, 0)} ms of ${lag.lagsMs.length} events; ${lag.lost} lost`,
      pass: lag.lost === 0 && lag.lagsMs.length > 0 && p99 <= LAG_BUDGET_MS,
    },
    {
      name: 'write units the outbox adds to a provisioning',
      budget: `≤ ${PROVISIONING_OUTBOX_BUDGET} (one item under 1 KB in the transaction)`,
      measured: `+${writes.provisioning.addedUnits} (an item of ${writes.provisioning.itemBytes} B; ${writes.provisioning.actions} actions with it, ${writes.provisioning.actions - 1} without)`,
      pass: writes.provisioning.addedUnits <= PROVISIONING_OUTBOX_BUDGET,
    },
    {
      name: 'write units the outbox adds to a wizard submission (3 answers, 2 offers)',
      budget: `≤ ${SUBMISSION_OUTBOX_BUDGET} (one item under 2 KB in the transaction)`,
      measured: `+${writes.submission.addedUnits} (an item of ${writes.submission.itemBytes} B; ${writes.submission.actions} actions with it, ${writes.submission.actions - 1} without)`,
      pass: writes.submission.addedUnits <= SUBMISSION_OUTBOX_BUDGET,
    },
  ];
  const tables: Table[] = [
    {
      caption:
        'What the outbox adds to each change: its item in the change’s transaction (2 write units per KB, rounded up), and the enrichment’s mark when it takes the item for delivery (1 unit per KB)',
      columns: [
        'change',
        'actions in its transaction (with / without the outbox)',
        'outbox item',
        'write units added',
      ],
      rows: [
        [
          'provisioning (2 products)',
          `${writes.provisioning.actions} / ${writes.provisioning.actions - 1}`,
          `${writes.provisioning.itemBytes} B`,
          String(writes.provisioning.addedUnits),
        ],
        [
          'wizard submission (3 answers, 2 offers)',
          `${writes.submission.actions} / ${writes.submission.actions - 1}`,
          `${writes.submission.itemBytes} B`,
          String(writes.submission.addedUnits),
        ],
        [
          'the enrichment taking the submission for delivery',
          '— (an UpdateItem)',
          `${writes.submission.itemBytes} B`,
          String(writes.enrichmentUnits),
        ],
      ],
    },
    {
      caption: `The table's stream under partner API calls (${stream.calls} calls of GET /usage through the real handler)`,
      columns: ['stream records per call', 'of them outbox items', 'what the pipe bills for them'],
      rows: [[formatNumber(perCall, 2), String(stream.outbox), '0: filtered out']],
    },
  ];
  return {
    id: 'outbound',
    title: '11. The events this service sends',
    method:
      'Lag: provisionings made in the bench process through the real data function, one every 0–400 ms, each event read back from the outbox and timed from the commit to its arrival in the local platform inbox (SQS ReceiveMessage, long polling) through the server’s own pipe. Write units: the provisioning and submission transactions as the data functions send them, the outbox item sized by DynamoDB’s item-size rules (bench/lib/item-size.ts) and billed as AWS bills a transactional write (DynamoDB Local reports one figure per transaction, whatever its items). Stream records: DynamoDB Local’s stream read from its end before the calls to its end after.',
    tables,
    budgets,
    notes: [
      `Every partner API call writes its rate window, so the table's stream carries one record per call (${formatNumber(perCall, 2)} measured): the pipe reads them and filters them out, which Pipes does not bill. The stream's reads are billed to a non-Lambda reader (the first 2.5 million a month free); Pipes polls each shard about four times a second whatever the traffic, and a read returns up to 1,000 records, so the calls add reads only above about 4,000 writes a second per shard: the cost per million calls of the cost section is unchanged, and the polling is a fixed cost of each stream shard (docs/design/events.md#delivery-to-the-platform).`,
      `The enrichment's mark (sentAt) rewrites the outbox item: ${writes.enrichmentUnits} write unit(s) for this submission; a knowledge base at the wizard's limits (20 answers of 2,000 characters) is an item of up to about 60 KB, its transaction adds about 120 units and its mark about 60.`,
    ],
    data: { lag, writes, stream, p50, p99 },
  };
}
