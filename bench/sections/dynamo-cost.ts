import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SCOPES } from '../../core/domain/scopes';
import type { DynamoUsage } from '../lib/dynamo-meter';
import type { Metered } from '../lib/in-process';
import { benchKeyPrefix, callApi, callAuthorizer, inProcess } from '../lib/in-process';
import { itemSizeBytes } from '../lib/item-size';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import { mintKeys } from '../lib/service-process';
import type { Summary } from '../lib/stats';
import { formatBytes, formatNumber, formatSummary, summarize } from '../lib/stats';

/** DynamoDB on-demand prices, us-east-1, after the November 2024 price cut (unchanged since). */
const PRICES = {
  region: 'us-east-1',
  asOf: '2024-11-01 (on-demand price reduction); checked for this report in November 2026',
  dollarsPerMillionReadRequestUnits: 0.125,
  dollarsPerMillionWriteRequestUnits: 0.625,
  source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
} as const;

const CALLS = 5;
const DEMO_PARTNER = 1;
const DEMO_PROPERTY = 2;

interface CostRow {
  readonly label: string;
  readonly calls: number;
  readonly requests: Summary;
  readonly itemsRead: Summary;
  readonly readUnits: Summary;
  readonly writeUnits: Summary;
  readonly ms: Summary;
  readonly statuses: string;
  /** Median read and write units priced on demand, per million calls. */
  readonly dollarsPerMillion: number;
}

export function dollarsPerMillion(readUnits: number, writeUnits: number): number {
  return (
    readUnits * PRICES.dollarsPerMillionReadRequestUnits +
    writeUnits * PRICES.dollarsPerMillionWriteRequestUnits
  );
}

function costRow(
  label: string,
  calls: readonly Metered<unknown>[],
  status: (value: unknown) => string,
): CostRow {
  const usage = (pick: (usage: DynamoUsage) => number) => summarize(calls.map((call) => pick(call.usage)));
  const readUnits = usage((entry) => entry.readCapacity);
  const writeUnits = usage((entry) => entry.writeCapacity);
  return {
    label,
    calls: calls.length,
    requests: usage((entry) => entry.requests),
    itemsRead: usage((entry) => entry.itemsRead),
    readUnits,
    writeUnits,
    ms: summarize(calls.map((call) => call.ms)),
    statuses: [...new Set(calls.map((call) => status(call.value)))].join(', '),
    dollarsPerMillion: dollarsPerMillion(readUnits.median, writeUnits.median),
  };
}

const effect = (value: unknown) =>
  (value as { policyDocument?: { Statement?: { Effect?: string }[] } }).policyDocument?.Statement?.[0]
    ?.Effect ?? 'none';
const statusCode = (value: unknown) => String((value as { statusCode?: number }).statusCode ?? 'none');

interface ItemSizeRow {
  readonly item: string;
  readonly readBy: string;
  readonly bytes: Summary;
  readonly readUnitsPerGet?: number;
}

async function itemSizes(keyPrefix: string, rateLimitedPrefix: string): Promise<ItemSizeRow[]> {
  const { dynamoDb, tableName } = await import('../../lambdas/data/db');
  const { meter } = await inProcess();
  async function get(key: Record<string, string>): Promise<{ bytes: number; readUnits: number }> {
    meter.take();
    const { Item } = await dynamoDb().send(new GetCommand({ TableName: tableName(), Key: key }));
    if (!Item) throw new Error(`No item ${key.PK} / ${key.SK}`);
    return { bytes: itemSizeBytes(Item), readUnits: meter.take().readCapacity };
  }
  async function query(pk: string, skPrefix: string): Promise<number[]> {
    const { Items = [] } = await dynamoDb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
      }),
    );
    return Items.map((item) => itemSizeBytes(item));
  }
  const apiKey = await get({ PK: `APIKEY#${keyPrefix}`, SK: 'APIKEY' });
  const property = await get({
    PK: `PARTNER#${DEMO_PARTNER}`,
    SK: `PROPERTY#${String(DEMO_PROPERTY).padStart(12, '0')}`,
  });
  const rateWindow = await get({ PK: `RATELIMIT#${rateLimitedPrefix}`, SK: 'RATELIMIT' });
  return [
    {
      item: 'API key',
      readBy: 'authorizer GetItem',
      bytes: summarize([apiKey.bytes]),
      readUnitsPerGet: apiKey.readUnits,
    },
    {
      item: 'property',
      readBy: 'pricing-signals GetItem (ownership)',
      bytes: summarize([property.bytes]),
      readUnitsPerGet: property.readUnits,
    },
    {
      item: `rate window after ${CALLS} requests`,
      readBy:
        'conditional UpdateItem appending one time (a read first only near a full window); at most 766 B with 120 times',
      bytes: summarize([rateWindow.bytes]),
    },
    {
      item: 'sponsorship (per host)',
      readBy: 'usage Query',
      bytes: summarize(await query(`PARTNER#${DEMO_PARTNER}`, 'HOST#')),
    },
    {
      item: 'property (per property)',
      readBy: 'properties Query',
      bytes: summarize(await query(`PARTNER#${DEMO_PARTNER}`, 'PROPERTY#')),
    },
    {
      item: 'booking aggregates (per month)',
      readBy: 'pricing-signals Query',
      bytes: summarize(await query(`PROPERTY#${DEMO_PROPERTY}`, 'BOOKED#')),
    },
    {
      item: 'night aggregates (per month)',
      readBy: 'pricing-signals Query',
      bytes: summarize(await query(`PROPERTY#${DEMO_PROPERTY}`, 'NIGHTS#')),
    },
  ];
}

