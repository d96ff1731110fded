import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import { RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable, IPrincipal } from 'aws-cdk-lib/aws-iam';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceQueueName } from '../../core/event-delivery';
import { queueUrlVariable } from '../../core/event-delivery';
import type { FunctionAccess, ServiceSecretName, TableAccess } from '../../core/routes';
import type { RuntimeSettings } from '../../core/runtime-settings';
import { secretArnVariable } from '../../core/service-secrets';
import { senderAddress } from '../stage-config';
import {
  acknowledgeGuardFinding,
  acknowledgeLogGroupEncryption,
  acknowledgeNagFinding,
  acknowledgeShortLogRetention,
} from './nag';
import { BUNDLING_DEFAULTS, baseEnvironment, LAMBDA_DEFAULTS } from './secure-defaults';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAMBDAS_DIRECTORY = fileURLToPath(new URL('../../lambdas/', import.meta.url));

/** Tag that names each function as the route table does (`usage`, `authorizer`, `revealPage`...). */
const SERVICE_FUNCTION_TAG = 'service-function';

/** The alias every caller of a function invokes (API Gateway, the authorizer, event sources, the pipe). */
export const LIVE_ALIAS = 'live';

export interface ServiceFunctionProps {
  /** The function's name in the route table (`serviceFunctions`), set as its `service-function` tag. */
  readonly name: string;
  /** Handler module under `lambdas/`, exporting `handler` (the route table's `entry`). */
  readonly entry: string;
  /** Value of STAGE for the code. */
  readonly stage: string;
  readonly description: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** What happens to the log group when the stack is deleted. @default RemovalPolicy.DESTROY */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** @default 'INFO' */
  readonly logLevel?: string;
  /**
   * Lambda's own log lines (system logs; the JSON log format allows filtering them): at WARN, the
   * `platform.start` and `platform.report` lines of every invocation (INFO) are not written.
   * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html
   * @default 'INFO' (Lambda's default)
   */
  readonly systemLogLevel?: 'INFO' | 'WARN';
  /** The stage's settings its code reads (`core/runtime-settings.ts`). @default DEFAULT_RUNTIME_SETTINGS */
  readonly runtimeSettings?: RuntimeSettings;
  /** @default LAMBDA_DEFAULTS.timeout (15 seconds) */
  readonly timeout?: Duration;
  /** @default LAMBDA_DEFAULTS.memorySize (512 MB) */
  readonly memorySize?: number;
}

/** Settings every function of the service shares: all but what names the function. */
export type FunctionSettings = Omit<ServiceFunctionProps, 'name' | 'entry' | 'description'>;

/** The IAM action of each kind of table access of the route table (`TableAccess`). */
const TABLE_ACTIONS = {
  getItem: 'dynamodb:GetItem',
  query: 'dynamodb:Query',
  updateItem: 'dynamodb:UpdateItem',
  putItem: 'dynamodb:PutItem',
  deleteItem: 'dynamodb:DeleteItem',
  conditionCheckItem: 'dynamodb:ConditionCheckItem',
} as const satisfies Record<Exclude<keyof TableAccess, 'queryIndex'>, string>;

/** What a function's grants refer to. */
export interface AccessResources {
  readonly table: ITableV2;
  /** The global index the route table's `queryIndex` means. */
  readonly indexName: string;
  readonly secrets: Readonly<Record<ServiceSecretName, ISecret>>;
  /** The queues a function's `sendsTo` names (only the functions of the construct that makes them). */
  readonly queues?: Readonly<Partial<Record<ServiceQueueName, IQueue>>>;
  /** The stage's mail sender (`mailFrom`), for a function that `sendsMail`. */
  readonly mailFrom?: string;
}

/**
 * Only items whose partition key starts with one of the prefixes; and the key must be known to
 * the request (a missing `dynamodb:LeadingKeys` would satisfy `ForAllValues` by itself).
 */
function leadingKeys(prefixes: readonly string[]): Record<string, unknown> {
  if (prefixes.length === 0) throw new Error('A grant needs at least one partition-key prefix.');
  return {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
    Null: { 'dynamodb:LeadingKeys': 'false' },
  };
}

/** Statements of the role's policy that grant anything but X-Ray on every resource. */
function wildcardGrantsOtherThanXray(role: Role): string[] {
  const policy = role.node.tryFindChild('DefaultPolicy');
  if (!(policy instanceof Policy)) return [];
  const document: unknown = Stack.of(role).resolve(policy.document.toJSON());
  const statements =
    (document as { Statement?: { Action?: string | string[]; Resource?: string | string[] }[] })?.Statement ??
    [];
  return statements
    .filter((statement) => [statement.Resource ?? []].flat().includes('*'))
    .flatMap((statement) => [statement.Action ?? []].flat())
    .filter((action) => !action.startsWith('xray:'))
    .map(
      (action) => `${action} is granted on every resource; only X-Ray may be (see the IAM5 acknowledgment)`,
    );
}

/**
 * One Lambda function of the service with the shared defaults (Node.js 24 on ARM64, ESM bundle
 * with source maps, X-Ray, JSON logs in its own log group with retention) and a role that holds
 * only what it is granted here: no managed policy, not even AWSLambdaBasicExecutionRole.
 */
