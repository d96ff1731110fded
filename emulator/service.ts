import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { queueUrlVariable, SERVICE_QUEUE_NAMES } from '../core/event-delivery';
import type { ServiceFunctionSpec, ServiceSecretName } from '../core/routes';
import { API_BASE_PATH, pageFunctionName, SUPPORT_ADDRESS_FUNCTIONS, serviceFunctions } from '../core/routes';
import { runtimeEnvironment } from '../core/runtime-settings';
import { secretArnVariable } from '../core/service-secrets';
import { useServiceEnvironment } from '../lambdas/common/config';
import { FUNCTION_NODE_OPTIONS, POWERTOOLS_SERVICE_NAME } from '../lib/function-defaults';
import { senderAddress, stackName } from '../lib/stage-config';
import { createActivationLink } from '../operations/links';
import { FROM_LOCAL, outboxMailer } from '../operations/mailer';
import type { AccessLogWriter } from './access-log';
import { accessLogPath, openAccessLog } from './access-log';
import { LocalApiGateway } from './api-gateway';
import type { AwsCall, LocalAwsEndpoint } from './aws-endpoint';
import { PUBLIC_KEYS_PATH, startAwsEndpoint } from './aws-endpoint';
import { bundleFunctions } from './bundles';
import { deployedFunctions } from './deployed-bundles';
import type { DynamoDbLocal } from './dynamodb-local';
import { ensureTable, startDynamoDbLocal } from './dynamodb-local';
import type { EventCounts, EventPipelineOptions } from './event-pipeline';
import {
  LOCAL_EVENT_BUS_NAME,
  LOCAL_OUTBOUND_BUS_NAME,
  LocalEventPipeline,
  localQueueUrl,
} from './event-pipeline';
import type { HttpServerOptions } from './http-server';
import { checkPortFree, startHttpServer } from './http-server';
import type { LambdaRuntimeOptions, LocalFunction } from './lambda-runtime';
import { DEFAULT_LAMBDA_RUNTIME_OPTIONS, LocalLambdaRuntime } from './lambda-runtime';
import type { LocalMetricFilter } from './metric-filters';
import { LOCAL_ACCESS_LOG_GROUP, partnerApiMetricFilters } from './metric-filters';
import { LocalOutboundPipe } from './outbound-pipe';
import { ensurePrivateFolder, ensureSecretsFile, removeRuntime, writeRuntime } from './runtime';
import type { LocalReporterKeys } from './secret-scanning-keys';
import { localReporterKeys } from './secret-scanning-keys';
import type { DemoKey } from './seed';
import { seedLocalData } from './seed';

const LOCAL_TABLE_NAME = 'partner-api-local';
/** How often seeding says how far it is: often enough that a slow start never looks stuck. */
const SEEDING_PROGRESS_INTERVAL_MS = 2_000;

/** Events are sent as seeding goes, so the total grows until it is done: "so far" says so. */
const seedingProgress = ({ sent, handled }: EventCounts) =>
  `Seeding: ${handled.toLocaleString('en-US')} of ${sent.toLocaleString('en-US')} events sent so far applied`;

export interface LocalServiceOptions {
  readonly host: string;
  readonly port: number;
  /** Folder for secrets, runtime file, outbox and (with `persist`) data. */
  readonly directory: string;
  readonly persist: boolean;
  /** Use this DynamoDB (Local) instead of starting one; it is not stopped with the service. */
  readonly dynamoDbEndpoint?: string;
  /** Sees every exchange after it is answered (the tests' contract check). */
  readonly observe?: HttpServerOptions['observe'];
  /**
   * Receives one access-log line per request (for the terminal). Whatever it does, each request's
   * entry is also appended to `<directory>/access-log.jsonl` in the deployed access-log format,
   * which `npm run admin -- traffic` reads.
   */
  readonly log: (line: string) => void;
  /**
   * Receives what the terminal must show even when the access log is not (`--quiet`): a call the
   * emulation could not answer, an event put where no rule listens, a delivery tried again.
   * @default log
   */
  readonly notice?: (line: string) => void;
  /** Receives a line as each step of the start begins (what `npm start` prints while it waits). */
  readonly progress?: (line: string) => void;
  /** The local Lambda runtime's instance cap and idle time. @default DEFAULT_LAMBDA_RUNTIME_OPTIONS */
  readonly lambda?: Partial<LambdaRuntimeOptions>;
  /** The local queues' visibility timeout and batching window. @default EventPipelineOptions' */
  readonly events?: EventPipelineOptions;
  /** Keep every AWS call the functions make (the integration suite's IAM check). @default false */
  readonly recordAwsCalls?: boolean;
  /**
   * Run the bundles `cdk synth` built into this cloud assembly (`cdk.out`), each with the
   * environment of its function in the sandbox template, instead of bundling the sources.
   * @default - bundle the sources now, as the stack does
   */
  readonly deployedBundles?: string;
  /**
   * The secret scanning keys to trust, in GitHub's format (`SECRET_SCANNING_KEYS_FILE`).
   * @default - a key pair the server makes and keeps, whose private key `keys report-leak` signs with
   */
  readonly secretScanningKeysFile?: string;
}

