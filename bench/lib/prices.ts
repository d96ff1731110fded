/**
 * AWS list prices, US East (N. Virginia), that the cost section (bench/sections/cost.ts) multiplies
 * measured figures by: one file, each price with the page it comes from and the day it was read.
 * No free tier is counted (most of them end after 12 months or are shared by the whole account),
 * and the first volume tier is used throughout (a stage of this service stays far below the next).
 *
 * `confirmed` says whether the figure was read on the AWS page named (or an AWS page quoting it)
 * on `read`; where it was not, the note says where it comes from. Check the pages again before
 * budgeting: AWS changes prices, usually downwards.
 */

export interface Price {
  /** US dollars per `unit`. */
  readonly dollars: number;
  readonly unit: string;
  readonly source: string;
  /** The day the figure was read (UTC). */
  readonly read: string;
  readonly confirmed: boolean;
  readonly note?: string;
}

const READ = '2026-11-26';
const price = (
  dollars: number,
  unit: string,
  source: string,
  extra: { confirmed?: boolean; note?: string } = {},
): Price => ({ dollars, unit, source, read: READ, confirmed: extra.confirmed ?? true, note: extra.note });

export const REGION = 'us-east-1';

export const PRICES = {
  apiGatewayRestRequests: price(
    3.5,
    'million REST API calls received (first 333 million a month)',
    'https://aws.amazon.com/api-gateway/pricing/',
    { note: 'the same tiers are listed in AWS’s whitepaper on API Gateway private APIs (cost optimization)' },
  ),
  apiGatewayHttpRequests: price(
    1.0,
    'million HTTP API calls (first 300 million a month, metered in 512 KB increments)',
    'https://aws.amazon.com/api-gateway/pricing/',
  ),
  lambdaRequests: price(0.2, 'million requests', 'https://aws.amazon.com/lambda/pricing/'),
  lambdaArmGbSecond: price(
    0.0000133334,
    'GB-second on Arm (first 7.5 billion GB-seconds a month); billed duration rounded up to 1 ms',
    'https://aws.amazon.com/lambda/pricing/',
    {
      note: 'since 2025-08-01 the INIT phase of on-demand ZIP functions on managed runtimes is billed at the same rate (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/)',
    },
  ),
  dynamoDbReadRequestUnits: price(
    0.125,
    'million on-demand read request units',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    { note: 'after the on-demand price cut of 2024-11-01' },
  ),
  dynamoDbWriteRequestUnits: price(
    0.625,
    'million on-demand write request units (a failed conditional write is billed too)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    { note: 'after the on-demand price cut of 2024-11-01' },
  ),
  dynamoDbStorage: price(
    0.25,
    'GB-month of table storage (Standard class)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    {
      confirmed: false,
      note: 'long-standing list price, not re-read on 2026-11-26',
    },
  ),
  dynamoDbPitr: price(
    0.2,
    'GB-month of table size with point-in-time recovery on',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    { note: 'also quoted on AWS’s page on DynamoDB backup billing' },
  ),
  backupDynamoDbWarm: price(
    0.1,
    'GB-month of each DynamoDB backup kept in warm storage (each backup is a full copy)',
    'https://aws.amazon.com/backup/pricing/',
    { confirmed: false, note: 'the same as a DynamoDB on-demand backup; not re-read on 2026-11-26' },
  ),
  logsIngestionStandard: price(
    0.5,
    'GB ingested, Standard log class (Lambda logs: the first tier of their volume pricing since 2025-05-01)',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  logsIngestionInfrequentAccess: price(
    0.25,
    'GB ingested, Infrequent Access log class (no metric filters, no subscription filters)',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  logsStorage: price(0.03, 'GB-month stored (compressed)', 'https://aws.amazon.com/cloudwatch/pricing/'),
  logsInsightsScanned: price(
    0.005,
    'GB scanned by Logs Insights',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  alarmMetric: price(
    0.1,
    'alarm metric-month (standard resolution; a metric-math alarm counts each metric it reads)',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  dashboard: price(3.0, 'dashboard-month', 'https://aws.amazon.com/cloudwatch/pricing/'),
  compositeAlarm: price(0.5, 'composite alarm-month', 'https://aws.amazon.com/cloudwatch/pricing/'),
  canaryRun: price(0.0012, 'Synthetics canary run', 'https://aws.amazon.com/cloudwatch/pricing/'),
  contributorInsightsRule: price(
    0.5,
    'Contributor Insights rule-month (plus $0.02 per million log events matched: only 429 lines here)',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  customMetric: price(
    0.3,
    'custom metric-month (a metric filter publishes one)',
    'https://aws.amazon.com/cloudwatch/pricing/',
  ),
  xrayTracesRecorded: price(5.0, 'million traces recorded', 'https://aws.amazon.com/xray/pricing/'),
  xrayTracesRetrieved: price(
    0.5,
    'million traces retrieved or scanned',
    'https://aws.amazon.com/xray/pricing/',
  ),
  wafWebAcl: price(5.0, 'web ACL-month', 'https://aws.amazon.com/waf/pricing/'),
  wafRule: price(1.0, 'rule or rule group-month', 'https://aws.amazon.com/waf/pricing/'),
  wafRequests: price(0.6, 'million requests inspected', 'https://aws.amazon.com/waf/pricing/'),
  secret: price(0.4, 'secret-month', 'https://aws.amazon.com/secrets-manager/pricing/'),
  secretApiCalls: price(0.05, '10,000 API calls', 'https://aws.amazon.com/secrets-manager/pricing/'),
  kmsKey: price(1.0, 'customer managed key-month', 'https://aws.amazon.com/kms/pricing/', {
    confirmed: false,
    note: 'long-standing list price, not re-read on 2026-11-26; AWS managed and AWS owned keys have no monthly fee',
  }),
  snsRequests: price(0.5, 'million publishes', 'https://aws.amazon.com/sns/pricing/', {
    confirmed: false,
    note: 'not re-read on 2026-11-26; alarm notifications are a few a month',
  }),
  eventBridgeCustomEvents: price(
    1.0,
    'million custom events published',
    'https://aws.amazon.com/eventbridge/pricing/',
    {
      confirmed: false,
      note: 'not re-read on 2026-11-26; per platform event, not per API call',
    },
  ),
  dynamoDbStreamReads: price(
    0.02,
    '100,000 DynamoDB Streams read requests (GetRecords; a read returns up to 1,000 records or 1 MB)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    {
      confirmed: false,
      note: 'not read on the pricing page here; AWS’s guide says reads by non-Lambda readers are billed, the first 2.5 million a month free (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CostOptimization_StreamsUsage.html), not counted',
    },
  ),
  pipesRequests: price(
    0.4,
    'million EventBridge Pipes requests (after filtering; 64 KB chunks)',
    'https://aws.amazon.com/eventbridge/pricing/',
    {
      confirmed: false,
      note: 'not read on the pricing page here; "You are only charged for those events that match the filter" (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes.html); per event sent, not per API call',
    },
  ),
  sqsRequests: price(0.4, 'million requests (standard queue)', 'https://aws.amazon.com/sqs/pricing/', {
    confirmed: false,
    note: 'not re-read on 2026-11-26; per platform event, not per API call',
  }),
  dataTransferOut: price(
    0.09,
    'GB sent to the internet (first 10 TB a month; API Gateway bills it at EC2 rates)',
    'https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer',
    { confirmed: false, note: 'long-standing list price, not re-read on 2026-11-26' },
  ),
} as const satisfies Record<string, Price>;

/** Dollars per million of something priced per unit (`dollars` per single unit). */
export const perMillion = (dollarsPerUnit: number) => dollarsPerUnit * 1_000_000;

/** Bytes in the GB of AWS prices (decimal). */
export const GB = 1_000_000_000;
