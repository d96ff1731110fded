/**
 * The pure half of the cost section (bench/sections/cost.ts): what a stage's synthesized template
 * says about the settings that decide a call's price, and the arithmetic from measured figures
 * to dollars. No I/O here, so `test/unit/call-cost.test.ts` checks every rule on small templates.
 */
import { gzipSync } from 'node:zlib';
import { GB, PRICES, perMillion } from './prices';

type Json = Record<string, unknown>;

interface Resource {
  readonly Type: string;
  readonly Properties?: Json;
}

export interface Template {
  readonly Resources: Readonly<Record<string, Resource>>;
}

export type SystemLogLevel = 'DEBUG' | 'INFO' | 'WARN';
type ApplicationLogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';

export interface LogGroupSettings {
  readonly retentionDays?: number;
  /** `STANDARD` unless the template says `INFREQUENT_ACCESS`. */
  readonly logClass: 'STANDARD' | 'INFREQUENT_ACCESS';
}

export interface FunctionSettings {
  readonly logicalId: string;
  /** The route table's name (`service-function` tag), or the logical id. */
  readonly name: string;
  readonly memoryMb: number;
  readonly architecture: string;
  readonly logFormat: 'JSON' | 'Text';
  /** Lambda's filter of the function's own lines (JSON format only; INFO when not set). */
  readonly applicationLogLevel: ApplicationLogLevel;
  /** Lambda's filter of its `platform.*` lines (JSON format only; INFO when not set). */
  readonly systemLogLevel: SystemLogLevel;
  /** POWERTOOLS_LOG_LEVEL: what the code writes before Lambda filters. */
  readonly codeLogLevel: string;
  readonly activeTracing: boolean;
  readonly logGroup: LogGroupSettings;
}

export interface StageSettings {
  readonly logicalId: string;
  readonly restApiLogicalId: string;
  readonly restApiName: string;
  readonly stageName: string;
  readonly tracing: boolean;
  readonly accessLogFormat?: string;
  readonly accessLogGroup?: LogGroupSettings;
  /** Execution logging (`MethodSettings` `LoggingLevel`): OFF, ERROR or INFO. */
  readonly executionLogLevel: string;
  readonly firewall: boolean;
}

export interface SamplingRule {
  readonly name: string;
  readonly priority: number;
  readonly reservoirPerSecond: number;
  readonly fixedRate: number;
  /** Fields the rule matches on; a value the template resolves at deploy time is `undefined`. */
  readonly match: Readonly<
    Record<
      'serviceName' | 'serviceType' | 'host' | 'httpMethod' | 'urlPath' | 'resourceArn',
      string | undefined
    >
  >;
}

/**
 * X-Ray's default rule, when no rule of the account matches: the first request each second and 5 % of
 * the others (https://docs.aws.amazon.com/xray/latest/devguide/xray-console-sampling.html).
 */
export const DEFAULT_SAMPLING_RULE: SamplingRule = {
  name: 'Default (X-Ray)',
  priority: 10_000,
  reservoirPerSecond: 1,
  fixedRate: 0.05,
  match: { serviceName: '*', serviceType: '*', host: '*', httpMethod: '*', urlPath: '*', resourceArn: '*' },
};

export interface StackSettings {
  readonly functions: readonly FunctionSettings[];
  readonly stages: readonly StageSettings[];
  /** The partner API authorizer's result cache (0: API Gateway calls it on every request). */
  readonly authorizerTtlSeconds?: number;
  readonly samplingRules: readonly SamplingRule[];
}

const properties = (resource: Resource | undefined): Json => resource?.Properties ?? {};
const refOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && typeof (value as Json).Ref === 'string'
    ? ((value as Json).Ref as string)
    : undefined;