export interface LocalService {
  readonly apiBaseUrl: string;
  readonly activationBaseUrl: string;
  readonly dynamoDbEndpoint: string;
  readonly tableName: string;
  readonly secretsFile: string;
  readonly outboxDirectory: string;
  /** The access log the server appends to, one JSON object per line (see access-log.ts). */
  readonly accessLogFile: string;
  readonly awsEndpoint: string;
  readonly secretArns: Readonly<Record<ServiceSecretName, string>>;
  readonly secretAccessKey: string;
  readonly demoKeys: readonly DemoKey[];
  /** The local reporter's key pair, when the server made one (no SECRET_SCANNING_KEYS_FILE). */
  readonly secretScanning?: { readonly privateKeyFile: string; readonly keyIdentifier: string };
  /** The AWS calls the functions made so far (with `recordAwsCalls`). */
  awsCalls(): readonly AwsCall[];
  /** Resolves once every platform event sent so far is handled (applied or dead-lettered). */
  eventsSettled(): Promise<void>;
  /** Resolves once the outbound pipe has delivered every outbox event committed before the call. */
  outboundDelivered(): Promise<void>;
  /** Where a local platform reads what the service sends it: an SQS queue on the local AWS endpoint. */
  readonly platformInboxUrl: string;
  /** A fresh one-hour activation link of the demo partner, for a new demo host. */
  readonly activationLink: string;
  /** Heap of the server's own thread and of the idle Lambda instances, after a full GC where Node allows it. */
  memory(): Promise<{ serverHeapBytes: number; instances: number; instanceHeapBytes: number }>;
  stop(): Promise<void>;
}

/** A link as an operator would mint it with `links create`, for a host not yet onboarded. */
async function demoActivationLink(origin: string, outboxDirectory: string): Promise<string> {
  const { url } = await createActivationLink(
    {
      stage: 'local',
      actor: 'local-server',
      apiBaseUrl: origin + API_BASE_PATH,
      activationBaseUrl: origin,
      mailer: outboxMailer(outboxDirectory),
    },
    {
      slug: 'demo-pms',
      email: 'new.host@lakeside-cabins.example',
      name: 'Lakeside Cabins',
      pmsHotelId: `PMS-NEW-${Date.now().toString(36)}`,
      products: ['assistant', 'upsells', 'guidebook'],
      ttlSeconds: 3_600,
    },
    Date.now(),
  );
  return url;
}

/** Where the local AWS APIs are, as a function or an operator sees them. */
export interface LocalAwsSettings {
  /** The local AWS endpoint (DynamoDB and Secrets Manager): functions' calls go there. */
  readonly awsEndpoint: string;
  readonly secretArns: Readonly<Record<ServiceSecretName, string>>;
  /** The secret access key every request to the endpoint is signed with (local only, per start). */
  readonly secretAccessKey: string;
}

/**
 * A function's environment as the stack sets it, with the local AWS endpoint and credentials of
 * its own (its name, so its calls can be told apart): the table only for functions that have
 * table access, and each secret's ARN only for the functions the route table grants it to.
 */
