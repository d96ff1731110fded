import { parseArgs } from 'node:util';
import { localDirectory } from '../lib/local/runtime';
import { startLocalService } from '../lib/local/service';

const USAGE = `Usage: npm start [-- --persist] [-- --quiet]
  Serves the partner API and pages on HOST:PORT (default 127.0.0.1:3000) against DynamoDB Local.
  --persist   keep data in .local/dynamodb between runs (default: in memory)
  --quiet     no access log
  DYNAMODB_ENDPOINT=http://host:port uses that DynamoDB (Local) instead of starting one.`;

function readOptions() {
  try {
    const { values } = parseArgs({
      options: {
        persist: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
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
    return { persist: values.persist, quiet: values.quiet, port, host: process.env.HOST ?? '127.0.0.1' };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const options = readOptions();
// Read before the service starts: it sets DYNAMODB_ENDPOINT for the handlers it runs.
const externalDynamoDb = process.env.DYNAMODB_ENDPOINT;
const started = performance.now();
try {
  const service = await startLocalService({
    host: options.host,
    port: options.port,
    directory: localDirectory(),
    persist: options.persist,
    dynamoDbEndpoint: externalDynamoDb,
    log: options.quiet ? () => undefined : (line) => console.log(line),
  });
  const [demo, metricsOnly] = service.demoKeys;
  const lines = [
    '',
    `Partner API (local) is up in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    `  API base URL:   ${service.apiBaseUrl}`,
    `  Pages:          ${service.activationBaseUrl} (reveal and activation links)`,
    `  DynamoDB:       ${service.dynamoDbEndpoint} (${externalDynamoDb ? 'external, from DYNAMODB_ENDPOINT' : options.persist ? 'DynamoDB Local, data in .local/dynamodb' : 'DynamoDB Local in memory; --persist keeps data'})`,
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
} catch (error) {
  const message = (error as Error).message;
  const hint = /EADDRINUSE/.test(message)
    ? `\nPort ${options.port} is in use: stop the other server or run PORT=3001 npm start.`
    : '';
  console.error(`Could not start the local service: ${message}${hint}`);
  process.exit(1);
}
