import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { SCOPES } from '../../core/domain/scopes';
import { applyReservations } from '../lib/apply-events';
import { functionBundles, REPOSITORY_ROOT } from '../lib/cdk-assets';
import { childEnvironment, runProcess } from '../lib/child';
import type {
  FunctionSettings,
  MonthlyItem,
  SamplingRule,
  StackSettings,
  StageSettings,
  Template,
} from '../lib/cost-model';
import {
  billedMilliseconds,
  compressionRatio,
  dollars,
  lambdaDurationPerMillion,
  logEventBytes,
  logIngestionPerMillion,
  logStoragePerMillion,
  monthlyItems,
  passesLevel,
  perSecond,
  platformLines,
  renderAccessLogLine,
  samplingRuleFor,
  stackSettings,
  tracedShare,
} from '../lib/cost-model';
import { benchReservations, createBenchPartner, sponsoredProperty } from '../lib/datasets';
import type { DynamoUsage } from '../lib/dynamo-meter';
import { API_TARGETS, authorizerEvent, proxyEvent } from '../lib/events';
import { inProcess } from '../lib/in-process';
import { PRICES, REGION } from '../lib/prices';
import { progress } from '../lib/progress';
import type { BudgetCheck, SectionResult, Table } from '../lib/report';
import { mintKeys } from '../lib/service-process';
import { formatNumber, median } from '../lib/stats';

/** Calls measured per route and stage, after two that warm the handler's modules and clients. */
const CALLS = Number(process.env.BENCH_COST_CALLS ?? 20);
const WARM_UP = 2;
/**
 * The partner every priced call reads, made for this section so that what earlier sections wrote
 * to the demo partner (activations, keys) does not change the price: a partner with a few
 * sponsored properties on two products, one of them with a booking history.
 */
const DATASET = { properties: 5, products: ['assistant', 'upsells'], reservations: 200 } as const;
const BUDGET_DOLLARS_PER_MILLION = 7;
/** The volume the budget is judged at: the least for which a price per million calls means much. */
const REFERENCE_CALLS_PER_MONTH = 1_000_000;
const VOLUMES = [1_000_000, 10_000_000, 100_000_000] as const;
/**
 * Share of invocations that start an execution environment. AWS: "INITs (cold starts) typically
 * occur in under 1% of invocations" in production workloads
 * (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/). At a
 * million calls a month each route's function gets a call every few seconds, so its environments
 * stay warm; a quieter stage has a larger share (the 10 % row shows what that costs).
 */
const COLD_START_SHARE = 0.01;
const TABLE_GB = 1;
const STAGES = ['sandbox', 'production'] as const;
type Stage = (typeof STAGES)[number];
/** What a partner's HTTP client sends: a common one (it is only the access log's `userAgent`). */
const USER_AGENT = 'python-requests/2.32.3';
/** A documentation address (RFC 5737) of IPv4's length; an IPv6 client writes up to 39 characters. */
const CLIENT_IP = '203.0.113.10';

type RouteId = (typeof API_TARGETS)[number]['id'];

interface CallRecord {
  readonly authorizerMs: number;
  readonly handlerMs: number;
  readonly authorizer: DynamoUsage;
  readonly handler: DynamoUsage;
  readonly status: number;
  readonly responseBytes: number;
  readonly bodyBytes: number;
  /** Lines each function wrote to stdout (its log group), as the code wrote them. */
  readonly authorizerLines: string[];
  readonly handlerLines: string[];
  readonly accessLogLine?: string;
}

interface InitFigures {
  /** INIT of each function by logical id: the runtime's start and the bundle's import. */
  readonly initMs: Readonly<Record<string, number>>;
  /** How the figures were made, for the method text. */
  readonly source: string;
}

