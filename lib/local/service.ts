import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { API_BASE_PATH, serviceFunctions } from '../../lambdas/routes';
import { FUNCTION_NODE_OPTIONS } from '../function-defaults';
import { LocalApiGateway } from './api-gateway';
import { bundleFunctions } from './bundles';
import type { DynamoDbLocal } from './dynamodb-local';
import { ensureTable, startDynamoDbLocal } from './dynamodb-local';
import type { HttpServerOptions } from './http-server';
import type { LambdaRuntimeOptions, LocalFunction } from './lambda-runtime';
import { DEFAULT_LAMBDA_RUNTIME_OPTIONS, LocalLambdaRuntime } from './lambda-runtime';
import { ensureSecretsFile, removeRuntime, writeRuntime } from './runtime';
import type { DemoKey } from './seed';

export const LOCAL_TABLE_NAME = 'partner-api-local';

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
  /** Receives one access-log line per request. */
  readonly log: (line: string) => void;
  /** The local Lambda runtime's instance cap and idle time. @default DEFAULT_LAMBDA_RUNTIME_OPTIONS */
  readonly lambda?: Partial<LambdaRuntimeOptions>;
}

export interface LocalService {
  readonly apiBaseUrl: string;
  readonly activationBaseUrl: string;
  readonly dynamoDbEndpoint: string;
  readonly tableName: string;
  readonly secretsFile: string;
  readonly outboxDirectory: string;
  readonly demoKeys: readonly DemoKey[];
  /** A fresh one-hour activation link of the demo partner, for a new demo host. */
  readonly activationLink: string;
  /** Heap of the server's own thread and of the idle Lambda instances, after a full GC where Node allows it. */
  memory(): Promise<{ serverHeapBytes: number; instances: number; instanceHeapBytes: number }>;
  stop(): Promise<void>;
}

/** A link as an operator would mint it with `links create`, for a host not yet onboarded. */
async function demoActivationLink(origin: string, outboxDirectory: string): Promise<string> {
  const { createActivationLink } = await import('../operations/links');
  const { outboxMailer } = await import('../operations/mailer');
  const { url } = await createActivationLink(
    {
      stage: 'local',
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

/** Every function of the route table, bundled from its source as the stack bundles it. */
async function bundledFunctions(
  directory: string,
  environment: Record<string, string>,
): Promise<LocalFunction[]> {
  const bundles = await bundleFunctions(serviceFunctions, directory);
  return serviceFunctions.map((spec) => ({
    name: spec.name,
    module: bundles.get(spec.name) ?? '',
    environment,
  }));
}

/** The environment the handlers read at cold start, as the stack sets it in AWS. */
export function localEnvironment(input: {
  dynamoDbEndpoint: string;
  secretsFile: string;
}): Record<string, string> {
  return {
    STAGE: 'local',
    TABLE_NAME: LOCAL_TABLE_NAME,
    DYNAMODB_ENDPOINT: input.dynamoDbEndpoint,
    SERVICE_SECRETS_FILE: input.secretsFile,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * Starts the whole service on one machine: DynamoDB Local (unless an endpoint is given), the
 * table from the stack's own definition, seed data, and the real handlers behind an API Gateway
 * emulation over HTTP.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  // Node 20 is supported here; the SDK's notice about its future Node 22 floor is noise in every run.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  await mkdir(options.directory, { recursive: true });
  const secretsFile = await ensureSecretsFile(options.directory);
  const outboxDirectory = join(options.directory, 'outbox');
  let ownDynamoDb: DynamoDbLocal | undefined;
  let server: Server | undefined;
  let lambdas: LocalLambdaRuntime | undefined;
  try {
    if (!options.dynamoDbEndpoint) {
      const dataDirectory = options.persist ? join(options.directory, 'dynamodb') : undefined;
      if (dataDirectory) await mkdir(dataDirectory, { recursive: true });
      ownDynamoDb = await startDynamoDbLocal(dataDirectory ? { dataDirectory } : {});
    }
    const dynamoDbEndpoint = options.dynamoDbEndpoint ?? ownDynamoDb?.endpoint ?? '';
    Object.assign(process.env, localEnvironment({ dynamoDbEndpoint, secretsFile }));
    process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
    await ensureTable(dynamoDbEndpoint, LOCAL_TABLE_NAME);
    // Imported only now: the data modules read the environment set above when they load.
    const { seedLocalData } = await import('./seed');
    const demoKeys = await seedLocalData(Date.now());
    const { startHttpServer } = await import('./http-server');
    lambdas = new LocalLambdaRuntime(
      await bundledFunctions(join(options.directory, 'bundles'), {
        ...localEnvironment({ dynamoDbEndpoint, secretsFile }),
        POWERTOOLS_SERVICE_NAME: 'partner-api',
        POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
        NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
      }),
      { ...DEFAULT_LAMBDA_RUNTIME_OPTIONS, ...options.lambda },
    );
    server = await startHttpServer({
      gateway: new LocalApiGateway(lambdas),
      host: options.host,
      port: options.port,
      log: options.log,
      observe: options.observe,
      docsDirectory: join(options.directory, 'docs'),
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const origin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    const activationLink = await demoActivationLink(origin, outboxDirectory);
    const service = {
      apiBaseUrl: origin + API_BASE_PATH,
      activationBaseUrl: origin,
      dynamoDbEndpoint,
      tableName: LOCAL_TABLE_NAME,
      secretsFile,
      outboxDirectory,
      demoKeys,
    };
    // Field by field: the demo keys are printed once and never written anywhere.
    await writeRuntime(options.directory, {
      pid: process.pid,
      apiBaseUrl: service.apiBaseUrl,
      activationBaseUrl: service.activationBaseUrl,
      dynamoDbEndpoint: service.dynamoDbEndpoint,
      tableName: service.tableName,
      secretsFile: service.secretsFile,
      outboxDirectory: service.outboxDirectory,
      startedAt: new Date().toISOString(),
    });
    const runningServer = server;
    const runningLambdas = lambdas;
    return {
      ...service,
      activationLink,
      async memory() {
        // gc is there when the server runs with --expose-gc (the load test starts it so).
        (globalThis as { gc?: () => void }).gc?.();
        const { getHeapStatistics } = await import('node:v8');
        const serverHeapBytes = getHeapStatistics().used_heap_size;
        const { instances, usedHeapBytes } = await runningLambdas.heapAfterGc();
        return { serverHeapBytes, instances, instanceHeapBytes: usedHeapBytes };
      },
      async stop() {
        runningServer.closeAllConnections();
        await new Promise<void>((resolve) => runningServer.close(() => resolve()));
        await runningLambdas.stop();
        await ownDynamoDb?.stop();
        await removeRuntime(options.directory, process.pid);
      },
    };
  } catch (error) {
    server?.close();
    await lambdas?.stop();
    await ownDynamoDb?.stop();
    throw error;
  }
}