function functionEnvironment(spec: ServiceFunctionSpec, aws: LocalAwsSettings): Record<string, string> {
  const sendsTo = spec.access.sendsTo ?? [];
  return {
    STAGE: 'local',
    POWERTOOLS_SERVICE_NAME,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    // No CloudWatch here: the embedded-metric lines (the outbound lag) would only fill the terminal.
    POWERTOOLS_METRICS_DISABLED: 'true',
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
    ...runtimeEnvironment(),
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: spec.name,
    AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.awsEndpoint,
    ...(spec.access.table ? { TABLE_NAME: LOCAL_TABLE_NAME, DYNAMODB_ENDPOINT: aws.awsEndpoint } : {}),
    ...Object.fromEntries(
      (spec.access.secrets ?? []).map((name) => [secretArnVariable(name), aws.secretArns[name]]),
    ),
    ...(sendsTo.length > 0 ? { AWS_ENDPOINT_URL_SQS: aws.awsEndpoint } : {}),
    // As the stack gives a function that mails: the stage's sender, and SES (locally, the outbox).
    ...(spec.access.sendsMail ? { AWS_ENDPOINT_URL_SESV2: aws.awsEndpoint, MAIL_FROM: FROM_LOCAL } : {}),
    // GitHub's list of its signing keys, in the local endpoint's copy (emulator/secret-scanning-keys.ts).
    ...(spec.name === pageFunctionName('secretScanning')
      ? { SECRET_SCANNING_KEYS_URL: aws.awsEndpoint + PUBLIC_KEYS_PATH }
      : {}),
    // As the stack gives the reveal page and the OpenAPI document the stage's mail sender: how partners reach us.
    ...(SUPPORT_ADDRESS_FUNCTIONS.includes(spec.name) ? { CONTACT_EMAIL: senderAddress(FROM_LOCAL) } : {}),
    ...Object.fromEntries(
      sendsTo.map((name) => [queueUrlVariable(name), localQueueUrl(aws.awsEndpoint, name)]),
    ),
  };
}

/** Every function of the route table, bundled from its source now, as the stack bundles it. */
async function sourceFunctions(directory: string, aws: LocalAwsSettings): Promise<LocalFunction[]> {
  const bundles = await bundleFunctions(serviceFunctions, directory);
  return serviceFunctions.map((spec) => ({
    name: spec.name,
    module: bundles.get(spec.name) ?? '',
    environment: functionEnvironment(spec, aws),
  }));
}

/** Variables CloudFormation fills with what only a deployed stage has (the home page's API URL). */
const AWS_ONLY_VARIABLES = new Set(['API_BASE_URL']);

/**
 * Every function of the sandbox stack as synthesized: its bundle, timeout, memory and the
 * environment of the template, with what CloudFormation would fill in (the table, the secrets)
 * and what only exists locally (endpoint, credentials) put in. An unknown reference fails.
 */
async function synthesizedFunctions(cdkOut: string, aws: LocalAwsSettings): Promise<LocalFunction[]> {
  const deployed = await deployedFunctions(cdkOut, stackName('sandbox'));
  return serviceFunctions.map((spec) => {
    const fn = deployed.find((candidate) => candidate.name === spec.name);
    if (!fn) throw new Error(`${cdkOut} has no function tagged ${spec.name}: run "npm run synth" again.`);
    const local = functionEnvironment(spec, aws);
    const environment = Object.fromEntries(
      Object.entries(fn.variables).flatMap(([name, value]) => {
        if (typeof value === 'string') return [[name, value]];
        // The stage's https address exists only in AWS; locally the page goes without, as from sources.
        if (AWS_ONLY_VARIABLES.has(name)) return [];
        const filled = local[name];
        if (filled === undefined)
          throw new Error(`${fn.logicalId}: no local value for ${name} (${JSON.stringify(value)})`);
        return [[name, filled]];
      }),
    );
    const onlyLocal = [
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ENDPOINT_URL_SECRETS_MANAGER',
      'AWS_ENDPOINT_URL_SQS',
      'AWS_ENDPOINT_URL_SESV2',
      'MAIL_FROM',
      // The address that names that sender (the template's is the sandbox's).
      'CONTACT_EMAIL',
      'SECRET_SCANNING_KEYS_URL',
      'DYNAMODB_ENDPOINT',
      'POWERTOOLS_METRICS_DISABLED',
    ];
    for (const name of onlyLocal) if (local[name] !== undefined) environment[name] = local[name];
    return {
      name: spec.name,
      module: fn.handlerFile,
      environment,
      timeoutSeconds: fn.timeoutSeconds,
      memoryMb: fn.memoryMb,
    };
  });
}

/**
 * The environment of what runs beside the functions (seeding, the operator CLI, the tests): the
 * table straight on DynamoDB (Local), and the secrets, the event bus and the queues an operator
 * reaches through the local AWS endpoint, as the `operator`.
 */