/** Writes to stdout while `work` runs, split in lines, kept from the terminal. */
async function capturingStdout<T>(work: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const original = process.stdout.write.bind(process.stdout);
  let buffer = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    buffer += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  try {
    const value = await work();
    return { value, lines: buffer.split('\n').filter((line) => line.trim().length > 0) };
  } finally {
    process.stdout.write = original;
  }
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const traceHeader = () => `Root=1-${hex(4)}-${hex(12)};Parent=${hex(8)};Sampled=1`;

/** A Lambda context with the lengths AWS gives its values (names from the stack, UUIDs). */
function lambdaContextFor(fn: FunctionSettings | undefined, stage: Stage): Context {
  const functionName = `PartnerApi-${stage}-${(fn?.logicalId ?? 'Function').slice(0, 30)}-${hex(6).toUpperCase()}`;
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: String(fn?.memoryMb ?? 512),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/11/26/[$LATEST]${hex(16)}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 15_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Header bytes of a response as HTTP/1.1 writes them (`Name: value\r\n`). */
function headerBytes(headers: Record<string, unknown> | undefined): number {
  return Object.entries(headers ?? {}).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${String(value)}\r\n`),
    0,
  );
}

let dataset: Promise<{ partnerId: number; propertyId: number }> | undefined;

/** The section's partner and its property with the booking history, made once per run. */
function pricedPartner(): Promise<{ partnerId: number; propertyId: number }> {
  dataset ??= (async () => {
    const nowMs = Date.now();
    const partnerId = await createBenchPartner('cost', nowMs);
    const propertyIds: number[] = [];
    for (let index = 0; index < DATASET.properties; index++) {
      const { propertyId } = await sponsoredProperty(partnerId, `cost${index}`, nowMs, [...DATASET.products]);
      propertyIds.push(propertyId);
    }
    const propertyId = propertyIds[0] ?? 0;
    await applyReservations(propertyId, benchReservations(propertyId, 0, DATASET.reservations, nowMs), nowMs);
    return { partnerId, propertyId };
  })();
  return dataset;
}

/**
 * Calls each route through the real authorizer and handler in this process (DynamoDB Local,
 * metered), with the functions' logger at the stage's level and stdout captured.
 */
async function measureCalls(stage: Stage, settings: StackSettings): Promise<Map<RouteId, CallRecord[]>> {
  const handlers = await inProcess();
  const { logger } = await import('../../lambdas/common/logger');
  type Level = Parameters<typeof logger.setLogLevel>[0];
  const byName = new Map(settings.functions.map((fn) => [fn.name, fn]));
  const authorizerFn = byName.get('authorizer');
  const records = new Map<RouteId, CallRecord[]>();
  const { partnerId, propertyId } = await pricedPartner();
  const keys = await mintKeys(partnerId, API_TARGETS.length, [...SCOPES]);
  for (const [index, target] of API_TARGETS.entries()) {
    const key = keys[index] ?? '';
    const keyPrefix = key.slice(0, 12);
    const routeFn = byName.get(target.id);
    const calls: CallRecord[] = [];
    for (let call = 0; call < WARM_UP + CALLS; call++) {
      const requestId = randomUUID();
      process.env._X_AMZN_TRACE_ID = traceHeader();
      // API Gateway calls the authorizer on every request (no result cache); each call here reads
      // the key item as a fresh authorizer instance does (its own 25 s cache forgotten).
      handlers.forgetCachedKeys();
      handlers.meter.take();
      logger.setLogLevel((authorizerFn?.codeLogLevel ?? 'INFO') as Level);
      const authorizerEventWithId = authorizerEvent({ Authorization: `Bearer ${key}` });
      (authorizerEventWithId.requestContext as { requestId?: string }).requestId = requestId;
      const authorized = await capturingStdout(async () => {
        const started = performance.now();
        const result = await handlers.authorizer(authorizerEventWithId);
        return { result, ms: performance.now() - started };
      });
      const authorizerUsage = handlers.meter.take();
      logger.setLogLevel((routeFn?.codeLogLevel ?? 'INFO') as Level);
      const event = proxyEvent({
        path: `/partner-api/v1${target.path}`,
        resource: `/partner-api/v1${target.resource}`,
        partnerId,
        keyPrefix,
        pathParameters: target.id === 'pricingSignals' ? { propertyId: String(propertyId) } : undefined,
        headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip, deflate', 'User-Agent': USER_AGENT },
      });
      (event.requestContext as { requestId?: string }).requestId = requestId;
      const handler = handlers[target.id];
      const answered = await capturingStdout(async () => {
        const started = performance.now();
        const result = await handler(event, lambdaContextFor(routeFn, stage));
        return { result, ms: performance.now() - started };
      });
      const handlerUsage = handlers.meter.take();
      logger.setLogLevel('SILENT');
      const { result } = answered.value;
      const bodyBytes = result.isBase64Encoded
        ? Buffer.from(result.body, 'base64').length
        : Buffer.byteLength(result.body);
      if (
        authorized.value.result.policyDocument.Statement[0]?.Effect !== 'Allow' ||
        result.statusCode !== 200
      )
        throw new Error(`${target.label}: expected Allow and 200, got ${result.statusCode}`);
      if (call < WARM_UP) continue;
      calls.push({
        authorizerMs: authorized.value.ms,
        handlerMs: answered.value.ms,
        authorizer: authorizerUsage,
        handler: handlerUsage,
        status: result.statusCode,
        bodyBytes,
        responseBytes: bodyBytes + headerBytes(result.headers),
        authorizerLines: authorized.lines,
        handlerLines: answered.lines,
        accessLogLine: accessLogLine(settings, stage, {
          requestId,
          partnerId,
          target,
          keyPrefix,
          status: result.statusCode,
          bodyBytes,
          authorizerMs: authorized.value.ms,
          handlerMs: answered.value.ms,
        }),
      });
    }
    records.set(target.id, calls);
  }
  delete process.env._X_AMZN_TRACE_ID;
  return records;
}

/** The partner API's stage (its access log format names the authorizer's partner id). */
function partnerApiStage(settings: StackSettings): StageSettings | undefined {
  return settings.stages.find((stage) => stage.accessLogFormat?.includes('authorizer.partnerId'));
}

function accessLogLine(
  settings: StackSettings,
  stage: Stage,
  call: {
    requestId: string;
    partnerId: number;
    target: (typeof API_TARGETS)[number];
    keyPrefix: string;
    status: number;
    bodyBytes: number;
    authorizerMs: number;
    handlerMs: number;
  },
): string | undefined {
  const format = partnerApiStage(settings)?.accessLogFormat;
  if (!format) return undefined;
  const overheadMs = 12;
  return renderAccessLogLine(format, {
    '$context.requestId': call.requestId,
    '$context.requestTime': '26/Nov/2026:06:47:06 +0000',
    '$context.identity.sourceIp': CLIENT_IP,
    '$context.identity.userAgent': USER_AGENT,
    '$context.httpMethod': 'GET',
    '$context.resourcePath': `/partner-api/v1${call.target.resource}`,
    '$context.path': `/${stage}/partner-api/v1${call.target.path}`,
    '$context.protocol': 'HTTP/1.1',
    '$context.responseLength': call.bodyBytes,
    '$context.responseLatency': Math.round(call.authorizerMs + call.handlerMs + overheadMs),
    '$context.integrationStatus': call.status,
    '$context.integrationLatency': Math.round(call.handlerMs),
    '$context.authorizer.status': 200,
    '$context.authorizer.latency': Math.round(call.authorizerMs),
    '$context.authorizer.partnerId': call.partnerId,
    '$context.authorizer.keyPrefix': call.keyPrefix,
    '$context.xrayTraceId': `1-${hex(4)}-${hex(12)}`,
    '$context.status': call.status,
  });
}

/**
 * INIT of each function. Section 2's modelled INIT when it ran in this run (Node's own start to the
 * handler loaded, source maps on, less the main thread's waits for a CPU); otherwise a fresh Node
 * process's start plus the median of 5 imports of the bundle.
 */
async function measureInit(
  bundlesSection: SectionResult | undefined,
  wanted: readonly string[],
): Promise<InitFigures> {
  const fromSection = modelledInits(bundlesSection);
  if (fromSection && wanted.every((id) => fromSection[id] !== undefined))
    return {
      initMs: fromSection,
      source:
        "section 2's modelled INIT of each bundle in this run (Node's own start to the handler loaded, source maps on, less the main thread's waits for a CPU)",
    };
  const starts: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    await runProcess(process.execPath, ['-e', '0'], { env: childEnvironment() });
    starts.push(performance.now() - started);
  }
  const nodeStartMs = median(starts);
  const initMs: Record<string, number> = {};
  const bundles = (await functionBundles()).filter((bundle) => wanted.includes(bundle.logicalId));
  const probe =
    'const s = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - s));';
  for (const bundle of bundles) {
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const { stdout, code } = await runProcess(
        process.execPath,
        ['--enable-source-maps', '--input-type=module', '-e', probe, `file://${bundle.handlerFile}`],
        {
          env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...bundle.environment },
          cwd: bundle.directory,
        },
      );
      if (code !== 0) throw new Error(`Importing ${bundle.logicalId} exited with ${code}`);
      runs.push(Number(stdout));
    }
    initMs[bundle.logicalId] = nodeStartMs + median(runs);
  }
  return {
    initMs,
    source: `a fresh Node process's start (${formatNumber(nodeStartMs, 0)} ms here) plus the median of 5 imports of the bundle in a fresh process, source maps on (section 2 did not run in this run)`,
  };
}