const getAttOf = (value: unknown): string | undefined => {
  const getAtt = typeof value === 'object' && value !== null ? (value as Json)['Fn::GetAtt'] : undefined;
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function logGroupSettings(template: Template, logicalId: string | undefined): LogGroupSettings | undefined {
  const group = logicalId ? template.Resources[logicalId] : undefined;
  if (group?.Type !== 'AWS::Logs::LogGroup') return undefined;
  const props = properties(group);
  return {
    retentionDays: typeof props.RetentionInDays === 'number' ? props.RetentionInDays : undefined,
    logClass: props.LogGroupClass === 'INFREQUENT_ACCESS' ? 'INFREQUENT_ACCESS' : 'STANDARD',
  };
}

/** What a synthesized template says about each cost-relevant setting. */
export function stackSettings(template: Template): StackSettings {
  const entries = Object.entries(template.Resources);
  const ofType = (type: string) => entries.filter(([, resource]) => resource.Type === type);
  const functions = ofType('AWS::Lambda::Function').map(([logicalId, resource]): FunctionSettings => {
    const props = properties(resource);
    const logging = (props.LoggingConfig ?? {}) as Json;
    const tags = (props.Tags ?? []) as { Key: string; Value: string }[];
    const variables = ((props.Environment as Json | undefined)?.Variables ?? {}) as Json;
    const json = logging.LogFormat === 'JSON';
    return {
      logicalId,
      name: tags.find((tag) => tag.Key === 'service-function')?.Value ?? logicalId,
      memoryMb: typeof props.MemorySize === 'number' ? props.MemorySize : 128,
      architecture: ((props.Architectures as string[] | undefined) ?? ['x86_64'])[0] ?? 'x86_64',
      logFormat: json ? 'JSON' : 'Text',
      applicationLogLevel: (json
        ? (text(logging.ApplicationLogLevel) ?? 'INFO')
        : 'TRACE') as ApplicationLogLevel,
      systemLogLevel: (json ? (text(logging.SystemLogLevel) ?? 'INFO') : 'INFO') as SystemLogLevel,
      codeLogLevel: text(variables.POWERTOOLS_LOG_LEVEL) ?? 'INFO',
      activeTracing: (props.TracingConfig as Json | undefined)?.Mode === 'Active',
      logGroup: logGroupSettings(template, refOf(logging.LogGroup)) ?? { logClass: 'STANDARD' },
    };
  });
  const associated = new Set(
    ofType('AWS::WAFv2::WebACLAssociation').flatMap(([, resource]) => {
      const arn = JSON.stringify(properties(resource).ResourceArn ?? '');
      return ofType('AWS::ApiGateway::Stage')
        .map(([stageId]) => stageId)
        .filter((stageId) => arn.includes(`"${stageId}"`));
    }),
  );
  const stages = ofType('AWS::ApiGateway::Stage').map(([logicalId, resource]): StageSettings => {
    const props = properties(resource);
    const restApiLogicalId = refOf(props.RestApiId) ?? '';
    const accessLog = props.AccessLogSetting as Json | undefined;
    const methodSettings = (props.MethodSettings ?? []) as Json[];
    return {
      logicalId,
      restApiLogicalId,
      restApiName: text(properties(template.Resources[restApiLogicalId]).Name) ?? restApiLogicalId,
      stageName: text(props.StageName) ?? logicalId,
      tracing: props.TracingEnabled === true,
      accessLogFormat: text(accessLog?.Format),
      accessLogGroup: logGroupSettings(template, getAttOf(accessLog?.DestinationArn)),
      executionLogLevel: text(methodSettings.find((setting) => setting.LoggingLevel)?.LoggingLevel) ?? 'OFF',
      firewall: associated.has(logicalId),
    };
  });
  const authorizers = ofType('AWS::ApiGateway::Authorizer').map(([, resource]) => properties(resource));
  const samplingRules = ofType('AWS::XRay::SamplingRule').flatMap(([logicalId, resource]) => {
    const rule = properties(resource).SamplingRule as Json | undefined;
    if (!rule) return [];
    return [
      {
        name: text(rule.RuleName) ?? logicalId,
        priority: Number(rule.Priority ?? 10_000),
        reservoirPerSecond: Number(rule.ReservoirSize ?? 0),
        fixedRate: Number(rule.FixedRate ?? 0),
        match: {
          serviceName: text(rule.ServiceName),
          serviceType: text(rule.ServiceType),
          host: text(rule.Host),
          httpMethod: text(rule.HTTPMethod),
          urlPath: text(rule.URLPath),
          resourceArn: text(rule.ResourceARN),
        },
      },
    ];
  });
  const ttl = authorizers[0]?.AuthorizerResultTtlInSeconds;
  return {
    functions,
    stages,
    authorizerTtlSeconds: typeof ttl === 'number' ? ttl : authorizers.length > 0 ? 300 : undefined,
    samplingRules,
  };
}

/** X-Ray's wildcards: `*` any run of characters, `?` one. */
function globMatches(pattern: string, value: string): boolean {
  const expression = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${expression}$`).test(value);
}

/**
 * The rule X-Ray applies to a request API Gateway receives: the matching rule of lowest priority
 * number, else the default. A field the template leaves to deploy time (an intrinsic function)
 * is taken to match: the stack wrote the rule for its own API.
 */
export function samplingRuleFor(
  rules: readonly SamplingRule[],
  request: { serviceName: string; httpMethod: string; urlPath: string },
): SamplingRule {
  const matches = (rule: SamplingRule) => {
    const { match } = rule;
    const field = (pattern: string | undefined, value: string) =>
      pattern === undefined || globMatches(pattern, value);
    return (
      (match.serviceType === undefined || ['*', 'AWS::ApiGateway::Stage'].includes(match.serviceType)) &&
      field(match.serviceName, request.serviceName) &&
      field(match.httpMethod, request.httpMethod) &&
      field(match.urlPath, request.urlPath) &&
      // Host and resource ARN are only known once deployed: a rule narrowed by them is taken to be ours.
      true
    );
  };
  return [...rules].sort((a, b) => a.priority - b.priority).find(matches) ?? DEFAULT_SAMPLING_RULE;
}

/**
 * Share of requests a rule traces when they arrive at random (Poisson) at `requestsPerSecond`:
 * each second the reservoir takes the first R requests, the fixed rate a share of the rest. Real
 * traffic in bursts is traced less (a burst overflows the reservoir), so this is the upper end.
 */
export function tracedShare(
  rule: Pick<SamplingRule, 'reservoirPerSecond' | 'fixedRate'>,
  requestsPerSecond: number,
): number {
  const lambda = requestsPerSecond;
  if (!(lambda > 0)) return 0;
  const reservoir = Math.max(0, Math.floor(rule.reservoirPerSecond));
  // E[min(N, R)] for N ~ Poisson(λ): Σ_{k<R} k·P(k) + R·P(N ≥ R).
  let probability = Math.exp(-lambda);
  let cumulative = 0;
  let belowReservoir = 0;
  for (let k = 0; k < reservoir; k++) {
    belowReservoir += k * probability;
    cumulative += probability;
    probability *= lambda / (k + 1);
  }
  const reserved = belowReservoir + reservoir * (1 - cumulative);
  const traced = reserved + rule.fixedRate * (lambda - reserved);
  return Math.min(1, traced / lambda);
}

/** Lambda bills each invocation's duration rounded up to the next millisecond. */
export function billedMilliseconds(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs));
}

/** Dollars per million invocations of `billedMs` each at `memoryMb` on Arm. */
export function lambdaDurationPerMillion(billedMs: number, memoryMb: number): number {
  return perMillion((billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaArmGbSecond.dollars);
}

/**
 * CloudWatch Logs counts an event as its UTF-8 message plus 26 bytes (the PutLogEvents size rule,
 * https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html);
 * the bench assumes ingestion is metered the same way.
 */
const LOG_EVENT_OVERHEAD_BYTES = 26;

export function logEventBytes(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line) + LOG_EVENT_OVERHEAD_BYTES, 0);
}

/** Ingestion dollars per million calls that each write `bytes` to a log group of `logClass`. */
export function logIngestionPerMillion(bytes: number, logClass: LogGroupSettings['logClass']): number {
  const price =
    logClass === 'INFREQUENT_ACCESS' ? PRICES.logsIngestionInfrequentAccess : PRICES.logsIngestionStandard;
  return (bytes / GB) * price.dollars * 1_000_000;
}

/** Storage dollars per million calls: compressed bytes kept for the retention (in 30.4-day months). */
export function logStoragePerMillion(compressedBytes: number, retentionDays: number | undefined): number {
  const months = (retentionDays ?? 3_653) / 30.4375;
  return (compressedBytes / GB) * PRICES.logsStorage.dollars * months * 1_000_000;
}

/** How much gzip shrinks these lines (stand-in for CloudWatch's own compression of stored logs). */
export function compressionRatio(lines: readonly string[]): number {
  const joined = lines.join('\n');
  if (joined.length === 0) return 1;
  return gzipSync(joined).length / Buffer.byteLength(joined);
}

/** `$context.x.y` variables of an access-log format. */
function accessLogVariables(format: string): string[] {
  return [...new Set([...format.matchAll(/\$context\.[A-Za-z0-9_.]+/g)].map((match) => match[0]))];
}

/**
 * One access-log line as API Gateway writes it: each `$context` variable replaced by its value,
 * "-" where API Gateway has none. Longest names first, so `$context.path` never eats a part of
 * `$context.pathParameters`.
 */
export function renderAccessLogLine(
  format: string,
  values: Readonly<Record<string, string | number>>,
): string {
  const variables = accessLogVariables(format).sort((a, b) => b.length - a.length);
  let line = format;
  for (const variable of variables) line = line.replaceAll(variable, String(values[variable] ?? '-'));
  return line;
}

/** Level order of Lambda's application-log filter and of Powertools. */
const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'FATAL', 'SILENT'];

/** Whether Lambda passes a line of `lineLevel` through a filter at `filterLevel`. */
export function passesLevel(lineLevel: string, filterLevel: string): boolean {
  const line = LEVELS.indexOf(lineLevel.toUpperCase());
  const filter = LEVELS.indexOf(filterLevel.toUpperCase());
  return line < 0 || filter < 0 || line >= filter;
}

/**
 * Lambda's `platform.*` lines for one invocation at a system log level, built from the record
 * shapes and examples of AWS's Telemetry API schema reference
 * (https://docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html), which the JSON
 * log format writes to CloudWatch (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html):
 * at INFO `platform.start` and `platform.report` (the defaults: "Lambda automatically sends start and
 * report"), at DEBUG also `platform.runtimeDone`; at WARN none of them. A cold start adds
 * `platform.initStart` and `platform.initReport` and the report's `initDurationMs`. With active
 * tracing each record carries its trace context. Values have their real lengths (UUIDs, ISO times,
 * trace ids); numbers are the ones measured.
 */
export function platformLines(input: {
  systemLogLevel: SystemLogLevel;
  coldStart: boolean;
  tracing: boolean;
  functionName: string;
  memoryMb: number;
  durationMs: number;
  initDurationMs?: number;
  runtimeVersion?: string;
}): string[] {
  if (input.systemLogLevel === 'WARN') return [];
  const time = '2026-11-26T06:47:06.123Z';
  const requestId = '6d68ca91-49c9-448d-89b8-7ca3e6dc66aa';
  const tracing = input.tracing
    ? {
        tracing: {
          spanId: '54565fb41ac79632',
          type: 'X-Amzn-Trace-Id',
          value: 'Root=1-62e900b2-710d76f009d6e7785905449a;Parent=0efbd19962d95b05;Sampled=1',
        },
      }
    : {};
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  const lines: unknown[] = [];
  if (input.coldStart) {
    lines.push({
      time,
      type: 'platform.initStart',
      record: {
        initializationType: 'on-demand',
        phase: 'init',
        runtimeVersion: input.runtimeVersion ?? 'nodejs:24.v12',
        runtimeVersionArn:
          'arn:aws:lambda:us-east-1::runtime:775dab0d220a0b97f3ec34fe1692d7a07b5d13049153b00f03204c9543bd69e4',
        functionName: input.functionName,
        functionVersion: '$LATEST',
      },
    });
    if (input.systemLogLevel === 'DEBUG')
      lines.push({
        time,
        type: 'platform.initRuntimeDone',
        record: { initializationType: 'on-demand', phase: 'init', status: 'success' },
      });
    lines.push({
      time,
      type: 'platform.initReport',
      record: {
        initializationType: 'on-demand',
        phase: 'init',
        status: 'success',
        metrics: { durationMs: round(input.initDurationMs ?? 0) },
      },
    });
  }
  lines.push({ time, type: 'platform.start', record: { requestId, version: '$LATEST', ...tracing } });
  if (input.systemLogLevel === 'DEBUG')
    lines.push({
      time,
      type: 'platform.runtimeDone',
      record: {
        requestId,
        status: 'success',
        ...tracing,
        metrics: { durationMs: round(input.durationMs), producedBytes: 512 },
      },
    });
  lines.push({
    time,
    type: 'platform.report',
    record: {
      requestId,
      metrics: {
        durationMs: round(input.durationMs),
        billedDurationMs: billedMilliseconds(
          input.durationMs + (input.coldStart ? (input.initDurationMs ?? 0) : 0),
        ),
        memorySizeMB: input.memoryMb,
        maxMemoryUsedMB: 98,
        ...(input.coldStart ? { initDurationMs: round(input.initDurationMs ?? 0) } : {}),
      },
      ...tracing,
      status: 'success',
    },
  });
  return lines.map((line) => JSON.stringify(line));
}

/** Calls a month at `requestsPerSecond`, and back. */
const SECONDS_PER_MONTH = 30.4375 * 24 * 3600;
export const perSecond = (callsPerMonth: number) => callsPerMonth / SECONDS_PER_MONTH;

/** Copies of a backup rule kept at once: its retention over its schedule's period. */
export function backupCopiesKept(
  scheduleExpression: string | undefined,
  deleteAfterDays: number | undefined,
): number {
  if (deleteAfterDays === undefined) return 1;
  const rate = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(scheduleExpression ?? '');
  let periodDays = 1;
  if (rate) {
    const amount = Number(rate[1]);
    periodDays = rate[2]?.startsWith('minute')
      ? amount / 1440
      : rate[2]?.startsWith('hour')
        ? amount / 24
        : amount;
  } else {
    const cron =
      /^cron\((.+)\)$/
        .exec(scheduleExpression ?? '')?.[1]
        ?.trim()
        .split(/\s+/) ?? [];
    const [, , dayOfMonth = '*', , dayOfWeek = '?'] = cron;
    if (/^\d+$/.test(dayOfMonth)) periodDays = 30.4375;
    else if (dayOfWeek !== '*' && dayOfWeek !== '?') periodDays = 7 / dayOfWeek.split(',').length;
  }
  return Math.max(1, Math.ceil(deleteAfterDays / periodDays));
}

/** A resource billed by the month, whatever the traffic. */
export interface MonthlyItem {
  readonly resource: string;
  readonly quantity: string;
  readonly dollars: number;
  readonly basis: string;
}

/**
 * What a stage costs a month before its first call, from its template: web ACLs and their rules,
 * alarm metrics, dashboards, metrics published by metric filters, secrets, KMS keys, and what scales
 * with the data rather than the calls (table storage, point-in-time recovery, AWS Backup copies) at
 * `tableGb`. Logs are not here: they are written per call.
 */
/**
 * How often a pipe reads each shard of a DynamoDB stream, records or not ("at a base rate of four
 * times per second", the EventBridge Pipes page on DynamoDB streams).
 */
const STREAM_POLLS_PER_SECOND = 4;

/** The outbound pipe's reads of the table's stream: a fixed cost per shard, whatever the traffic. */
function streamPipeItems(pipes: readonly Json[]): MonthlyItem[] {
  const fromStreams = pipes.filter(
    (pipe) => (pipe.SourceParameters as Json | undefined)?.DynamoDBStreamParameters !== undefined,
  );
  if (fromStreams.length === 0) return [];
  return [
    {
      resource: 'DynamoDB stream reads of the outbound pipe (per stream shard)',
      quantity: `${fromStreams.length} pipe, ${STREAM_POLLS_PER_SECOND} reads a second per shard`,
      dollars:
        (fromStreams.length *
          STREAM_POLLS_PER_SECOND *
          SECONDS_PER_MONTH *
          PRICES.dynamoDbStreamReads.dollars) /
        100_000,
      basis: `$${PRICES.dynamoDbStreamReads.dollars} per 100,000 reads, whatever the traffic (each returns up to 1,000 records, so API calls add reads only above about 4,000 writes a second per shard); the events the pipe sends: $${PRICES.pipesRequests.dollars} per million`,
    },
  ];
}

/** The composite alarms (the objectives' burn alarms) and the canary's runs of a template, by month. */
function watchItems(ofType: (type: string) => Json[]): MonthlyItem[] {
  const items: MonthlyItem[] = [];
  const composites = ofType('AWS::CloudWatch::CompositeAlarm');
  if (composites.length > 0)
    items.push({
      resource: 'CloudWatch composite alarms',
      quantity: `${composites.length} (the objectives' burn alarms)`,
      dollars: composites.length * PRICES.compositeAlarm.dollars,
      basis: `$${PRICES.compositeAlarm.dollars} each`,
    });
  const canaries = ofType('AWS::Synthetics::Canary');
  if (canaries.length > 0) {
    // `rate(<n> minutes)` (or `rate(1 minute)`): runs in a 30-day month.
    const runs = canaries.reduce((sum, canary) => {
      const expression = String((canary.Schedule as Json | undefined)?.Expression ?? '');
      const minutes = Number(/^rate\((\d+) minutes?\)$/.exec(expression)?.[1] ?? Number.NaN);
      if (!Number.isFinite(minutes))
        throw new Error(`A canary schedule the cost model cannot read: ${expression}`);
      return sum + (30 * 24 * 60) / minutes;
    }, 0);
    items.push({
      resource: 'Synthetics canary runs',
      quantity: `${runs} runs`,
      dollars: runs * PRICES.canaryRun.dollars,
      basis: `$${PRICES.canaryRun.dollars} per run (its Lambda time, artifacts and logs: cents)`,
    });
  }
  return items;
}

