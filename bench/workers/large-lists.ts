/**
 * Worker of section 5 ("what happens beyond"): the real GET /properties handler, in its own
 * process with the DocumentClient mocked, answering for partners far larger than the data set
 * written to DynamoDB Local (the Query is answered page by page, 1 MB-sized pages, items
 * shaped like the stored ones). Prints one JSON document (LargeListsOutput) on stdout.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  LAMBDA_RESPONSE_LIMIT_BYTES,
  payloadBytes as lambdaPayloadBytes,
} from '../../lambdas/api/response-encoding';
import { ADMITTED_RATE_WINDOW_WRITE, lambdaContext, proxyEvent } from '../lib/events';
import type { LargeListCase, LargeListsOutput } from '../sections/scaling';

const SIZES = (process.env.BENCH_LARGE_LISTS ?? '150000,800000,1500000').split(',').map(Number);
const PAGE_ITEMS = 5_000;

const dynamo = mockClient(DynamoDBDocumentClient);
const { handler } = await import('../../lambdas/api/properties');

let size = 0;
dynamo.on(UpdateCommand).resolves(ADMITTED_RATE_WINDOW_WRITE);
dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
  const start = Number(input.ExclusiveStartKey?.n ?? 0);
  const end = Math.min(size, start + PAGE_ITEMS);
  const Items = [];
  for (let index = start; index < end; index++)
    Items.push({ id: 100_000_000 + index, name: `Holiday apartment number ${index + 1}` });
  return { Items, ...(end < size ? { LastEvaluatedKey: { n: end } } : {}) };
});

const cases: LargeListCase[] = [];
let prefix = 0;
for (const properties of SIZES) {
  size = properties;
  for (const gzip of [true, false]) {
    const started = performance.now();
    const result = await handler(
      proxyEvent({
        path: '/partner-api/v1/properties',
        resource: '/partner-api/v1/properties',
        partnerId: 1,
        keyPrefix: `svc_L${String(prefix++).padStart(7, '0')}`,
        headers: gzip
          ? { Accept: 'application/json', 'Accept-Encoding': 'gzip' }
          : { Accept: 'application/json' },
      }),
      lambdaContext,
    );
    const ms = performance.now() - started;
    const payloadBytes = lambdaPayloadBytes(result);
    const problem =
      result.statusCode >= 400 ? (JSON.parse(result.body) as { type?: string; detail?: string }) : undefined;
    const encoding = Object.entries(result.headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'content-encoding',
    )?.[1];
    cases.push({
      properties,
      acceptsGzip: gzip,
      statusCode: result.statusCode,
      contentEncoding: encoding === undefined ? undefined : String(encoding),
      problemType: problem?.type?.replace(/^.*\/problems\//, ''),
      problemDetail: problem?.detail,
      payloadBytes,
      withinLambdaLimit: payloadBytes <= LAMBDA_RESPONSE_LIMIT_BYTES,
      ms,
    });
    process.stderr.write(
      `[bench worker] large lists: ${properties} properties, gzip ${gzip}: ${result.statusCode}\n`,
    );
  }
}
const output: LargeListsOutput = { cases };
process.stdout.write(`${JSON.stringify(output)}\n`);