export class ServiceFunction extends Construct implements IGrantable {
  /** The function itself: its metrics, environment and concurrency. Callers invoke {@link live}. */
  public readonly function: NodejsFunction;
  /**
   * The `live` alias on the version this deployment published: what API Gateway, the authorizer,
   * the event source mapping and the pipe invoke, and what CodeDeploy shifts from one version to
   * the next (the stack's safe deployments; docs/deploying.md#safe-deployments).
   */
  public readonly live: Alias;
  public readonly role: Role;
  public readonly logGroup: LogGroup;
  public readonly grantPrincipal: IPrincipal;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (Lambda execution role)`,
    });
    this.logGroup.grantWrite(this.role);
    this.grantPrincipal = this.role;
    this.function = new NodejsFunction(this, 'Function', {
      ...LAMBDA_DEFAULTS,
      entry: LAMBDAS_DIRECTORY + props.entry,
      handler: 'handler',
      projectRoot: REPOSITORY_ROOT,
      depsLockFilePath: `${REPOSITORY_ROOT}package-lock.json`,
      bundling: BUNDLING_DEFAULTS,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      environment: baseEnvironment(props.stage, props.logLevel ?? 'INFO', props.runtimeSettings),
      systemLogLevelV2: SystemLogLevel[props.systemLogLevel ?? 'INFO'],
      ...(props.timeout ? { timeout: props.timeout } : {}),
      ...(props.memorySize ? { memorySize: props.memorySize } : {}),
    });
    Tags.of(this.function).add(SERVICE_FUNCTION_TAG, props.name);
    // A new version whenever the code or configuration changes (`currentVersion` hashes both, the
    // environment added later included); the alias starts on it and CodeDeploy moves it after.
    this.live = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.function.currentVersion });
    acknowledgeLogGroupEncryption(this.logGroup);
    acknowledgeShortLogRetention(this.logGroup, props.logRetention ?? RetentionDays.ONE_MONTH);
    acknowledgeGuardFinding(
      this.function,
      'lambda_inside_vpc_check',
      'The functions reach only DynamoDB and Secrets Manager, over their public regional endpoints with IAM ' +
        'authentication and TLS; they hold no private network resource to reach. A VPC would add NAT gateways or ' +
        'interface endpoints (a monthly price per availability zone) and cold-start latency for no protection this ' +
        'service needs.',
    );
    acknowledgeNagFinding(
      this,
      'IAM5[Resource::*]',
      'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) supports no resource-level permissions. ' +
        'A validation of this construct fails the synthesis if any other action is granted on "*".',
    );
    this.node.addValidation({ validate: () => wildcardGrantsOtherThanXray(this.role) });
  }

  /**
   * Grants exactly the access the route table declares for the function: each table action on
   * the partition prefixes it names (no Scan, no BatchGetItem, nothing on other items), read
   * access to the secrets it names and sending to the queues it names; passes their names, ARNs
   * and URLs in its environment.
   */
  grantAccess(access: FunctionAccess, resources: AccessResources): void {
    const { table } = access;
    if (table) {
      for (const [kind, action] of Object.entries(TABLE_ACTIONS) as [keyof typeof TABLE_ACTIONS, string][]) {
        const prefixes = table[kind];
        if (!prefixes) continue;
        this.role.addToPrincipalPolicy(
          new PolicyStatement({
            actions: [action],
            resources: [resources.table.tableArn],
            conditions: leadingKeys(prefixes),
          }),
        );
      }
      if (table.queryIndex) {
        this.role.addToPrincipalPolicy(
          new PolicyStatement({
            actions: ['dynamodb:Query'],
            resources: [`${resources.table.tableArn}/index/${resources.indexName}`],
            conditions: leadingKeys(table.queryIndex),
          }),
        );
      }
      this.function.addEnvironment('TABLE_NAME', resources.table.tableName);
    }
    for (const name of access.secrets ?? []) {
      const secret = resources.secrets[name];
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
      );
      this.function.addEnvironment(secretArnVariable(name), secret.secretArn);
    }
    for (const name of access.sendsTo ?? []) {
      const queue = resources.queues?.[name];
      if (!queue) throw new Error(`No ${name} queue to grant ${this.node.path}: give it in the resources.`);
      // SendMessage alone (grantSendMessages adds GetQueueAttributes and GetQueueUrl); the queues use
      // SQS-managed encryption, so no KMS grant goes with it.
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
      );
      this.function.addEnvironment(queueUrlVariable(name), queue.queueUrl);
    }
    if (access.sendsMail) this.grantSendingMail(resources.mailFrom);
  }

  /**
   * SES's SendEmail from the stage's sender only: on its identity (the address, or its domain,
   * whichever is verified) with `ses:FromAddress` pinned to it
   * (https://docs.aws.amazon.com/ses/latest/dg/control-user-access.html).
   */
  private grantSendingMail(mailFrom: string | undefined): void {
    if (!mailFrom)
      throw new Error(`${this.node.path} sends mail: give the stage's mailFrom in the resources.`);
    const address = senderAddress(mailFrom);
    const domain = address.slice(address.lastIndexOf('@') + 1);
    const stack = Stack.of(this);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [address, domain].map((identity) =>
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
        ),
        conditions: { StringEquals: { 'ses:FromAddress': address } },
      }),
    );
    this.function.addEnvironment('MAIL_FROM', mailFrom);
  }
}