/** Section 2's modelled INIT by logical id, when it ran in this run and its data reads so. */
function modelledInits(section: SectionResult | undefined): Record<string, number> | undefined {
  const rows = (section?.data as { bundles?: unknown } | null | undefined)?.bundles;
  if (!Array.isArray(rows)) return undefined;
  const inits: Record<string, number> = {};
  for (const row of rows as { logicalId?: unknown; modelledInitMs?: unknown }[]) {
    if (typeof row.logicalId === 'string' && typeof row.modelledInitMs === 'number')
      inits[row.logicalId] = row.modelledInitMs;
  }
  return inits;
}

/** Section 7's billed write units per admission, 50 instances back to back on one key, when it ran. */
function contendedWriteUnits(section: SectionResult | undefined): number | undefined {
  const modes = (section?.data as { modes?: unknown } | null | undefined)?.modes;
  if (!Array.isArray(modes)) return undefined;
  const backToBack = (modes as { mode?: unknown; rows?: unknown }[]).find(
    (mode) => mode.mode === 'back-to-back',
  );
  const rows = Array.isArray(backToBack?.rows) ? (backToBack.rows as Record<string, unknown>[]) : [];
  const largest = rows.reduce<Record<string, unknown> | undefined>(
    (best, row) => (Number(row.instances) > Number(best?.instances ?? 0) ? row : best),
    undefined,
  );
  const writes = largest?.writes as { admittedUnits?: number; failedUnits?: number } | undefined;
  const admitted = Number(largest?.admitted);
  if (!writes || !(admitted > 0)) return undefined;
  return ((writes.admittedUnits ?? 0) + (writes.failedUnits ?? 0)) / admitted;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** The parts of a call's price, dollars per million calls. */
const COMPONENTS = [
  'API Gateway requests',
  'WAF requests',
  'Lambda requests',
  'Lambda duration',
  'Lambda INIT (cold starts)',
  'DynamoDB reads',
  'DynamoDB writes',
  'Logs: access log',
  'Logs: function lines',
  'Logs: Lambda platform lines',
  'Logs: storage for the retention',
  'X-Ray traces',
  'Data transfer out',
] as const;
type Component = (typeof COMPONENTS)[number];

interface RouteCost {
  readonly route: RouteId;
  readonly label: string;
  readonly components: Record<Component, number>;
  readonly total: number;
  readonly inputs: {
    readonly invocations: number;
    readonly billedMs: { readonly authorizer: number; readonly handler: number };
    readonly initMs: { readonly authorizer: number; readonly handler: number };
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly accessLogBytes: number;
    readonly functionLogBytes: number;
    readonly platformLogBytes: number;
    readonly tracedShare: number;
    readonly responseBytes: number;
  };
}

interface StageCost {
  readonly stage: Stage;
  readonly settings: StackSettings;
  readonly rule: SamplingRule;
  readonly routes: RouteCost[];
  readonly mix: Record<Component, number>;
  readonly mixTotal: number;
  readonly monthly: MonthlyItem[];
  readonly monthlyTotal: number;
}

/** What pricing a stage's routes reads: its settings and functions, its API stage and its traced share. */
interface StagePricing {
  readonly stage: Stage;
  readonly settings: StackSettings;
  readonly byName: ReadonlyMap<string, FunctionSettings>;
  readonly authorizerFn: FunctionSettings | undefined;
  readonly apiStage: StageSettings | undefined;
  /** The share of calls X-Ray traces at the reference volume (0 when nothing is traced). */
  readonly traced: number;
  readonly init: InitFigures;
}

function priceStage(
  stage: Stage,
  settings: StackSettings,
  template: Template,
  records: Map<RouteId, CallRecord[]>,
  init: InitFigures,
  callsPerMonth: number,
): StageCost {
  const byName = new Map(settings.functions.map((fn) => [fn.name, fn]));
  const authorizerFn = byName.get('authorizer');
  const apiStage = partnerApiStage(settings);
  const rule = samplingRuleFor(settings.samplingRules, {
    serviceName: `${apiStage?.restApiName ?? 'partner-api'}/${apiStage?.stageName ?? stage}`,
    httpMethod: 'GET',
    urlPath: `/${stage}/partner-api/v1/usage`,
  });
  const traced =
    apiStage?.tracing || authorizerFn?.activeTracing ? tracedShare(rule, perSecond(callsPerMonth)) : 0;
  const pricing: StagePricing = { stage, settings, byName, authorizerFn, apiStage, traced, init };
  const routes = API_TARGETS.map((target) => priceRoute(pricing, target, records.get(target.id) ?? []));
  const mix = Object.fromEntries(
    COMPONENTS.map((component) => [component, mean(routes.map((route) => route.components[component]))]),
  ) as Record<Component, number>;
  const monthly = monthlyItems(template, TABLE_GB);
  return {
    stage,
    settings,
    rule,
    routes,
    mix,
    mixTotal: Object.values(mix).reduce((sum, value) => sum + value, 0),
    monthly,
    monthlyTotal: monthly.reduce((sum, item) => sum + item.dollars, 0),
  };
}

/** The functions a call of a route invokes: the authorizer and the route's handler. */
function invokedFunctions(pricing: StagePricing, fn: FunctionSettings | undefined): FunctionSettings[] {
  return [pricing.authorizerFn, fn].filter((item): item is FunctionSettings => item !== undefined);
}

/** A function's modelled INIT, ms (0 without a function or a figure for it). */
function initMsOf(init: InitFigures, item: FunctionSettings | undefined): number {
  return item ? (init.initMs[item.logicalId] ?? 0) : 0;
}

/** One route's dollars per million calls, by component, from its measured calls and the stage's settings. */
function priceRoute(
  pricing: StagePricing,
  target: (typeof API_TARGETS)[number],
  calls: readonly CallRecord[],
): RouteCost {
  const { settings, authorizerFn, apiStage, traced, init } = pricing;
  const fn = pricing.byName.get(target.id);
  const invocationFns = invokedFunctions(pricing, fn);
  const authorizerBilled = mean(calls.map((call) => billedMilliseconds(call.authorizerMs)));
  const handlerBilled = mean(calls.map((call) => billedMilliseconds(call.handlerMs)));
  const initOf = (item: FunctionSettings | undefined) => initMsOf(init, item);
  const readUnits = mean(calls.map((call) => call.authorizer.readCapacity + call.handler.readCapacity));
  const writeUnits = mean(calls.map((call) => call.authorizer.writeCapacity + call.handler.writeCapacity));
  const logs = routeLogs(pricing, fn, calls, { authorizer: authorizerBilled, handler: handlerBilled });
  const accessClass = apiStage?.accessLogGroup?.logClass ?? 'STANDARD';
  const functionClass = fn?.logGroup.logClass ?? 'STANDARD';
  const invocations = (settings.authorizerTtlSeconds === 0 && authorizerFn ? 1 : 0) + (fn ? 1 : 0);
  const components: Record<Component, number> = {
    'API Gateway requests': PRICES.apiGatewayRestRequests.dollars,
    'WAF requests': apiStage?.firewall ? PRICES.wafRequests.dollars : 0,
    'Lambda requests': invocations * PRICES.lambdaRequests.dollars,
    'Lambda duration':
      lambdaDurationPerMillion(authorizerBilled, authorizerFn?.memoryMb ?? 512) +
      lambdaDurationPerMillion(handlerBilled, fn?.memoryMb ?? 512),
    'Lambda INIT (cold starts)': invocationFns.reduce(
      (sum, item) => sum + COLD_START_SHARE * lambdaDurationPerMillion(initOf(item), item.memoryMb),
      0,
    ),
    'DynamoDB reads': readUnits * PRICES.dynamoDbReadRequestUnits.dollars,
    'DynamoDB writes': writeUnits * PRICES.dynamoDbWriteRequestUnits.dollars,
    'Logs: access log': logIngestionPerMillion(logs.accessLogBytes, accessClass),
    'Logs: function lines': logIngestionPerMillion(logs.functionLogBytes, functionClass),
    'Logs: Lambda platform lines': logIngestionPerMillion(logs.platformLogBytes, functionClass),
    'Logs: storage for the retention': logs.storage,
    'X-Ray traces': traced * PRICES.xrayTracesRecorded.dollars,
    'Data transfer out':
      (mean(calls.map((call) => call.responseBytes)) / 1e9) * PRICES.dataTransferOut.dollars * 1e6,
  };
  return {
    route: target.id,
    label: target.label,
    components,
    total: Object.values(components).reduce((sum, value) => sum + value, 0),
    inputs: {
      invocations,
      billedMs: { authorizer: authorizerBilled, handler: handlerBilled },
      initMs: { authorizer: initOf(authorizerFn), handler: initOf(fn) },
      readUnits,
      writeUnits,
      accessLogBytes: logs.accessLogBytes,
      functionLogBytes: logs.functionLogBytes,
      platformLogBytes: logs.platformLogBytes,
      tracedShare: traced,
      responseBytes: mean(calls.map((call) => call.responseBytes)),
    },
  };
}

/**
 * A call's log bytes: the access-log line, the function lines Lambda's application log level lets
 * through, Lambda's platform lines (a cold start's at the cold-start share), and the dollars per
 * million calls of storing them, compressed, for each log group's retention.
 */
function routeLogs(
  pricing: StagePricing,
  fn: FunctionSettings | undefined,
  calls: readonly CallRecord[],
  billed: { readonly authorizer: number; readonly handler: number },
): { accessLogBytes: number; functionLogBytes: number; platformLogBytes: number; storage: number } {
  const { stage, authorizerFn, apiStage, init } = pricing;
  const invocationFns = invokedFunctions(pricing, fn);
  const initOf = (item: FunctionSettings | undefined) => initMsOf(init, item);
  const appLines = (lines: readonly string[], item: FunctionSettings | undefined) =>
    lines.filter((line) => {
      const level = /"level":"(\w+)"/.exec(line)?.[1] ?? 'INFO';
      return passesLevel(level, item?.applicationLogLevel ?? 'INFO');
    });
  const functionLines = calls.map((call) => [
    ...appLines(call.authorizerLines, authorizerFn),
    ...appLines(call.handlerLines, fn),
  ]);
  const functionLogBytes = mean(functionLines.map((lines) => logEventBytes(lines)));
  const platformFor = (item: FunctionSettings, durationMs: number, coldStart: boolean) =>
    platformLines({
      systemLogLevel: item.systemLogLevel,
      coldStart,
      tracing: item.activeTracing,
      functionName: `PartnerApi-${stage}-${item.logicalId.slice(0, 30)}-ABCDEF123456`,
      memoryMb: item.memoryMb,
      durationMs,
      initDurationMs: initOf(item),
    });
  const warmPlatform = invocationFns.flatMap((item) =>
    platformFor(item, item === authorizerFn ? billed.authorizer : billed.handler, false),
  );
  const coldPlatform = invocationFns.flatMap((item) =>
    platformFor(item, item === authorizerFn ? billed.authorizer : billed.handler, true),
  );
  const platformLogBytes =
    (1 - COLD_START_SHARE) * logEventBytes(warmPlatform) + COLD_START_SHARE * logEventBytes(coldPlatform);
  const accessLines = calls.flatMap((call) => (call.accessLogLine ? [call.accessLogLine] : []));
  const accessLogBytes = mean(accessLines.map((line) => logEventBytes([line])));
  const accessStorage = logStoragePerMillion(
    accessLogBytes * compressionRatio(accessLines),
    apiStage?.accessLogGroup?.retentionDays,
  );
  const functionStorage = logStoragePerMillion(
    (functionLogBytes + platformLogBytes) * compressionRatio([...functionLines.flat(), ...warmPlatform]),
    fn?.logGroup.retentionDays,
  );
  return { accessLogBytes, functionLogBytes, platformLogBytes, storage: accessStorage + functionStorage };
}

async function readTemplate(stage: Stage): Promise<Template> {
  return JSON.parse(
    await readFile(join(REPOSITORY_ROOT, 'cdk.out', `PartnerApi-${stage}.template.json`), 'utf8'),
  ) as Template;
}

export async function measureCost(inputs: {
  bundles?: SectionResult;
  limiter?: SectionResult;
}): Promise<SectionResult> {
  const templates = Object.fromEntries(
    await Promise.all(STAGES.map(async (stage) => [stage, await readTemplate(stage)] as const)),
  ) as Record<Stage, Template>;
  const settings = Object.fromEntries(
    STAGES.map((stage) => [stage, stackSettings(templates[stage])]),
  ) as Record<Stage, StackSettings>;
  const production = settings.production;
  const wanted = production.functions
    .filter((fn) => fn.name === 'authorizer' || API_TARGETS.some((target) => target.id === fn.name))
    .map((fn) => fn.logicalId);
  progress('cost: INIT of the partner API functions');
  const init = await measureInit(inputs.bundles, wanted);
  const stageCosts: StageCost[] = [];
  for (const stage of STAGES) {
    progress(`cost: ${CALLS} calls of each route with ${stage}'s log levels`);
    const records = await measureCalls(stage, settings[stage]);
    stageCosts.push(
      priceStage(stage, settings[stage], templates[stage], records, init, REFERENCE_CALLS_PER_MONTH),
    );
  }
  const productionCost = stageCosts.find((cost) => cost.stage === 'production');
  const volumes = VOLUMES.map((volume) => ({
    volume,
    traced: productionCost ? tracedShare(productionCost.rule, perSecond(volume)) : 0,
  }));
  return report(stageCosts, init, volumes, contendedWriteUnits(inputs.limiter));
}

const STAGE_OF = (costs: readonly StageCost[], stage: Stage) => {
  const cost = costs.find((item) => item.stage === stage);
  if (!cost) throw new Error(`No ${stage} cost`);
  return cost;
};

function report(
  stageCosts: readonly StageCost[],
  init: InitFigures,
  volumes: readonly { volume: number; traced: number }[],
  contended: number | undefined,
): SectionResult {
  const production = STAGE_OF(stageCosts, 'production');
  return {
    id: 'cost',
    title: '10. What a call costs',
    method: method(init),
    tables: [
      componentTable(production),
      inputsTable(production),
      stageTable(stageCosts),
      monthlyTable(stageCosts),
      sensitivityTable(production, volumes, contended),
      priceTable(),
    ],
    budgets: [productionBudget(production)],
    notes: [
      'Trace retrieval ($0.50 per million traces read) and Logs Insights scans ($0.005 per GB, the dashboard’s two tables and `traffic`) depend on how often people look, not on calls; they are left out.',
      'API Gateway execution logs are at ERROR: a successful call writes none.',
    ],
    data: {
      referenceCallsPerMonth: REFERENCE_CALLS_PER_MONTH,
      coldStartShare: COLD_START_SHARE,
      budgetDollarsPerMillion: BUDGET_DOLLARS_PER_MILLION,
      init,
      contendedWriteUnits: contended,
      stages: stageCosts.map((cost) => ({
        stage: cost.stage,
        samplingRule: cost.rule,
        routes: cost.routes,
        mix: cost.mix,
        mixTotal: cost.mixTotal,
        monthly: cost.monthly,
        monthlyTotal: cost.monthlyTotal,
      })),
    },
  };
}

/** Production: dollars per million calls of each route, by component, and of their equal mix. */
function componentTable(production: StageCost): Table {
  const routeColumns = production.routes.map((route) => route.label);
  return {
    caption: `Production: dollars per million calls, by component, at ${formatNumber(REFERENCE_CALLS_PER_MONTH / 1e6, 0)} million calls a month (list prices, ${REGION}, no free tier)`,
    columns: ['Component', ...routeColumns, 'equal mix'],
    rows: [
      ...COMPONENTS.map((component) => [
        component,
        ...production.routes.map((route) => dollars(route.components[component])),
        dollars(production.mix[component]),
      ]),
      ['Total', ...production.routes.map((route) => dollars(route.total)), dollars(production.mixTotal)],
    ],
  };
}

/** What each production call was measured or read to do. */
function inputsTable(production: StageCost): Table {
  return {
    caption: `What each production call was measured or read to do (${CALLS} calls per route; means)`,
    columns: [
      'Route',
      'Lambda invocations',
      'billed ms (authorizer + handler)',
      'INIT ms (authorizer, handler)',
      'read units',
      'write units',
      'access-log bytes',
      'function-log bytes',
      'platform-log bytes',
      'traced share',
      'response bytes',
    ],
    rows: production.routes.map((route) => [
      route.label,
      String(route.inputs.invocations),
      `${formatNumber(route.inputs.billedMs.authorizer, 1)} + ${formatNumber(route.inputs.billedMs.handler, 1)}`,
      `${formatNumber(route.inputs.initMs.authorizer, 0)}, ${formatNumber(route.inputs.initMs.handler, 0)}`,
      formatNumber(route.inputs.readUnits, 2),
      formatNumber(route.inputs.writeUnits, 2),
      formatNumber(route.inputs.accessLogBytes, 0),
      formatNumber(route.inputs.functionLogBytes, 0),
      formatNumber(route.inputs.platformLogBytes, 0),
      formatNumber(route.inputs.tracedShare, 3),
      formatNumber(route.inputs.responseBytes, 0),
    ]),
  };
}

/** Each stage: the settings read from its template, a million calls and a month at each volume. */
function stageTable(stageCosts: readonly StageCost[]): Table {
  const describe = (cost: StageCost) => {
    const fn = cost.settings.functions.find((item) => item.name === 'authorizer');
    const apiStage = partnerApiStage(cost.settings);
    const fields = apiStage?.accessLogFormat ? [...apiStage.accessLogFormat.matchAll(/"(\w+)":/g)].length : 0;
    return `system log ${fn?.systemLogLevel ?? '?'}, code log ${fn?.codeLogLevel ?? '?'}, X-Ray rule "${cost.rule.name}" (${cost.rule.reservoirPerSecond}/s + ${formatNumber(cost.rule.fixedRate * 100, 1)} %), ${fields} access-log fields`;
  };
  return {
    caption:
      'Each stage: a million calls (an equal mix of the routes) and a month; fixed costs at a 1 GB table',
    columns: [
      'Stage',
      'settings read from its template',
      '$ per million calls',
      'fixed $ per month',
      ...VOLUMES.map((volume) => `a month at ${formatNumber(volume / 1e6, 0)} M calls`),
    ],
    rows: stageCosts.map((cost) => [
      cost.stage,
      describe(cost),
      dollars(cost.mixTotal),
      dollars(cost.monthlyTotal),
      ...VOLUMES.map((volume) => {
        const traced = tracedShare(cost.rule, perSecond(volume));
        const xrayAtReference = cost.mix['X-Ray traces'];
        const perMillion = cost.mixTotal - xrayAtReference + traced * PRICES.xrayTracesRecorded.dollars;
        return dollars(cost.monthlyTotal + (perMillion * volume) / 1e6);
      }),
    ]),
  };
}

/** Fixed monthly cost per stage, by resource. */
function monthlyTable(stageCosts: readonly StageCost[]): Table {
  const resources = [...new Set(stageCosts.flatMap((cost) => cost.monthly.map((item) => item.resource)))];
  return {
    caption:
      'Fixed monthly cost per stage, by resource (from each template; data-sized items at a 1 GB table)',
    columns: ['Resource', ...stageCosts.map((cost) => cost.stage), 'price'],
    rows: [
      ...resources.map((resource) => {
        const items = stageCosts.map((cost) => cost.monthly.find((item) => item.resource === resource));
        return [
          resource,
          ...items.map((item) => (item ? `${dollars(item.dollars)} (${item.quantity})` : '—')),
          items.find((item) => item)?.basis ?? '',
        ];
      }),
      ['Total', ...stageCosts.map((cost) => dollars(cost.monthlyTotal)), ''],
    ],
  };
}

/** What the production figure depends on: the volume (X-Ray), the cold-start share, the limiter under contention. */
function sensitivityTable(
  production: StageCost,
  volumes: readonly { volume: number; traced: number }[],
  contended: number | undefined,
): Table {
  const coldTen = production.routes.map((route) => route.components['Lambda INIT (cold starts)'] * 10);
  return {
    caption: 'What the production figure depends on',
    columns: ['Assumption', 'as priced above', 'instead', 'change per million calls (equal mix)'],
    rows: [
      ...volumes
        .filter(({ volume }) => volume !== REFERENCE_CALLS_PER_MONTH)
        .map(({ volume, traced }) => [
          `X-Ray: calls a month (Poisson arrivals; rule "${production.rule.name}")`,
          `${formatNumber(REFERENCE_CALLS_PER_MONTH / 1e6, 0)} M: ${formatNumber(production.routes[0]?.inputs.tracedShare ?? 0, 3)} traced`,
          `${formatNumber(volume / 1e6, 0)} M: ${formatNumber(traced, 3)} traced`,
          dollars(traced * PRICES.xrayTracesRecorded.dollars - production.mix['X-Ray traces']),
        ]),
      [
        'share of invocations that are cold starts',
        `${formatNumber(COLD_START_SHARE * 100, 0)} %`,
        '10 %',
        dollars(mean(coldTen) - production.mix['Lambda INIT (cold starts)']),
      ],
      [
        'the limiter under contention (section 7: 50 instances back to back on one key, failed conditional writes billed)',
        `${formatNumber(mean(production.routes.map((route) => route.inputs.writeUnits)), 2)} write units per call`,
        contended === undefined
          ? 'section 7 did not run'
          : `${formatNumber(contended, 2)} write units per admission`,
        contended === undefined
          ? '—'
          : dollars(
              (contended - mean(production.routes.map((route) => route.inputs.writeUnits))) *
                PRICES.dynamoDbWriteRequestUnits.dollars,
            ),
      ],
    ],
  };
}

/** The prices used, with their sources. */
function priceTable(): Table {
  return {
    caption: `Prices used (bench/lib/prices.ts; ${REGION}, read ${PRICES.apiGatewayRestRequests.read})`,
    columns: ['Price', 'dollars', 'per', 'source', 'confirmed'],
    rows: Object.entries(PRICES).map(([name, price]) => [
      name,
      `$${price.dollars}`,
      price.unit,
      price.source,
      price.confirmed ? 'yes' : `no: ${price.note ?? ''}`,
    ]),
  };
}

/** The budget: every production route, and their mix, at most the budget per million calls. */
function productionBudget(production: StageCost): BudgetCheck {
  const worst = production.routes.reduce((max, route) => (route.total > max.total ? route : max));
  return {
    name: 'production: dollars per million calls',
    budget: `≤ $${BUDGET_DOLLARS_PER_MILLION.toFixed(2)} for every route and their mix, at ${formatNumber(REFERENCE_CALLS_PER_MONTH / 1e6, 0)} million calls a month (exact per-key limit, Lambda authorizer without result cache)`,
    measured: `${production.routes.map((route) => `${route.label} ${dollars(route.total)}`).join(', ')}; mix ${dollars(production.mixTotal)} (the most: ${worst.label})`,
    pass: production.routes.every((route) => route.total <= BUDGET_DOLLARS_PER_MILLION),
  };
}

/** How the section measures and prices, as the report states it. */
function method(init: InitFigures): string {
  return [
    `Each route of the partner API is called ${CALLS} times (after ${WARM_UP} to warm up) through the real authorizer and handler in this process, for a partner made for the section (${DATASET.properties} sponsored properties on ${DATASET.products.length} products; the pricing signals of one with ${DATASET.reservations} reservations of history), with "Accept-Encoding: gzip, deflate" as partners' HTTP clients send it, against the bench service's DynamoDB Local with the DynamoDB meter, once with each stage's log levels (the functions' logger at the template's POWERTOOLS_LOG_LEVEL, stdout captured: the lines the code writes are the lines Lambda sends to the function's log group).`,
    "The settings that decide the price are read from the synthesized templates (cdk.out): memory and architecture, Lambda's log format and application and system log levels, active tracing, the stage's X-Ray tracing and any AWS::XRay::SamplingRule, the web ACL association, the authorizer's result cache, the access-log format and each log group's class and retention.",
    'Per call: API Gateway and WAF requests; Lambda requests and billed duration (each invocation rounded up to the millisecond, at the function’s memory on Arm; measured on this machine against DynamoDB Local, where a 512 MB Lambda has about a third of a vCPU and DynamoDB answers in a few milliseconds: an order of magnitude, and a small part of the total);',
    `INIT, billed since 2025 (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/), from ${init.source}, at ${formatNumber(COLD_START_SHARE * 100, 0)} % of invocations (AWS's figure for production workloads);`,
    "DynamoDB read and write units as DynamoDB Local reports them (the authorizer reads as after its cache expired; the limiter's write included);",
    "CloudWatch Logs: the access-log line rendered from the template's format with this call's values (request id, status, lengths, latencies, partner and key prefix; a documentation IPv4 address and a common client's user agent), the function lines captured and filtered by Lambda's application log level, and Lambda's platform lines at the system log level, built from the record shapes of AWS's Telemetry API schema reference with this call's numbers (their sizes are AWS's documented shapes, not captured); 26 bytes per event added as CloudWatch counts them; storage of the gzip-compressed bytes for the log group's retention;",
    `X-Ray: one trace per sampled call (API Gateway samples; the authorizer and handler join its trace), the share the applicable sampling rule traces when calls arrive at random at ${formatNumber(REFERENCE_CALLS_PER_MONTH / 1e6, 0)} million a month; data transfer out: the response body and the handler's headers.`,
    'The activation pages are priced per activation elsewhere (about 15 page requests by a host, once); the platform events consumer per event. Neither is a partner API call.',
  ].join(' ');
}
