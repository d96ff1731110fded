import type { EvaluationResult } from '@cloud-copilot/iam-simulate';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App } from 'aws-cdk-lib';
import type { DeployedStage } from '../../core/stages';
import { addServiceStacks } from '../../lib/partner-api-stack';
import { stageConfig } from '../../lib/stage-config';
import { TEST_ALARM_TOPIC_ARN, TEST_BACKUP_COPY_VAULT_ARN, TEST_CUSTOM_DOMAIN } from '../infra/app-synthesis';

/**
 * The synthesized IAM policies of the functions, and what they allow, evaluated offline with
 * @cloud-copilot/iam-simulate (AWS's policy evaluation logic, with the condition keys of each
 * action). CloudFormation references are resolved to concrete ARNs of one fictitious account
 * and region, and any reference left unresolved fails loudly: the simulator would read a string
 * that is not an ARN as matching everything.
 */
export const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  readonly leadingKeys?: readonly string[];
  /** The attributes a read asks for (`dynamodb:Attributes`) and its `Select` (`dynamodb:Select`). */
  readonly attributes?: readonly string[];
  readonly select?: string;
  /** The sender of a message (`ses:FromAddress`). */
  readonly fromAddress?: string;
}
export interface FunctionPolicies {
  /** The function's name (its `service-function` tag) → its role's identity policy. */
  readonly policies: ReadonlyMap<string, unknown>;
  readonly tableArn: string;
  /** The ARN of each service secret, by name (`session`, `sealing`). */
  readonly secretArns: ReadonlyMap<string, string>;
  /** The ARN of each queue of the platform's events, by name (`platformEventsDeadLetter`). */
  readonly queueArns: ReadonlyMap<string, string>;
  /** The stage's mail sender in the template (locally the functions send from another). */
  readonly mailFrom: string;
}

/** The sender the synthesized stage is given: the identity a function's mail is sent from in AWS. */
const synthesizedMailFrom = (stage: DeployedStage) => `partners@${stage}.partner-api.dev`;

/** The stage's stack as `cdk synth` makes it, without bundling (the policies do not depend on it). */
export function synthesizedTemplate(stage: DeployedStage): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const [stack] = addServiceStacks(app, [
    stageConfig(stage, {
      mailFrom: synthesizedMailFrom(stage),
      alarmTopicArn: TEST_ALARM_TOPIC_ARN,
      ...(stage === 'production'
        ? { customDomain: TEST_CUSTOM_DOMAIN, backupCopyVaultArn: TEST_BACKUP_COPY_VAULT_ARN }
        : {}),
    }),
  ]);
  if (!stack) throw new Error(`no ${stage} stack`);
  return app.synth().getStackByName(stack.stackName).template as Template;
}