export function monthlyItems(template: Template, tableGb: number): MonthlyItem[] {
  const entries = Object.entries(template.Resources);
  const ofType = (type: string) =>
    entries.filter(([, resource]) => resource.Type === type).map(([, r]) => properties(r));
  const items: MonthlyItem[] = [];
  const webAcls = ofType('AWS::WAFv2::WebACL');
  if (webAcls.length > 0) {
    const rules = webAcls.reduce((sum, acl) => sum + ((acl.Rules as unknown[] | undefined)?.length ?? 0), 0);
    items.push({
      resource: 'WAF web ACLs and their rules',
      quantity: `${webAcls.length} ACLs, ${rules} rules`,
      dollars: webAcls.length * PRICES.wafWebAcl.dollars + rules * PRICES.wafRule.dollars,
      basis: `$${PRICES.wafWebAcl.dollars} per ACL, $${PRICES.wafRule.dollars} per rule`,
    });
  }
  const alarms = ofType('AWS::CloudWatch::Alarm');
  if (alarms.length > 0) {
    const metrics = alarms.reduce((sum, alarm) => {
      const queries = alarm.Metrics as Json[] | undefined;
      return sum + (queries ? queries.filter((query) => query.MetricStat).length : 1);
    }, 0);
    items.push({
      resource: 'CloudWatch alarms',
      quantity: `${alarms.length} alarms reading ${metrics} metrics`,
      dollars: metrics * PRICES.alarmMetric.dollars,
      basis: `$${PRICES.alarmMetric.dollars} per alarm metric`,
    });
  }
  items.push(...watchItems(ofType));
  const insightRules = ofType('AWS::CloudWatch::InsightRule');
  if (insightRules.length > 0)
    items.push({
      resource: 'Contributor Insights rules',
      quantity: String(insightRules.length),
      dollars: insightRules.length * PRICES.contributorInsightsRule.dollars,
      basis: `$${PRICES.contributorInsightsRule.dollars} per rule (the partners answered 429)`,
    });
  const dashboards = ofType('AWS::CloudWatch::Dashboard');
  if (dashboards.length > 0)
    items.push({
      resource: 'CloudWatch dashboards',
      quantity: String(dashboards.length),
      dollars: dashboards.length * PRICES.dashboard.dollars,
      basis: `$${PRICES.dashboard.dollars} each (Logs Insights widgets also bill per GB scanned each time they load)`,
    });
  const filterMetrics = new Set(
    ofType('AWS::Logs::MetricFilter').flatMap((filter) =>
      ((filter.MetricTransformations ?? []) as Json[]).map(
        (t) => `${String(t.MetricNamespace)}/${String(t.MetricName)}`,
      ),
    ),
  );
  if (filterMetrics.size > 0)
    items.push({
      resource: 'metrics of the access-log metric filters',
      quantity: String(filterMetrics.size),
      dollars: filterMetrics.size * PRICES.customMetric.dollars,
      basis: `$${PRICES.customMetric.dollars} per custom metric`,
    });
  const secrets = ofType('AWS::SecretsManager::Secret');
  if (secrets.length > 0)
    items.push({
      resource: 'Secrets Manager secrets',
      quantity: String(secrets.length),
      dollars: secrets.length * PRICES.secret.dollars,
      basis: `$${PRICES.secret.dollars} each (cached by the functions: a read per cold start)`,
    });
  const keys = ofType('AWS::KMS::Key');
  items.push({
    resource: 'KMS customer managed keys',
    quantity: String(keys.length),
    dollars: keys.length * PRICES.kmsKey.dollars,
    basis: `$${PRICES.kmsKey.dollars} each; the table, queues and secrets use AWS owned or managed keys`,
  });
  const tables = [...ofType('AWS::DynamoDB::GlobalTable'), ...ofType('AWS::DynamoDB::Table')];
  if (tables.length > 0) {
    items.push({
      resource: `DynamoDB storage (at ${tableGb} GB)`,
      quantity: `${tables.length} table`,
      dollars: tables.length * tableGb * PRICES.dynamoDbStorage.dollars,
      basis: `$${PRICES.dynamoDbStorage.dollars} per GB-month`,
    });
    const pitr = tables.filter((table) =>
      JSON.stringify(table).includes('"PointInTimeRecoveryEnabled":true'),
    ).length;
    items.push({
      resource: `point-in-time recovery (at ${tableGb} GB)`,
      quantity: `${pitr} of ${tables.length} tables`,
      dollars: pitr * tableGb * PRICES.dynamoDbPitr.dollars,
      basis: `$${PRICES.dynamoDbPitr.dollars} per GB-month of table`,
    });
  }
  items.push(...streamPipeItems(ofType('AWS::Pipes::Pipe')));
  const plans = ofType('AWS::Backup::BackupPlan');
  if (plans.length > 0) {
    const copies = plans.reduce((sum, plan) => {
      const rules = ((plan.BackupPlan as Json | undefined)?.BackupPlanRule ?? []) as Json[];
      return (
        sum +
        rules.reduce((ruleSum, rule) => {
          const lifecycle = rule.Lifecycle as Json | undefined;
          const deleteAfter =
            typeof lifecycle?.DeleteAfterDays === 'number' ? lifecycle.DeleteAfterDays : undefined;
          return ruleSum + backupCopiesKept(text(rule.ScheduleExpression), deleteAfter);
        }, 0)
      );
    }, 0);
    items.push({
      resource: `AWS Backup copies (at ${tableGb} GB each)`,
      quantity: `${copies} kept at once`,
      dollars: copies * tableGb * PRICES.backupDynamoDbWarm.dollars,
      basis: `$${PRICES.backupDynamoDbWarm.dollars} per GB-month of each copy (warm storage)`,
    });
  }
  return items;
}

/** `$12.34`, `$0.123`, `$0.0012`: two decimals from a dollar up, more below. */
export function dollars(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const magnitude = Math.abs(value);
  const digits = magnitude >= 1 || magnitude === 0 ? 2 : magnitude >= 0.01 ? 3 : 4;
  return `${value < 0 ? '−' : ''}$${magnitude.toFixed(digits)}`;
}
