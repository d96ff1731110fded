import type { BinaryLike, Hash, Hmac } from 'node:crypto';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { tableDefinition } from '../core/contract/table-definition';
import { emlFile, emlFileName } from '../core/domain/partner-mail';
import { quoted } from '../core/domain/text';
import type { ServiceQueueName } from '../core/event-delivery';
import { jsonOrUndefined } from '../core/json';
import type { ServiceSecretName } from '../core/service-secrets';
import { SERVICE_SECRET_NAMES } from '../core/service-secrets';
import type { LocalEventPipeline } from './event-pipeline';
import { answerQueueOrBusCall } from './event-pipeline';
import { LocalIam } from './iam-emulation';
import type { LocalLogsOptions } from './logs-emulation';
import { answerLogsCall } from './logs-emulation';
import { readBodyWithin } from './request-body';

/**
 * The AWS APIs the functions call, on one local address: DynamoDB requests go on to DynamoDB
 * Local, SQS and EventBridge calls to the local event pipeline (`event-pipeline.ts`), and Secrets
 * Manager's GetSecretValue is answered from the local secret file, so the
 * functions use the same SDK calls (by ARN) as in AWS. Each function signs its requests with its
 * own access key id (its name, as Lambda gives each function its role's credentials), so every
 * call can be recorded with the function that made it: the IAM tests check them against the
 * synthesized policies. Every request must carry a valid SigV4 signature made with the service's
 * local secret access key (random per start, given to the functions and, through the 0600 runtime
 * file, to the operator CLI): another local user cannot read the service secrets through it.
 *
 * For the deploy verification (`npm run verify -- --stage local`) it also answers what that command
 * asks of AWS: inline policies on a function's role, whose Deny statements then apply to the
 * function's DynamoDB calls (iam-emulation.ts), and the access log as a CloudWatch Logs group with
 * the stack's metric filters (logs-emulation.ts).
 */
export interface AwsCall {
  /** The access key id of the caller: a function's name, or `operator` for the CLI and seeding. */
  readonly caller: string;
  /** The IAM action, e.g. `dynamodb:GetItem` (a transaction counts as its items' actions). */
  readonly action: string;
  /** The table, or the table and `/index/<name>` for a query on an index; a queue's or bus's ARN. */
  readonly resource?: string;
  /** Partition-key values the call touches (`dynamodb:LeadingKeys`). */
  readonly leadingKeys?: readonly string[];
  /** The secret a GetSecretValue asked for: `session`, `sealing` or `cursor`. */
  readonly secret?: ServiceSecretName;
  /** The queue an SQS call was about. */
  readonly queue?: ServiceQueueName;
}

export interface LocalAwsEndpoint {
  readonly url: string;
  /** The local ARN of each secret (what `<NAME>_SECRET_ARN` holds locally). */
  readonly secretArns: Readonly<Record<ServiceSecretName, string>>;
  /** Calls recorded so far (only with `record`). */
  calls(): readonly AwsCall[];
  stop(): Promise<void>;
}

const localSecretArn = (name: ServiceSecretName) =>
  `arn:aws:secretsmanager:local:000000000000:secret:partner-api-local-${name}`;

type AttributeValue = { S?: string };
type Json = Record<string, unknown>;

/** The partition key of an item key or item, in DynamoDB's JSON. */
function partitionKeyOf(item: unknown): string | undefined {
  return (
    (item as Record<string, AttributeValue> | undefined)?.[tableDefinition.partitionKey] as AttributeValue
  )?.S;
}

