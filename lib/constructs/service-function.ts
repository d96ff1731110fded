import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable, IPrincipal } from 'aws-cdk-lib/aws-iam';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledgeNagFinding } from './nag';
import { BUNDLING_DEFAULTS, baseEnvironment, LAMBDA_DEFAULTS } from './secure-defaults';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAMBDAS_DIRECTORY = fileURLToPath(new URL('../../lambdas/', import.meta.url));

export interface ServiceFunctionProps {
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
  /** @default LAMBDA_DEFAULTS.timeout (15 seconds) */
  readonly timeout?: Duration;
  /** @default LAMBDA_DEFAULTS.memorySize (512 MB) */
  readonly memorySize?: number;
}

/** Settings every function of the service shares: all but what names the function. */
export type FunctionSettings = Omit<ServiceFunctionProps, 'entry' | 'description'>;

/**
 * Table access of one function. `R` reads (GetItem, BatchGetItem, Query); `RW` also writes
 * (PutItem, UpdateItem, DeleteItem, BatchWriteItem, ConditionCheckItem; transactions need these
 * per item).
 */
export interface TableBinding {
  readonly table: ITableV2;
  readonly accessMode: 'R' | 'RW';
  /** Narrows the actions of the mode to these. @default - every action of the mode */
  readonly actions?: readonly string[];
  /**
   * Restricts the access to items whose partition key starts with one of these prefixes
   * (IAM condition `dynamodb:LeadingKeys`).
   * @default - every item
   */
  readonly partitionKeyPrefixes?: readonly string[];
  /** Global secondary indexes the function may query. @default - none */
  readonly indexNames?: readonly string[];
  /**
   * In `R` mode, the only write allowed: UpdateItem on items whose partition key starts with one
   * of these prefixes (a counter on the read path).
   * @default - no write
   */
  readonly updatablePartitionKeyPrefixes?: readonly string[];
  /**
   * In `R` mode, writes (PutItem, UpdateItem, ConditionCheckItem: what transactions need) on
   * items whose partition key starts with one of these prefixes.
   * @default - no write
   */
  readonly writablePartitionKeyPrefixes?: readonly string[];
}

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];
const INDEX_ACTIONS = ['dynamodb:Query'];

function leadingKeys(prefixes: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (prefixes === undefined) return undefined;
  if (prefixes.length === 0)
    throw new Error('partitionKeyPrefixes must not be empty: omit it to allow every item.');
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) } };
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
  public readonly function: NodejsFunction;
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
      environment: baseEnvironment(props.stage, props.logLevel ?? 'INFO'),
      ...(props.timeout ? { timeout: props.timeout } : {}),
      ...(props.memorySize ? { memorySize: props.memorySize } : {}),
    });
    acknowledgeNagFinding(
      this,
      'IAM5[Resource::*]',
      'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) supports no resource-level permissions. ' +
        'A validation of this construct fails the synthesis if any other action is granted on "*".',
    );
    this.node.addValidation({ validate: () => wildcardGrantsOtherThanXray(this.role) });
  }

  /** Grants table access as described by the binding and passes the table name (TABLE_NAME). */
  bindTable(binding: TableBinding): void {
    const { table } = binding;
    const modeActions = binding.accessMode === 'RW' ? [...READ_ACTIONS, ...WRITE_ACTIONS] : READ_ACTIONS;
    const actions = binding.actions ?? modeActions;
    const outsideMode = actions.filter((action) => !modeActions.includes(action));
    if (outsideMode.length > 0)
      throw new Error(`${outsideMode.join(', ')} not allowed in ${binding.accessMode} mode`);
    const conditions = leadingKeys(binding.partitionKeyPrefixes);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: [table.tableArn],
        ...(conditions ? { conditions } : {}),
      }),
    );
    const indexNames = binding.indexNames ?? [];
    const indexActions = actions.filter((action) => INDEX_ACTIONS.includes(action));
    if (indexNames.length > 0 && indexActions.length > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: indexActions,
          resources: indexNames.map((name) => `${table.tableArn}/index/${name}`),
        }),
      );
    }
    const updatable = binding.updatablePartitionKeyPrefixes;
    if (updatable !== undefined) {
      if (binding.accessMode !== 'R')
        throw new Error('updatablePartitionKeyPrefixes is for R mode; RW writes anywhere');
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: leadingKeys(updatable),
        }),
      );
    }
    const writable = binding.writablePartitionKeyPrefixes;
    if (writable !== undefined && writable.length > 0) {
      if (binding.accessMode !== 'R')
        throw new Error('writablePartitionKeyPrefixes is for R mode; RW writes anywhere');
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
          resources: [table.tableArn],
          conditions: leadingKeys(writable),
        }),
      );
    }
    this.function.addEnvironment('TABLE_NAME', table.tableName);
  }

  /**
   * Lets the function read the service secret (GetSecretValue only) and tells it where the
   * secret is (SERVICE_SECRETS_ARN): the ARN, never the value.
   */
  bindServiceSecret(secret: ISecret): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    this.function.addEnvironment('SERVICE_SECRETS_ARN', secret.secretArn);
  }
}