export function localEnvironment(
  input: { dynamoDbEndpoint: string } & LocalAwsSettings,
): Record<string, string> {
  return {
    STAGE: 'local',
    TABLE_NAME: LOCAL_TABLE_NAME,
    DYNAMODB_ENDPOINT: input.dynamoDbEndpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'operator',
    AWS_SECRET_ACCESS_KEY: input.secretAccessKey,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: input.awsEndpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: input.awsEndpoint,
    AWS_ENDPOINT_URL_SQS: input.awsEndpoint,
    EVENT_BUS_NAME: LOCAL_EVENT_BUS_NAME,
    OUTBOUND_EVENT_BUS_NAME: LOCAL_OUTBOUND_BUS_NAME,
    ...Object.fromEntries(
      SERVICE_QUEUE_NAMES.map((name) => [queueUrlVariable(name), localQueueUrl(input.awsEndpoint, name)]),
    ),
    SEALING_SECRET_ARN: input.secretArns.sealing,
  };
}

/** The parts of a starting service, set as each one starts, so that a failed start stops those that did. */
interface StartedParts {
  dynamoDb?: DynamoDbLocal;
  aws?: LocalAwsEndpoint;
  lambdas?: LocalLambdaRuntime;
  outbound?: LocalOutboundPipe;
  accessLog?: AccessLogWriter;
  server?: Server;
}

/** What the service's handle and runtime file say about it, the running parts aside. */
type ServiceSettings = Omit<
  LocalService,
  'activationLink' | 'awsCalls' | 'eventsSettled' | 'outboundDelivered' | 'memory' | 'stop'
>;

/**
 * Starts the whole service on one machine: DynamoDB Local (unless an endpoint is given), the
 * table from the stack's own definition, seed data, and the real handlers behind an API Gateway
 * emulation over HTTP.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  // Port 0 (the tests') is always free; another is checked before the minute of work it would waste.
  if (options.port !== 0) await checkPortFree(options.host, options.port);
  const { secretsFile, outboxDirectory, reporterKeys } = await prepareDirectory(options);
  const events = new LocalEventPipeline({ onNotice: options.notice ?? options.log, ...options.events });
  const progress = options.progress ?? (() => undefined);
  const started: StartedParts = {};
  try {
    const dynamoDbEndpoint = await dynamoDbFor(options, started, progress);
    const { aws, awsSettings } = await startAws(
      options,
      {
        dynamoDbEndpoint,
        secretsFile,
        events,
        mailOutbox: outboxDirectory,
        secretScanningKeysFile: reporterKeys.keysFile,
      },
      started,
    );
    // Seeding and the demo link act on this DynamoDB Local, as an operator would.
    useServiceEnvironment(localEnvironment({ dynamoDbEndpoint, ...awsSettings }));
    await ensureTable(dynamoDbEndpoint, LOCAL_TABLE_NAME);
    const lambdas = await startLambdas(options, awsSettings, started, progress);
    events.start((name, event) => lambdas.invoke(name, event));
    // Started before seeding: the demo hosts' provisionings are sent to the platform like any other.
    started.outbound = new LocalOutboundPipe({
      dynamoDbEndpoint,
      tableName: LOCAL_TABLE_NAME,
      invoke: (name, records) => lambdas.invoke(name, records),
      put: (event) => events.putOutbound({ ...event }),
      onError: options.notice ?? options.log,
    });
    started.outbound.start();
    const demoKeys = await seedDemoData(events, progress);
    const { server, accessLog } = await startServer(options, lambdas, started);
    const origin = serverOrigin(options, server);
    const service: ServiceSettings = {
      apiBaseUrl: origin + API_BASE_PATH,
      activationBaseUrl: origin,
      dynamoDbEndpoint,
      tableName: LOCAL_TABLE_NAME,
      secretsFile,
      outboxDirectory,
      accessLogFile: accessLog.path,
      ...awsSettings,
      platformInboxUrl: localQueueUrl(awsSettings.awsEndpoint, 'platformInbox'),
      demoKeys,
      ...(reporterKeys.privateKeyFile && reporterKeys.keyIdentifier
        ? {
            secretScanning: {
              privateKeyFile: reporterKeys.privateKeyFile,
              keyIdentifier: reporterKeys.keyIdentifier,
            },
          }
        : {}),
    };
    const activationLink = await demoActivationLink(origin, outboxDirectory);
    await writeRuntime(options.directory, runtimeRecord(service, started.dynamoDb));
    const { directory } = options;
    const outbound = started.outbound;
    const parts = {
      server,
      events,
      outbound,
      lambdas,
      accessLog,
      aws,
      dynamoDb: started.dynamoDb,
      directory,
    };
    return runningService(service, activationLink, parts);
  } catch (error) {
    await stopStarted(started, events);
    throw error;
  }
}

/** The private folders of the service's directory, and the secrets file (created on first start). */
async function prepareDirectory(
  options: LocalServiceOptions,
): Promise<{ secretsFile: string; outboxDirectory: string; reporterKeys: LocalReporterKeys }> {
  // Partners' e-mails, key hashes and reveal links: for this user only (docs/design/local-runtime.md).
  const secretsFile = await ensureSecretsFile(options.directory);
  for (const folder of ['outbox', 'bundles', 'docs', ...(options.persist ? ['dynamodb'] : [])])
    await ensurePrivateFolder(join(options.directory, folder));
  const reporterKeys = await localReporterKeys(options.directory, options.secretScanningKeysFile);
  return { secretsFile, outboxDirectory: join(options.directory, 'outbox'), reporterKeys };
}

