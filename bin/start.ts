import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LAMBDA_RUNTIME_OPTIONS } from '../emulator/lambda-runtime';
import { localDirectory } from '../emulator/runtime';
import { startLocalService } from '../emulator/service';
import { pendingMigrationLines } from '../operations/data-migrations';

const USAGE = `Usage: npm start [-- --persist] [-- --quiet] [-- --max-instances N] [-- --idle-seconds S]
  Serves the partner API and pages on HOST:PORT (default 127.0.0.1:3000) against DynamoDB Local.
  --persist          keep data in .local/dynamodb between runs (default: in memory)
  --quiet            no access log on the terminal (.local/access-log.jsonl is still written;
                     what went wrong is still said)
  --max-instances N  Lambda instances per function at most (default ${DEFAULT_LAMBDA_RUNTIME_OPTIONS.maxInstances}; env LOCAL_LAMBDA_MAX_INSTANCES)
  --idle-seconds S   an instance idle this long is retired (default ${DEFAULT_LAMBDA_RUNTIME_OPTIONS.idleSeconds}; env LOCAL_LAMBDA_IDLE_SECONDS)
  --bundles DIR      run the bundles "npm run synth" built into DIR (cdk.out), with the template's
                     environment, instead of bundling the sources (env PARTNER_API_BUNDLES)
  DYNAMODB_ENDPOINT=http://host:port uses that DynamoDB (Local) instead of starting one.
  SECRET_SCANNING_KEYS_FILE=FILE trusts the secret scanning keys in FILE (GitHub's format) instead of
                     a key pair of its own (which "npm run admin -- keys report-leak" signs with).`;

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new Error(`${name} must be a positive integer; got "${value}".`);
  return number;
}