/** The partition-key value a Query asks for: the equality on the (index) partition key. */
function queriedPartition(body: Json): string | undefined {
  const attribute = body.IndexName ? tableDefinition.globalIndex.partitionKey : tableDefinition.partitionKey;
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (body.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
  for (const condition of String(body.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const match = /^\s*\(?\s*([#\w]+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(condition);
    if (match && (names[match[1] ?? ''] ?? match[1]) === attribute) return values[match[2] ?? '']?.S;
  }
  return undefined;
}

const TRANSACTION_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** What a DynamoDB request does, as IAM sees it: one call, or one per item of a transaction. */
function dynamoDbCalls(caller: string, operation: string, body: Json): AwsCall[] {
  const call = (
    action: string,
    resource: string | undefined,
    leadingKeys: (string | undefined)[],
  ): AwsCall => ({
    caller,
    action,
    ...(resource ? { resource } : {}),
    leadingKeys: leadingKeys.filter((key): key is string => key !== undefined),
  });
  const table = typeof body.TableName === 'string' ? body.TableName : undefined;
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [call(`dynamodb:${operation}`, table, [partitionKeyOf(body.Key)])];
    case 'PutItem':
      return [call('dynamodb:PutItem', table, [partitionKeyOf(body.Item)])];
    case 'Query':
      return [
        call('dynamodb:Query', body.IndexName ? `${table}/index/${body.IndexName}` : table, [
          queriedPartition(body),
        ]),
      ];
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((body.TransactItems ?? []) as Record<string, Json>[]).flatMap((entry) =>
        Object.entries(entry).map(([kind, item]) =>
          call(TRANSACTION_ACTIONS[kind] ?? `dynamodb:${kind}`, String(item.TableName), [
            partitionKeyOf(item.Key ?? item.Item),
          ]),
        ),
      );
    case 'BatchGetItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>).map(
        ([name, request]) => call('dynamodb:BatchGetItem', name, (request.Keys ?? []).map(partitionKeyOf)),
      );
    case 'BatchWriteItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, Json[]>).map(([name, requests]) =>
        call(
          'dynamodb:BatchWriteItem',
          name,
          requests.map((entry) =>
            partitionKeyOf((entry.PutRequest as Json)?.Item ?? (entry.DeleteRequest as Json)?.Key),
          ),
        ),
      );
    default:
      return [{ caller, action: `dynamodb:${operation}`, ...(table ? { resource: table } : {}) }];
  }
}

/** SHA-256 and HMAC-SHA256 as the SigV4 signer expects them (`new (secret?)`, `update`, `digest`). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): BinaryLike =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

export class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/\d{8}\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** How far a request's signing time may be from the endpoint's clock, as AWS allows. */
const SIGNATURE_WINDOW_MS = 15 * 60_000;

/**
 * Whether a request carries a valid SigV4 signature by the holder of `secretAccessKey`: the
 * signature is computed again over the headers it says it signed and the body as received (a
 * signed `x-amz-content-sha256` is checked against the body, never trusted), at the time it says
 * it was made, which must be within 15 minutes of now, and compared in constant time.
 */
async function isSignedWith(
  request: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
  body: Buffer,
  secretAccessKey: string,
): Promise<boolean> {
  const [, accessKeyId = '', region = '', service = '', signedHeaders = '', signature = ''] =
    AUTHORIZATION.exec(String(request.headers.authorization ?? '')) ?? [];
  const date = AMZ_DATE.exec(String(request.headers['x-amz-date'] ?? ''));
  if (!signature || !date) return false;
  const [, year, month, day, hour, minute, second] = date.map(Number);
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return false;
  const signingDate = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second));
  if (Math.abs(Date.now() - signingDate.getTime()) > SIGNATURE_WINDOW_MS) return false;
  const headers = Object.fromEntries(names.map((name) => [name, String(request.headers[name] ?? '')]));
  // The payload hash the signature covers is the body's, whatever the header claims.
  if ('x-amz-content-sha256' in headers)
    headers['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  const url = new URL(request.url ?? '/', 'http://local');
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service,
    sha256: NodeSha256,
  });
  const signed = await signer.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: 'local',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
    },
    {
      signingDate,
      signableHeaders: new Set(names),
    },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1] ?? '';
  return (
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
  );
}

