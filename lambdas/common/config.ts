import type { ServiceQueueName } from '../../core/event-delivery';
import { queueUrlVariable, SERVICE_QUEUE_NAMES } from '../../core/event-delivery';
import type { RuntimeSettings } from '../../core/runtime-settings';
import { readRuntimeSettings } from '../../core/runtime-settings';
import type { ServiceSecretName } from '../../core/service-secrets';
import { SERVICE_SECRET_NAMES, secretArnVariable } from '../../core/service-secrets';
import type { Stage } from '../../core/stages';
import { isStage, STAGES } from '../../core/stages';

/** Where the configuration comes from: variables by name, as the stack (or `npm start`) sets them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The service's settings, as a function (or a command of the operator CLI) runs with them: the
 * stage's runtime settings (`core/runtime-settings.ts`) and where everything is.
 */
export interface ServiceConfig extends RuntimeSettings {
  readonly stage: Stage;
  /** Absent for a function with no table: only reading the table asks for it. */
  readonly tableName?: string;
  /** ARNs of the secrets this process may read (the route table grants each function its own). */
  readonly secretArns: Partial<Record<ServiceSecretName, string>>;
  /** URLs of the queues this process may send to (the consumer's dead-letter queue; the CLI's). */
  readonly queueUrls: Partial<Record<ServiceQueueName, string>>;
  /** The stage's event bus of the platform's events (the operator CLI publishes to it). */
  readonly eventBusName?: string;
  /** The stage's bus of the events this service sends (`events resend` puts them on it again). */
  readonly outboundEventBusName?: string;
  /** The sender of the mail a function sends itself (a leaked key's notice): a verified SES identity. */
  readonly mailFrom?: string;
  /**
   * Locally only: where DynamoDB (Local) and the local Secrets Manager answer, and the credential
   * every call is signed with (the local AWS endpoint checks it). In AWS, the SDK's defaults apply.
   */
  readonly local?: {
    readonly dynamoDbEndpoint?: string;
    readonly secretsEndpoint?: string;
    /** Where the local SQS and EventBridge answer (the local AWS endpoint). */
    readonly sqsEndpoint?: string;
    readonly eventBridgeEndpoint?: string;
    /** Where the local SES answers (it writes the local outbox). */
    readonly sesEndpoint?: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  };
}

function read(environment: Environment, name: string): string | undefined {
  const value = environment[name]?.trim();
  return value === '' ? undefined : value;
}

function positiveInteger(environment: Environment, name: string, fallback: number): number {
  const value = read(environment, name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new Error(`${name} must be a positive integer; got "${value}".`);
  return number;
}

/** The settings an environment gives; a missing or malformed value is an error naming it. */
function configFrom(environment: Environment): ServiceConfig {
  const stage = read(environment, 'STAGE');
  if (stage === undefined)
    throw new Error('Environment variable STAGE is not set; the stack (or npm start) must provide it.');
  if (!isStage(stage)) throw new Error(`STAGE must be one of ${STAGES.join(', ')}; got "${stage}".`);
  const tableName = read(environment, 'TABLE_NAME');
  const dynamoDbEndpoint = read(environment, 'DYNAMODB_ENDPOINT');
  const secretsEndpoint = read(environment, 'AWS_ENDPOINT_URL_SECRETS_MANAGER');
  const sqsEndpoint = read(environment, 'AWS_ENDPOINT_URL_SQS');
  const eventBridgeEndpoint = read(environment, 'AWS_ENDPOINT_URL_EVENTBRIDGE');
  const eventBusName = read(environment, 'EVENT_BUS_NAME');
  const outboundEventBusName = read(environment, 'OUTBOUND_EVENT_BUS_NAME');
  const mailFrom = read(environment, 'MAIL_FROM');
  const sesEndpoint = read(environment, 'AWS_ENDPOINT_URL_SESV2');
  const localEndpoints = { dynamoDbEndpoint, secretsEndpoint, sqsEndpoint, eventBridgeEndpoint, sesEndpoint };
  return {
    stage,
    ...(tableName === undefined ? {} : { tableName }),
    ...readRuntimeSettings((variable, fallback) => positiveInteger(environment, variable, fallback)),
    secretArns: Object.fromEntries(
      SERVICE_SECRET_NAMES.flatMap((name) => {
        const arn = read(environment, secretArnVariable(name));
        return arn === undefined ? [] : [[name, arn]];
      }),
    ),
    queueUrls: Object.fromEntries(
      SERVICE_QUEUE_NAMES.flatMap((name) => {
        const url = read(environment, queueUrlVariable(name));
        return url === undefined ? [] : [[name, url]];
      }),
    ),
    ...(eventBusName === undefined ? {} : { eventBusName }),
    ...(outboundEventBusName === undefined ? {} : { outboundEventBusName }),
    ...(mailFrom === undefined ? {} : { mailFrom }),
    ...(Object.values(localEndpoints).every((endpoint) => endpoint === undefined)
      ? {}
      : {
          local: {
            ...Object.fromEntries(
              Object.entries(localEndpoints).filter(([, endpoint]) => endpoint !== undefined),
            ),
            credentials: {
              accessKeyId: read(environment, 'AWS_ACCESS_KEY_ID') ?? 'local',
              secretAccessKey: read(environment, 'AWS_SECRET_ACCESS_KEY') ?? 'local',
            },
          },
        }),
  };
}

let source: Environment | undefined;
let current: ServiceConfig | undefined;

/**
 * The settings, read on first use (and kept): from the process's environment in Lambda, or from
 * what `useServiceEnvironment` was given (the operator CLI's target, the local server, tests).
 */
export function serviceConfig(): ServiceConfig {
  current ??= configFrom(source ?? process.env);
  return current;
}

/**
 * Runs what follows against another environment's settings (a stage the CLI acts on, the local
 * server's DynamoDB): clients made for the previous settings are made again on next use.
 */
export function useServiceEnvironment(environment: Environment): void {
  source = environment;
  current = undefined;
}