function readOptions() {
  try {
    const { values } = parseArgs({
      options: {
        persist: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        'max-instances': { type: 'string' },
        'idle-seconds': { type: 'string' },
        bundles: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const port = Number(process.env.PORT ?? 3000);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new Error(`PORT must be a port number; got "${process.env.PORT}".`);
    const lambda = {
      maxInstances: positiveInteger(
        '--max-instances',
        values['max-instances'] ?? process.env.LOCAL_LAMBDA_MAX_INSTANCES,
        DEFAULT_LAMBDA_RUNTIME_OPTIONS.maxInstances,
      ),
      idleSeconds: positiveInteger(
        '--idle-seconds',
        values['idle-seconds'] ?? process.env.LOCAL_LAMBDA_IDLE_SECONDS,
        DEFAULT_LAMBDA_RUNTIME_OPTIONS.idleSeconds,
      ),
    };
    return {
      persist: values.persist,
      quiet: values.quiet,
      bundles: values.bundles ?? process.env.PARTNER_API_BUNDLES,
      lambda,
      port,
      host: process.env.HOST ?? '127.0.0.1',
    };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const options = readOptions();
// A DynamoDB of the operator's own, if named: the banner says which one the server uses.
const externalDynamoDb = process.env.DYNAMODB_ENDPOINT;
const started = performance.now();
// This process's own DynamoDB calls (the seeding) answer no caller: they may wait longer than a
// function's 2.5 s on a busy machine (lambdas/data/db.ts). The functions keep theirs.
process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '10000';
try {
  const service = await startLocalService({
    host: options.host,
    port: options.port,
    directory: localDirectory(),
    persist: options.persist,
    dynamoDbEndpoint: externalDynamoDb,
    secretScanningKeysFile: process.env.SECRET_SCANNING_KEYS_FILE,
    lambda: options.lambda,
    ...(options.bundles ? { deployedBundles: options.bundles } : {}),
    log: options.quiet ? () => undefined : (line) => console.log(line),
    notice: (line) => console.error(line),
    progress: (line) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${line}`),
  });
  const [demo, metricsOnly] = service.demoKeys;
  const lines = [
    '',
    `Partner API (local) is up in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    `  API base URL:   ${service.apiBaseUrl}`,
    `  API reference:  ${service.apiBaseUrl}/docs (OpenAPI document: ${service.apiBaseUrl}/openapi.json)`,
    `  Pages:          ${service.activationBaseUrl}/ (reveal and activation links)`,
    `  DynamoDB:       ${service.dynamoDbEndpoint} (${externalDynamoDb ? 'external, from DYNAMODB_ENDPOINT' : options.persist ? 'DynamoDB Local, data in .local/dynamodb' : 'DynamoDB Local in memory; --persist keeps data'})`,
    `  Lambda runtime: up to ${options.lambda.maxInstances} instances per function (worker threads), idle ones retired after ${options.lambda.idleSeconds} s`,
    `  Functions:      ${options.bundles ? `the bundles synthesized into ${options.bundles} (the sandbox stack)` : 'bundled from the sources at start, as the stack bundles them'}`,
    `  Platform inbox: the events this service sends the platform (HostProvisioned, KnowledgeBaseSubmitted, HostErased),`,
    `                  in the SQS queue ${service.platformInboxUrl}`,
    `                  (a local platform reads it with the AWS SDK's ReceiveMessage, signed with secretAccessKey of ${relative(process.cwd(), join(localDirectory(), 'runtime', `${process.pid}.json`))};`,
    '                  npm run admin -- events sent lists them)',
  ];
  if (demo) {
    lines.push(
      '',
      `Demo partner "${demo.partnerSlug}" (${demo.scopes.join(', ')}), key shown once per start:`,
      `  ${demo.key}`,
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${demo.key}" ${service.apiBaseUrl}/usage`,
      `  curl -s -H "Authorization: Bearer ${demo.key}" ${service.apiBaseUrl}/properties`,
      `  curl -s -H "Authorization: Bearer ${demo.key}" "${service.apiBaseUrl}/properties/2/pricing-signals?lookback_days=30"`,
    );
  }
  if (metricsOnly) {
    lines.push(
      '',
      `Metrics-only partner "${metricsOnly.partnerSlug}" (${metricsOnly.scopes.join(', ')}; 403 on /properties):`,
      `  ${metricsOnly.key}`,
    );
  }
  lines.push(...(await pendingMigrations(options.persist || externalDynamoDb !== undefined)));
  lines.push(
    '',
    'Activation link for a new demo host (works once, for one hour; open it in a browser):',
    `  ${service.activationLink}`,
    '',
    'Operator CLI: npm run admin -- --help',
    'Ctrl-C stops the server and DynamoDB Local.',
    '',
  );
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping...`);
    await service.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // The terminal closing: without this, Node.js ends at once and DynamoDB Local outlives it.
  process.on('SIGHUP', () => {
    // The terminal may be gone: writing to it must not end the process before it has stopped.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    void stop('SIGHUP');
  });
  // kill -USR2 <pid>: what the server and its Lambda instances hold, to tell a leak from heap growth.
  process.on('SIGUSR2', async () => {
    const { serverHeapBytes, instances, instanceHeapBytes } = await service.memory();
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `memory: server heap ${mib(serverHeapBytes)} MiB; ${instances} idle Lambda instances hold ${mib(instanceHeapBytes)} MiB after GC`,
    );
  });
} catch (error) {
  const message = (error as Error).message;
  const hint = /EADDRINUSE/.test(message)
    ? `\nPort ${options.port} is in use: stop the other server or run PORT=3001 npm start.`
    : '';
  console.error(`Could not start the local service: ${message}${hint}`);
  process.exit(1);
}

/**
 * On a table kept from an earlier run (`--persist`, or an external DynamoDB), the data migrations
 * its data has not had yet (docs/design/data-migrations.md); a table made at this start has
 * nothing older to bring along.
 */
async function pendingMigrations(kept: boolean): Promise<string[]> {
  const lines = kept ? await pendingMigrationLines() : [];
  return lines.length > 0 ? ['', ...lines] : [];
}