export async function measureDynamoCost(): Promise<SectionResult> {
  const { forgetCachedKeys } = await inProcess();
  const { generateApiKey } = await import('../../core/domain/api-key');
  forgetCachedKeys();
  const keys = await mintKeys(DEMO_PARTNER, CALLS, [...SCOPES]);
  progress('DynamoDB cost: authorizer');
  const misses: Metered<unknown>[] = [];
  const hits: Metered<unknown>[] = [];
  for (const key of keys) {
    misses.push(await callAuthorizer(key));
    hits.push(await callAuthorizer(key));
  }
  const unknownMisses: Metered<unknown>[] = [];
  const unknownHits: Metered<unknown>[] = [];
  for (let call = 0; call < CALLS; call++) {
    const unknown = generateApiKey().key;
    unknownMisses.push(await callAuthorizer(unknown));
    unknownHits.push(await callAuthorizer(unknown));
  }
  const malformed: Metered<unknown>[] = [];
  for (let call = 0; call < CALLS; call++) malformed.push(await callAuthorizer('svc_not-a-key'));

  progress('DynamoDB cost: endpoints');
  const endpointRows: CostRow[] = [];
  let lastPrefix = '';
  const endpoints = [
    { label: 'GET /usage', route: 'usage' as const },
    { label: 'GET /properties', route: 'properties' as const },
    { label: 'GET /properties/2/pricing-signals (lookback 90, default)', route: 'pricingSignals' as const },
    {
      label: 'GET /properties/2/pricing-signals?lookback_days=365',
      route: 'pricingSignals' as const,
      query: { lookback_days: '365' },
    },
  ];
  for (const endpoint of endpoints) {
    // One key per endpoint: its first request creates the window item, the others update it.
    const keyPrefix = benchKeyPrefix();
    lastPrefix = keyPrefix;
    const calls: Metered<unknown>[] = [];
    for (let call = 0; call < CALLS; call++) {
      calls.push(
        await callApi(endpoint.route, {
          partnerId: DEMO_PARTNER,
          keyPrefix,
          propertyId: DEMO_PROPERTY,
          query: endpoint.query,
        }),
      );
    }
    endpointRows.push(costRow(endpoint.label, calls, statusCode));
  }
  const authorizerRows = [
    costRow('authorizer, first call for a key (cache miss)', misses, effect),
    costRow('authorizer, same key again (cache hit)', hits, effect),
    costRow('authorizer, unknown key: first call', unknownMisses, effect),
    costRow('authorizer, unknown key again (negative cache)', unknownHits, effect),
    costRow('authorizer, malformed key (checksum refused)', malformed, effect),
  ];
  const sizes = await itemSizes(keys[0]?.slice(0, 12) ?? '', lastPrefix);
  return report(authorizerRows, endpointRows, sizes);
}