/** The service a request was signed for (SigV4 `Credential=<id>/<date>/<region>/<service>/…`). */
function signingServiceOf(request: IncomingMessage): string {
  return (
    /Credential=[^/,\s]+\/\d{8}\/[^/,\s]+\/([^/,\s]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? ''
  );
}

/** The access key id a request was signed with (SigV4 `Credential=<id>/…`). */
function callerOf(request: IncomingMessage): string {
  return /Credential=([^/,\s]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? 'unsigned';
}

/**
 * The most a request may carry: DynamoDB's largest (a BatchWriteItem of 16 MB), more than any
 * other service emulated here accepts.
 */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

function sendJson(
  response: ServerResponse,
  status: number,
  body: Json,
  contentType = 'application/x-amz-json-1.1',
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': crypto.randomUUID(),
  });
  response.end(text);
}

interface AwsEndpointOptions {
  readonly dynamoDbEndpoint: string;
  /** The local secret file (`{"masterKey": …}`), served as every secret's value. */
  readonly secretsFile: string;
  /** Keep every call (the integration suite's IAM check). */
  readonly record: boolean;
  /** What every request must be signed with. */
  readonly secretAccessKey: string;
  /** The queues and the bus of the platform's events. */
  readonly events?: LocalEventPipeline;
  /** The functions, whose roles (named after them) IAM calls may change. */
  readonly roles?: readonly string[];
  /** The access log as a CloudWatch Logs group. */
  readonly logs?: LocalLogsOptions;
  /** Where SES's SendEmail writes each message, as an `.eml` file (the local outbox). */
  readonly mailOutbox?: string;
  /** The secret scanning keys document (GitHub's format), served unsigned at `PUBLIC_KEYS_PATH`. */
  readonly secretScanningKeysFile?: string;
  /** Says on the terminal what the endpoint could not do (a call it answered with a failure). */
  readonly onNotice?: (line: string) => void;
}

/** Where the local endpoint publishes the secret scanning keys, as api.github.com does. */
export const PUBLIC_KEYS_PATH = '/meta/public_keys/secret_scanning';
const SES_SEND_EMAIL_PATH = '/v2/email/outbound-emails';

/** What the endpoint keeps while it runs, shared by every request. */
interface EndpointState {
  readonly options: AwsEndpointOptions;
  readonly dynamoDb: URL;
  readonly agent: Agent;
  readonly secretArns: Readonly<Record<ServiceSecretName, string>>;
  readonly recorded: AwsCall[];
  readonly iam: LocalIam;
}

/** One signed request: who sent it, the API operation it names (`X-Amz-Target`) and its body. */
interface SignedRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly body: Buffer;
  readonly target: string;
  readonly caller: string;
}

/** Starts the endpoint on a free loopback port. */
export async function startAwsEndpoint(options: AwsEndpointOptions): Promise<LocalAwsEndpoint> {
  const state: EndpointState = {
    options,
    dynamoDb: new URL(options.dynamoDbEndpoint),
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    secretArns: Object.fromEntries(
      SERVICE_SECRET_NAMES.map((name) => [name, localSecretArn(name)]),
    ) as Record<ServiceSecretName, string>,
    recorded: [],
    iam: new LocalIam(options.roles ?? []),
  };
  const server = createServer((request, response) => {
    answer(state, request, response).catch((error: unknown) => answerFailure(state, response, error));
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    secretArns: state.secretArns,
    calls: () => state.recorded,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      state.agent.destroy();
    },
  };
}