/** The endpoint of the DynamoDB the options name, or of a DynamoDB Local started for the service. */
async function dynamoDbFor(
  options: LocalServiceOptions,
  started: StartedParts,
  progress: (line: string) => void,
): Promise<string> {
  if (options.dynamoDbEndpoint) return options.dynamoDbEndpoint;
  progress('Starting DynamoDB Local...');
  const dataDirectory = options.persist ? join(options.directory, 'dynamodb') : undefined;
  started.dynamoDb = await startDynamoDbLocal(dataDirectory ? { dataDirectory } : {});
  return started.dynamoDb.endpoint;
}

/** The local AWS endpoint every function and the operator call, with a credential new at each start. */
async function startAws(
  options: LocalServiceOptions,
  input: {
    dynamoDbEndpoint: string;
    secretsFile: string;
    events: LocalEventPipeline;
    mailOutbox: string;
    secretScanningKeysFile: string;
  },
  started: StartedParts,
): Promise<{ aws: LocalAwsEndpoint; awsSettings: LocalAwsSettings }> {
  // The local credential every caller of the endpoint signs with: new at each start, never printed.
  const secretAccessKey = randomBytes(24).toString('base64url');
  let metricFilters: Promise<LocalMetricFilter[]> | undefined;
  const aws = await startAwsEndpoint({
    ...input,
    record: options.recordAwsCalls ?? false,
    secretAccessKey,
    roles: serviceFunctions.map((spec) => spec.name),
    onNotice: options.notice ?? options.log,
    logs: {
      logGroupName: LOCAL_ACCESS_LOG_GROUP,
      file: accessLogPath(options.directory),
      metricFilters: () => {
        metricFilters ??= partnerApiMetricFilters();
        return metricFilters;
      },
    },
  });
  started.aws = aws;
  return { aws, awsSettings: { awsEndpoint: aws.url, secretArns: aws.secretArns, secretAccessKey } };
}

/** Every function, from the synthesized bundles or bundled from the sources now, in the local Lambda runtime. */
async function startLambdas(
  options: LocalServiceOptions,
  awsSettings: LocalAwsSettings,
  started: StartedParts,
  progress: (line: string) => void,
): Promise<LocalLambdaRuntime> {
  progress(options.deployedBundles ? 'Loading the synthesized functions...' : 'Bundling the functions...');
  started.lambdas = new LocalLambdaRuntime(
    options.deployedBundles
      ? await synthesizedFunctions(options.deployedBundles, awsSettings)
      : await sourceFunctions(join(options.directory, 'bundles'), awsSettings),
    { ...DEFAULT_LAMBDA_RUNTIME_OPTIONS, ...options.lambda },
  );
  return started.lambdas;
}

/**
 * The demo partners and their keys. Their units and reservations are the platform's events: they
 * go through the consumer, and the server is up once they are applied.
 */
async function seedDemoData(
  events: LocalEventPipeline,
  progress: (line: string) => void,
): Promise<DemoKey[]> {
  progress("Seeding the demo partners; their hosts' reservations go through the event consumer...");
  let reportedAt = performance.now();
  const stopReporting = events.onProgress((counts) => {
    if (performance.now() - reportedAt < SEEDING_PROGRESS_INTERVAL_MS) return;
    reportedAt = performance.now();
    progress(seedingProgress(counts));
  });
  const demoKeys = await seedLocalData(Date.now());
  await events.settled();
  stopReporting();
  const seeded = events.eventCounts();
  progress(
    seeded.sent > 0
      ? `Seeding: all ${seeded.sent.toLocaleString('en-US')} events applied`
      : 'Seeding: the demo partners were there already (kept data, or another server seeded them)',
  );
  return demoKeys;
}