/** A concrete value for a CloudFormation expression of the template; throws on anything else. */
function resolver(template: Template) {
  const arnOf = (id: string): string => {
    const type = template.Resources[id]?.Type;
    if (type === 'AWS::DynamoDB::GlobalTable') return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}`;
    if (type === 'AWS::SecretsManager::Secret')
      return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`;
    if (type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
    if (type === 'AWS::SQS::Queue') return `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
    if (type === 'AWS::Lambda::Function') return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${id}`;
    // An alias's Ref is its ARN: its function's, qualified with its name.
    if (type === 'AWS::Lambda::Alias') {
      const { FunctionName, Name } = (template.Resources[id]?.Properties ?? {}) as {
        FunctionName: { Ref: string };
        Name: string;
      };
      return `${arnOf(FunctionName.Ref)}:${Name}`;
    }
    if (type === 'AWS::Events::EventBus') return `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${id}`;
    throw new Error(`No ARN for ${id} (${type})`);
  };
  /** A table's stream (`Fn::GetAtt: [table, StreamArn]`): the table's ARN and a stream label. */
  const streamArnOf = (id: string): string => {
    if (template.Resources[id]?.Type !== 'AWS::DynamoDB::GlobalTable') throw new Error(`No stream of ${id}`);
    return `${arnOf(id)}/stream/2026-01-01T00:00:00.000`;
  };
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': REGION,
    'AWS::AccountId': ACCOUNT,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    if (Array.isArray(value)) return value.map(resolve);
    const expression = value as Record<string, unknown>;
    if (typeof expression.Ref === 'string') return pseudo[expression.Ref] ?? arnOf(expression.Ref);
    const getAtt = expression['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt && getAtt[1] === 'Arn') return arnOf(getAtt[0]);
    if (getAtt && getAtt[1] === 'StreamArn') return streamArnOf(getAtt[0]);
    const join = expression['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(resolve).join(join[0]);
    if (value && typeof value === 'object' && Object.keys(expression).every((key) => !key.startsWith('Fn::')))
      return Object.fromEntries(Object.entries(expression).map(([key, entry]) => [key, resolve(entry)]));
    throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
  };
  return { resolve, arnOf, streamArnOf };
}

/** Each function's policy with concrete ARNs, and the table's and secrets' ARNs. */
export function functionPolicies(template: Template): FunctionPolicies {
  const { resolve, arnOf } = resolver(template);
  const byType = (type: string) =>
    Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
  const policies = new Map<string, unknown>();
  for (const [, fn] of byType('AWS::Lambda::Function')) {
    const name = (fn.Properties?.Tags as { Key: string; Value: string }[] | undefined)?.find(
      (tag) => tag.Key === 'service-function',
    )?.Value;
    const role = (fn.Properties?.Role as { 'Fn::GetAtt': [string, string] } | undefined)?.['Fn::GetAtt'][0];
    if (!name || !role) continue;
    const statements = byType('AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties?.Roles) === JSON.stringify([{ Ref: role }]))
      .flatMap(
        ([, policy]) =>
          (policy.Properties?.PolicyDocument as { Statement: unknown[] } | undefined)?.Statement ?? [],
      );
    const document = { Version: '2012-10-17', Statement: resolve(statements) as Record<string, unknown>[] };
    for (const statement of document.Statement)
      for (const resource of [statement.Resource].flat())
        if (resource !== '*' && !String(resource).startsWith('arn:'))
          throw new Error(`Not an ARN: ${resource}`);
    policies.set(name, document);
  }
  const [tableId] = byType('AWS::DynamoDB::GlobalTable').map(([id]) => id);
  if (!tableId) throw new Error('No table in the template');
  const secretArns = new Map(
    byType('AWS::SecretsManager::Secret').map(([id]) => [
      id.replace(/Secret.*$/, '').toLowerCase(),
      arnOf(id),
    ]),
  );
  // The queues a function may send to (the route table's `sendsTo`), by their logical ids
  // `PlatformEvents<Queue|DeadLetterQueue><hash>`; the other queues (the outbound pipe's and its
  // forwarding rule's dead-letter queues) no function sends to.
  const QUEUE_IDS = {
    PlatformEventsDeadLetterQueue: 'platformEventsDeadLetter',
    PlatformEventsQueue: 'platformEvents',
  };
  const queueArns = new Map(
    byType('AWS::SQS::Queue').flatMap(([id]) => {
      const name = Object.entries(QUEUE_IDS).find(([prefix]) =>
        new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id),
      )?.[1];
      return name ? [[name, arnOf(id)] as const] : [];
    }),
  );
  return {
    policies,
    tableArn: arnOf(tableId),
    secretArns,
    queueArns,
    mailFrom: synthesizedMailFrom('sandbox'),
  };
}

/**
 * The identity policy of any role of the template (every AWS::IAM::Policy attached to it), with
 * concrete ARNs: for roles no function has, like the outbound pipe's. Also gives the ARN the
 * resolver gives a resource, and a table's stream.
 */
export function rolePolicyOf(
  template: Template,
  roleId: string,
): { policy: unknown; arnOf: (id: string) => string; streamArnOf: (id: string) => string } {
  const { resolve, arnOf, streamArnOf } = resolver(template);
  const statements = Object.values(template.Resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(resource.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap(
      (policy) =>
        (policy.Properties?.PolicyDocument as { Statement: unknown[] } | undefined)?.Statement ?? [],
    );
  return { policy: { Version: '2012-10-17', Statement: resolve(statements) }, arnOf, streamArnOf };
}

/** AWS's decision on a request made with a function's role. */
export async function decision(policy: unknown, request: IamRequest): Promise<EvaluationResult> {
  const result = await runSimulation(
    {
      identityPolicies: [{ name: 'role', policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/function`,
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        contextVariables: {
          ...(request.leadingKeys ? { 'dynamodb:LeadingKeys': [...request.leadingKeys] } : {}),
          ...(request.attributes ? { 'dynamodb:Attributes': [...request.attributes] } : {}),
          ...(request.select ? { 'dynamodb:Select': request.select } : {}),
          ...(request.fromAddress ? { 'ses:FromAddress': request.fromAddress } : {}),
        },
      },
    },
    {},
  );
  if (result.resultType === 'error')
    throw new Error(`Cannot evaluate ${JSON.stringify(request)}: ${JSON.stringify(result.errors)}`);
  if (result.resultType !== 'single') throw new Error(`Not one resource: ${request.resource}`);
  const ignored = result.result.ignoredContextKeys ?? [];
  if (ignored.length > 0)
    throw new Error(`${request.action} ignores ${ignored.join(', ')}: the request is not what AWS sees`);
  return result.overallResult;
}

/** A recorded call of a local function, as the request AWS would authorize. */
export function requestOf(
  call: {
    action: string;
    resource?: string;
    leadingKeys?: readonly string[];
    secret?: string;
    queue?: string;
  },
  synthesized: FunctionPolicies,
): IamRequest {
  if (call.action.startsWith('sqs:'))
    return {
      action: call.action,
      resource: synthesized.queueArns.get(call.queue ?? '') ?? `unknown queue ${call.queue}`,
    };
  // Locally a function mails from the local sender; in AWS from the stage's, on that identity.
  if (call.action.startsWith('ses:'))
    return {
      action: call.action,
      resource: `arn:aws:ses:${REGION}:${ACCOUNT}:identity/${synthesized.mailFrom}`,
      fromAddress: synthesized.mailFrom,
    };
  if (call.action.startsWith('secretsmanager:'))
    return {
      action: call.action,
      resource: synthesized.secretArns.get(call.secret ?? '') ?? `unknown secret ${call.secret}`,
    };
  const index = /\/index\/(.+)$/.exec(call.resource ?? '')?.[1];
  return {
    action: call.action,
    resource: index ? `${synthesized.tableArn}/index/${index}` : synthesized.tableArn,
    ...(call.leadingKeys ? { leadingKeys: call.leadingKeys } : {}),
  };
}

/**
 * Checks every AWS call the local functions made against their synthesized policies: one
 * evaluation per function, action, resource and partition prefix. Returns what AWS would deny,
 * and the functions that made no call at all (nothing proven for them).
 */
export async function checkRecordedCalls(
  calls: readonly {
    caller: string;
    action: string;
    resource?: string;
    leadingKeys?: readonly string[];
    secret?: string;
    queue?: string;
  }[],
  functionNames: readonly string[],
): Promise<{ denied: string[]; distinct: number; silent: string[] }> {
  const synthesized = functionPolicies(synthesizedTemplate('sandbox'));
  const seen = new Map<string, (typeof calls)[number]>();
  for (const call of calls) {
    if (!functionNames.includes(call.caller)) continue; // the operator and the suite itself
    const prefixes = (call.leadingKeys ?? []).map((key) => key.replace(/#.*$/, '#')).join(',');
    seen.set(
      `${call.caller} ${call.action} ${call.resource ?? ''} ${prefixes} ${call.secret ?? call.queue ?? ''}`,
      call,
    );
  }
  const denied: string[] = [];
  for (const [described, call] of seen) {
    const result = await decision(synthesized.policies.get(call.caller), requestOf(call, synthesized));
    if (result !== 'Allowed')
      denied.push(
        `${described.trim()} (for example ${JSON.stringify(call.leadingKeys ?? call.secret)}): ${result}`,
      );
  }
  const callers = new Set([...seen.values()].map((call) => call.caller));
  return { denied, distinct: seen.size, silent: functionNames.filter((name) => !callers.has(name)) };
}

/** The functions that reach anything in AWS (the others have nothing to check). */
export function functionsWithAccess(
  specs: readonly {
    name: string;
    access: {
      table?: unknown;
      secrets?: readonly unknown[];
      sendsTo?: readonly unknown[];
      sendsMail?: boolean;
    };
  }[],
): string[] {
  return specs
    .filter(
      (spec) =>
        spec.access.table !== undefined ||
        (spec.access.secrets ?? []).length > 0 ||
        (spec.access.sendsTo ?? []).length > 0 ||
        spec.access.sendsMail === true,
    )
    .map((spec) => spec.name);
}