/** Checks the signature, then answers by the API the request names; what is left is DynamoDB's. */
async function answer(
  state: EndpointState,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readBodyWithin(request, MAX_REQUEST_BYTES);
  if (body === 'too-large') {
    // The rest is never read (nor held): the connection cannot carry another request.
    response.setHeader('Connection', 'close');
    sendJson(response, 413, {
      __type: 'RequestEntityTooLarge',
      message: `The request is larger than ${MAX_REQUEST_BYTES} bytes.`,
    });
    return;
  }
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  // Public, as GitHub's list is: a reporter's keys are what anyone may check a signature with.
  if (request.method === 'GET' && path === PUBLIC_KEYS_PATH && state.options.secretScanningKeysFile)
    return answerPublicKeys(state.options.secretScanningKeysFile, response);
  if (!(await isSignedWith(request, body, state.options.secretAccessKey))) {
    // What AWS answers a request signed with a key it does not know.
    sendJson(response, 403, {
      __type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
    return;
  }
  const call: SignedRequest = {
    request,
    response,
    body,
    target: String(request.headers['x-amz-target'] ?? ''),
    caller: callerOf(request),
  };
  const { events, logs } = state.options;
  const { target } = call;
  if (target.startsWith('secretsmanager.')) return answerSecretsManager(state, call);
  if (events && (target.startsWith('AmazonSQS.') || target.startsWith('AWSEvents.')))
    return answerQueueOrBus(state, events, call);
  if (target.startsWith('Logs_20140328.') && logs) return answerLogs(logs, call);
  if (!target && /(?:^|&)Action=/.test(body.toString()) && signingServiceOf(request) === 'iam')
    return answerIam(state.iam, call);
  if (
    !target &&
    signingServiceOf(request) === 'ses' &&
    path === SES_SEND_EMAIL_PATH &&
    state.options.mailOutbox
  )
    return answerSendEmail(state, state.options.mailOutbox, call);
  if (target.startsWith('DynamoDB_') && (await deniedDynamoDbCall(state, call))) return;
  // Everything else is DynamoDB: on to DynamoDB Local, unchanged.
  forwardToDynamoDb(state, call);
}

/**
 * What a call that failed in the emulation itself is answered: AWS's 500 `InternalFailure`, never a
 * server that stops (every call a caller may send is answered; what failed is said on the terminal).
 */
function answerFailure(state: EndpointState, response: ServerResponse, error: unknown): void {
  state.options.onNotice?.(
    `local AWS endpoint: a call failed here (${quoted(String((error as Error)?.message ?? error), 300)}); answered 500`,
  );
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, 500, {
    __type: 'InternalFailure',
    message: 'The request processing has failed because of an unknown error, exception or failure.',
  });
}

/** GetSecretValue of a service secret, answered from the local secret file; any other call is refused. */
async function answerSecretsManager(state: EndpointState, { body, target, caller, response }: SignedRequest) {
  const { SecretId } = JSON.parse(body.toString() || '{}') as { SecretId?: string };
  const name = SERVICE_SECRET_NAMES.find((candidate) => state.secretArns[candidate] === SecretId);
  if (state.options.record)
    state.recorded.push({
      caller,
      action: `secretsmanager:${target.slice('secretsmanager.'.length)}`,
      ...(name ? { secret: name } : {}),
    });
  if (target !== 'secretsmanager.GetSecretValue' || !name) {
    sendJson(response, 400, {
      __type: 'ResourceNotFoundException',
      message: 'Secrets Manager can\u2019t find the specified secret.',
    });
    return;
  }
  sendJson(response, 200, {
    ARN: SecretId,
    Name: `partner-api-local-${name}`,
    SecretString: await readFile(state.options.secretsFile, 'utf8'),
    VersionId: 'local',
    VersionStages: ['AWSCURRENT'],
  });
}

/**
 * The request's JSON object; a body that is not one is answered with AWS's 400 and gives undefined.
 */
function jsonBody({ body, response }: SignedRequest): Json | undefined {
  const json = jsonOrUndefined(body.toString() || '{}');
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as Json;
  sendJson(response, 400, { __type: 'SerializationException', message: 'The request is not a JSON object.' });
  return undefined;
}

/** An SQS or EventBridge call, answered by the local event pipeline. */
async function answerQueueOrBus(state: EndpointState, events: LocalEventPipeline, call: SignedRequest) {
  const json = jsonBody(call);
  if (json === undefined) return;
  const answer = await answerQueueOrBusCall(events, call.target, json);
  if (state.options.record)
    state.recorded.push({
      caller: call.caller,
      action: answer.action,
      ...(answer.resource ? { resource: answer.resource } : {}),
      ...(answer.queue ? { queue: answer.queue } : {}),
    });
  sendJson(
    call.response,
    answer.status,
    answer.body,
    call.target.startsWith('AmazonSQS.') ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1',
  );
}

/** The secret scanning keys document, read again on every request (so replacing the file rotates keys). */
async function answerPublicKeys(file: string, response: ServerResponse): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

/** SES v2's SendEmail of a plain-text message: written to the local outbox, as the CLI's mailer writes. */
async function answerSendEmail(state: EndpointState, outbox: string, call: SignedRequest): Promise<void> {
  const json = jsonBody(call);
  if (json === undefined) return;
  const from = String(json.FromEmailAddress ?? '');
  const to = ((json.Destination as Json | undefined)?.ToAddresses as string[] | undefined) ?? [];
  const simple = (
    json.Content as { Simple?: { Subject?: { Data?: string }; Body?: { Text?: { Data?: string } } } }
  )?.Simple;
  if (state.options.record)
    state.recorded.push({ caller: call.caller, action: 'ses:SendEmail', resource: from });
  if (
    !from ||
    to.length !== 1 ||
    simple?.Subject?.Data === undefined ||
    simple.Body?.Text?.Data === undefined
  ) {
    sendJson(
      call.response,
      400,
      { message: 'A plain-text message to one address, from the sender.' },
      'application/json',
    );
    return;
  }
  const date = new Date();
  const mail = { to: to[0] ?? '', subject: simple.Subject.Data, text: simple.Body.Text.Data };
  await mkdir(outbox, { recursive: true });
  await writeFile(join(outbox, emlFileName(mail.to, date)), emlFile(mail, from, date), { mode: 0o600 });
  sendJson(call.response, 200, { MessageId: `local-${crypto.randomUUID()}` }, 'application/json');
}

/** A CloudWatch Logs call about the access log. */
async function answerLogs(logs: LocalLogsOptions, call: SignedRequest) {
  const json = jsonBody(call);
  if (json === undefined) return;
  const answer = await answerLogsCall(logs, call.target.slice('Logs_20140328.'.length), json);
  sendJson(call.response, answer.status, answer.body);
}

/** An IAM query call (a role's inline policies), answered in XML as IAM does. */
async function answerIam(iam: LocalIam, { caller, body, response }: SignedRequest): Promise<void> {
  const answer = await iam.handle(caller, body.toString());
  response.writeHead(answer.status, {
    'Content-Type': 'text/xml',
    'Content-Length': Buffer.byteLength(answer.body),
    'x-amzn-RequestId': crypto.randomUUID(),
  });
  response.end(answer.body);
}

/**
 * Records a DynamoDB call (with `record`) and refuses it, as DynamoDB does, when an inline policy
 * of the caller's role denies it; true when it was refused.
 */
async function deniedDynamoDbCall(state: EndpointState, { caller, target, body, response }: SignedRequest) {
  const { options, iam } = state;
  if (!options.record && !iam.hasPolicies(caller)) return false;
  const operation = target.slice(target.indexOf('.') + 1);
  let calls: AwsCall[];
  try {
    calls = dynamoDbCalls(caller, operation, JSON.parse(body.toString() || '{}'));
  } catch {
    calls = [{ caller, action: `dynamodb:${operation}` }];
  }
  if (options.record) state.recorded.push(...calls);
  const denial = await iam.denied(caller, calls);
  if (!denial) return false;
  // What DynamoDB answers a call an identity-based policy denies.
  sendJson(
    response,
    400,
    { __type: 'com.amazon.coral.service#AccessDeniedException', Message: denial },
    'application/x-amz-json-1.0',
  );
  return true;
}

/** Sends the request on to DynamoDB Local unchanged, and its answer back. */
function forwardToDynamoDb(
  { dynamoDb, agent }: EndpointState,
  { request, response, body }: SignedRequest,
): void {
  const upstream = httpRequest(
    {
      host: dynamoDb.hostname,
      port: dynamoDb.port,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, host: dynamoDb.host },
      agent,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (error) => {
    // DynamoDB Local is unreachable: the caller sees a refused connection, as it would directly.
    request.socket.destroy(error);
  });
  upstream.end(body);
}