function report(
  authorizerRows: readonly CostRow[],
  endpointRows: readonly CostRow[],
  sizes: readonly ItemSizeRow[],
): SectionResult {
  const rows = [...authorizerRows, ...endpointRows];
  const units = (summary: Summary) => formatSummary(summary, 1);
  const count = (summary: Summary) => formatSummary(summary, 0);
  const costTable: Table = {
    caption: `Per call, measured against DynamoDB Local (ReturnConsumedCapacity=TOTAL), ${CALLS} calls each`,
    columns: [
      'Call',
      'result',
      'requests',
      'items read',
      'read units',
      'write units',
      '$ per million calls',
      'in-process ms',
    ],
    rows: rows.map((row) => [
      row.label,
      row.statuses,
      count(row.requests),
      count(row.itemsRead),
      units(row.readUnits),
      units(row.writeUnits),
      `$${formatNumber(row.dollarsPerMillion, 3)}`,
      formatSummary(row.ms, 1),
    ]),
  };
  const hit = authorizerRows[1];
  const miss = authorizerRows[0];
  const requestTable: Table = {
    caption:
      'A whole API request (API Gateway calls the authorizer on every request; it caches key records for 25 s per instance)',
    columns: ['Request', 'key cached', 'key not cached'],
    rows: endpointRows.map((row) => [
      row.label,
      `$${formatNumber(row.dollarsPerMillion + (hit?.dollarsPerMillion ?? 0), 3)} per million`,
      `$${formatNumber(row.dollarsPerMillion + (miss?.dollarsPerMillion ?? 0), 3)} per million`,
    ]),
  };
  const sizeTable: Table = {
    caption:
      'Item sizes (DynamoDB item-size rules; median with min–max over the items) and read units of one eventually consistent GetItem',
    columns: ['Item', 'read by', 'size', 'read units per GetItem'],
    rows: sizes.map((row) => [
      row.item,
      row.readBy,
      `${formatSummary(row.bytes, 0)} B`,
      row.readUnitsPerGet === undefined ? '—' : formatNumber(row.readUnitsPerGet, 1),
    ]),
  };
  const budgets: BudgetCheck[] = [
    {
      name: 'authorizer reads',
      // A miss reads the key item and, unless cached, its partner's suspension and agreement
      // (docs/design/api-keys.md): copying those onto every key item would turn a suspension
      // into a write of every key.
      budget:
        "one read of the key item per cache miss, plus one of its partner's standing when no key of that partner read it in the last 25 s (median 1, at most 2); none when served from its bounded cache",
      measured: `miss: ${formatSummary(miss?.requests ?? summarize([]), 0)} request(s), ${formatSummary(miss?.readUnits ?? summarize([]), 1)} RRU; hit: ${formatSummary(hit?.requests ?? summarize([]), 0)} requests; unknown key: ${formatSummary(authorizerRows[2]?.requests ?? summarize([]), 0)} then ${formatSummary(authorizerRows[3]?.requests ?? summarize([]), 0)}; malformed: ${formatSummary(authorizerRows[4]?.requests ?? summarize([]), 0)}`,
      pass:
        (miss?.requests.max ?? 3) <= 2 &&
        (miss?.requests.median ?? 2) <= 1 &&
        hit?.requests.max === 0 &&
        (authorizerRows[2]?.requests.max ?? 2) <= 1 &&
        (authorizerRows[3]?.requests.max ?? 1) === 0 &&
        (authorizerRows[4]?.requests.max ?? 1) === 0,
    },
    ...sizes
      .filter((row) => row.readUnitsPerGet !== undefined && !row.item.startsWith('rate window'))
      .map((row) => ({
        name: `point read of the ${row.item} item`,
        budget: '1 KB-class item (≤ 1,024 B; 0.5 RRU per eventually consistent GetItem)',
        measured: `${formatBytes(row.bytes.max)}, ${formatNumber(row.readUnitsPerGet ?? Number.NaN, 1)} RRU`,
        pass: row.bytes.max <= 1_024 && (row.readUnitsPerGet ?? 1) <= 0.5,
      })),
  ];
  return {
    id: 'dynamo-cost',
    title: '4. DynamoDB cost per call',
    method: [
      "The real handlers are imported in the bench process after `useServiceTable` pointed the data modules at the local server's DynamoDB Local, and invoked directly (proxy and authorizer events as API Gateway sends them) against the seeded demo data (partner 1, property 2: five months of reservations).",
      '`bench/lib/dynamo-meter.ts` is middleware on `documentClient` (lambdas/data/db.ts): it asks every call for ReturnConsumedCapacity=TOTAL and counts requests, items returned and the capacity DynamoDB Local reports.',
      `Dollars use DynamoDB on-demand prices in ${PRICES.region}: $${PRICES.dollarsPerMillionReadRequestUnits} per million read request units and $${PRICES.dollarsPerMillionWriteRequestUnits} per million write request units (the prices since the ${PRICES.asOf.split(' ')[0]} on-demand price cut; ${PRICES.source}). The capacity is what DynamoDB Local reports, which follows DynamoDB's rules (4 KB per read unit, halved for eventually consistent reads; 1 KB per write unit); Lambda, API Gateway and data transfer are not included.`,
    ].join(' '),
    tables: [costTable, requestTable, sizeTable],
    budgets,
    notes: [
      "Every admitted API request also writes its key's rate window (one conditional UpdateItem, 1 WRU): at $0.625 per million it is most of each request's DynamoDB cost.",
    ],
    data: {
      prices: PRICES,
      calls: CALLS,
      authorizer: authorizerRows,
      endpoints: endpointRows,
      itemSizes: sizes,
    },
  };
}