/** The HTTP server in front of the functions, with the access log it appends to. */
async function startServer(
  options: LocalServiceOptions,
  lambdas: LocalLambdaRuntime,
  started: StartedParts,
): Promise<{ server: Server; accessLog: AccessLogWriter }> {
  // Starts empty with the data: DynamoDB Local in memory gives the next run's partners the ids
  // of this run's, so lines of an earlier run would be counted for other partners.
  const accessLog = await openAccessLog(options.directory, {
    fresh: !options.persist && !options.dynamoDbEndpoint,
    onError: (error) => options.log(`access log ${accessLogPath(options.directory)}: ${error.message}`),
  });
  started.accessLog = accessLog;
  started.server = await startHttpServer({
    gateway: new LocalApiGateway(lambdas),
    host: options.host,
    port: options.port,
    log: options.log,
    accessLog: (entry) => accessLog.write(entry),
    observe: options.observe,
    docsDirectory: join(options.directory, 'docs'),
    supportAddress: senderAddress(FROM_LOCAL),
  });
  return { server: started.server, accessLog };
}

/** The server's origin, with the port the system chose when the options asked for port 0. */
function serverOrigin(options: LocalServiceOptions, server: Server): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
}

/** The runtime file's record, field by field: the demo keys are printed once and never written anywhere. */
function runtimeRecord(service: ServiceSettings, dynamoDb: DynamoDbLocal | undefined) {
  return {
    pid: process.pid,
    apiBaseUrl: service.apiBaseUrl,
    activationBaseUrl: service.activationBaseUrl,
    dynamoDbEndpoint: service.dynamoDbEndpoint,
    tableName: service.tableName,
    secretsFile: service.secretsFile,
    outboxDirectory: service.outboxDirectory,
    awsEndpoint: service.awsEndpoint,
    secretArns: service.secretArns,
    secretAccessKey: service.secretAccessKey,
    ...(service.secretScanning ? { secretScanning: service.secretScanning } : {}),
    ...(dynamoDb?.process.pid ? { dynamoDbPid: dynamoDb.process.pid } : {}),
    startedAt: new Date().toISOString(),
  };
}

/** The running parts of a started service, and its directory. */
interface RunningParts {
  readonly server: Server;
  readonly events: LocalEventPipeline;
  readonly outbound: LocalOutboundPipe;
  readonly lambdas: LocalLambdaRuntime;
  readonly accessLog: AccessLogWriter;
  readonly aws: LocalAwsEndpoint;
  readonly dynamoDb: DynamoDbLocal | undefined;
  readonly directory: string;
}

/** The handle of a started service: what it is, and how to watch and stop it. */
function runningService(service: ServiceSettings, activationLink: string, parts: RunningParts): LocalService {
  const { server, events, outbound, lambdas, accessLog, aws, dynamoDb, directory } = parts;
  return {
    ...service,
    activationLink,
    awsCalls: () => aws.calls(),
    eventsSettled: () => events.settled(),
    outboundDelivered: () => outbound.caughtUp(),
    async memory() {
      // gc is there when the server runs with --expose-gc (the load test starts it so).
      (globalThis as { gc?: () => void }).gc?.();
      const serverHeapBytes = getHeapStatistics().used_heap_size;
      const { instances, usedHeapBytes } = await lambdas.heapAfterGc();
      return { serverHeapBytes, instances, instanceHeapBytes: usedHeapBytes };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await outbound.stop();
      await events.stop();
      await lambdas.stop();
      await accessLog.close();
      await aws.stop();
      await dynamoDb?.stop();
      await removeRuntime(directory, process.pid);
    },
  };
}

/** After a failed start: stops what had started, in the order `stop()` would. */
async function stopStarted(started: StartedParts, events: LocalEventPipeline): Promise<void> {
  started.server?.close();
  await started.outbound?.stop();
  await events.stop();
  await started.lambdas?.stop();
  await started.accessLog?.close();
  await started.aws?.stop();
  await started.dynamoDb?.stop();
}
