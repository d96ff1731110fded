import { randomUUID } from 'node:crypto';

/**
 * IAM as the local endpoint emulates it: the inline policies an operator puts on a function's
 * role (`PutRolePolicy`, `DeleteRolePolicy`, `ListRolePolicies`, AWS's Query protocol), and their
 * Deny statements enforced on that function's DynamoDB calls. A function's role is named after
 * the function (its access key id). Allow statements add nothing here: what a function may do is
 * its synthesized policy, which the integration suite checks every call against. The statements
 * are evaluated with @cloud-copilot/iam-simulate, AWS's policy logic with each action's condition
 * keys, loaded on the first evaluation.
 *
 * This is how `npm run verify` makes the authorizer fail for real, locally as on AWS: it denies the
 * authorizer's role the read of key records that were never issued (docs/deploying.md).
 */
export interface DynamoDbRequest {
  readonly action: string;
  /** The table's or index's name, as the call names it. */
  readonly resource?: string;
  readonly leadingKeys?: readonly string[];
}

const IAM_XMLNS = 'https://iam.amazonaws.com/doc/2010-05-08/';
const LOCAL_ACCOUNT = '000000000000';
const POLICY_NAME = /^[\w+=,.@-]{1,128}$/;

export interface IamAnswer {
  readonly status: number;
  readonly body: string;
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);

function answer(action: string, result = ''): IamAnswer {
  return {
    status: 200,
    body: `<${action}Response xmlns="${IAM_XMLNS}">${result}<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
  };
}

function error(status: number, code: string, message: string): IamAnswer {
  return {
    status,
    body: `<ErrorResponse xmlns="${IAM_XMLNS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

type Statement = { Effect?: unknown; Action?: unknown; Resource?: unknown };

/** The ARN of a local table or index, as the policies of a deployment would name it. */
const localDynamoDbArn = (resource: string) => `arn:aws:dynamodb:local:${LOCAL_ACCOUNT}:table/${resource}`;

export class LocalIam {
  /** Role name → policy name → document. */
  private readonly inline = new Map<string, Map<string, unknown>>();

  constructor(private readonly roles: readonly string[]) {}

  /** Answers an IAM Query-protocol request (form-encoded `Action=…`). Only the operator may call IAM. */
  async handle(caller: string, body: string): Promise<IamAnswer> {
    const form = new URLSearchParams(body);
    const action = form.get('Action') ?? '';
    if (caller !== 'operator')
      return error(
        403,
        'AccessDenied',
        `User: ${caller} is not authorized to perform: iam:${action}: only the operator may change roles locally.`,
      );
    const roleName = form.get('RoleName') ?? '';
    if (!['PutRolePolicy', 'DeleteRolePolicy', 'ListRolePolicies'].includes(action))
      return error(400, 'InvalidAction', `The local endpoint does not answer iam:${action}.`);
    if (!this.roles.includes(roleName))
      return error(
        404,
        'NoSuchEntity',
        `The role with name ${roleName} cannot be found. Local roles are named after their functions: ${this.roles.join(', ')}.`,
      );
    const policies = this.inline.get(roleName) ?? new Map<string, unknown>();
    if (action === 'ListRolePolicies')
      return answer(
        action,
        `<ListRolePoliciesResult><PolicyNames>${[...policies.keys()].map((name) => `<member>${escapeXml(name)}</member>`).join('')}</PolicyNames><IsTruncated>false</IsTruncated></ListRolePoliciesResult>`,
      );
    const policyName = form.get('PolicyName') ?? '';
    if (!POLICY_NAME.test(policyName))
      return error(400, 'ValidationError', `Invalid policy name "${policyName}".`);
    if (action === 'DeleteRolePolicy') {
      if (!policies.delete(policyName))
        return error(404, 'NoSuchEntity', `The role policy with name ${policyName} cannot be found.`);
      return answer(action);
    }
    let document: { Statement?: unknown };
    try {
      document = JSON.parse(form.get('PolicyDocument') ?? '') as { Statement?: unknown };
    } catch {
      return error(400, 'MalformedPolicyDocument', 'The policy document is not JSON.');
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      return error(400, 'MalformedPolicyDocument', 'The policy document is not a JSON object.');
    const size = [...policies.entries()]
      .filter(([name]) => name !== policyName)
      .reduce((sum, [, other]) => sum + policySize(other), policySize(document));
    if (size > MAX_INLINE_POLICY_CHARACTERS)
      return error(
        409,
        'LimitExceeded',
        `Maximum policy size of ${MAX_INLINE_POLICY_CHARACTERS} bytes exceeded for role ${roleName}`,
      );
    if (mostWildcards(document) > MAX_WILDCARDS)
      return error(
        400,
        'MalformedPolicyDocument',
        `A value has more than ${MAX_WILDCARDS} wildcards: the local IAM emulation matches them by backtracking, which so many would stall (IAM itself takes them).`,
      );
    const statements = [document.Statement ?? []].flat() as Statement[];
    if (
      statements.length === 0 ||
      statements.some((statement) => statement.Effect !== 'Deny' && statement.Effect !== 'Allow')
    )
      return error(400, 'MalformedPolicyDocument', 'Every statement needs an Effect of Allow or Deny.');
    // A document the simulator cannot read is refused now, as IAM refuses it, not on the
    // function's next call.
    const trial = await simulate(roleName, [[policyName, document]], { action: 'dynamodb:GetItem' });
    if (trial.resultType === 'error')
      return error(
        400,
        'MalformedPolicyDocument',
        `The policy document is not valid: ${JSON.stringify(trial.errors).slice(0, 500)}`,
      );
    policies.set(policyName, document);
    this.inline.set(roleName, policies);
    return answer(action);
  }

  /** Whether a role has an inline policy at all (the common case, none, costs no evaluation). */
  hasPolicies(roleName: string): boolean {
    return (this.inline.get(roleName)?.size ?? 0) > 0;
  }

  /**
   * The first of the calls an inline policy of the role explicitly denies, with AWS's message; or
   * undefined when none is denied.
   */
  async denied(roleName: string, calls: readonly DynamoDbRequest[]): Promise<string | undefined> {
    const policies = [...(this.inline.get(roleName)?.entries() ?? [])];
    if (policies.length === 0) return undefined;
    for (const call of calls) {
      const resource = localDynamoDbArn(call.resource ?? '*');
      const result = await simulate(roleName, policies, call);
      if (result.resultType === 'error')
        throw new Error(
          `Cannot evaluate ${call.action} against ${roleName}: ${JSON.stringify(result.errors)}`,
        );
      if (result.overallResult === 'ExplicitlyDenied')
        return `User: arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${roleName}/${roleName} is not authorized to perform: ${call.action} on resource: ${resource} with an explicit deny in an identity-based policy`;
    }
    return undefined;
  }
}

/**
 * What IAM counts of a role's inline policies: their characters without white space, at most 10,240
 * for all of a role's together (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
 */
const MAX_INLINE_POLICY_CHARACTERS = 10_240;
const policySize = (document: unknown) => JSON.stringify(document).replace(/\s/g, '').length;

/** Most wildcards one value may have here: far more than a real policy uses. */
const MAX_WILDCARDS = 8;
function mostWildcards(value: unknown): number {
  if (typeof value === 'string') return (value.match(/[*?]/g) ?? []).length;
  if (typeof value !== 'object' || value === null) return 0;
  return Math.max(
    0,
    ...Object.entries(value).map(([key, inner]) => Math.max(mostWildcards(key), mostWildcards(inner))),
  );
}

/** IAM's evaluation of one call against a role's inline policies (and an Allow of everything). */
async function simulate(
  roleName: string,
  policies: readonly (readonly [string, unknown])[],
  call: Pick<DynamoDbRequest, 'action' | 'resource' | 'leadingKeys'>,
) {
  const { runSimulation } = await import('@cloud-copilot/iam-simulate');
  const allowAll = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };
  return runSimulation(
    {
      identityPolicies: [
        { name: 'function', policy: allowAll },
        ...policies.map(([name, policy]) => ({ name, policy })),
      ],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        principal: `arn:aws:iam::${LOCAL_ACCOUNT}:role/${roleName}`,
        action: call.action,
        resource: { resource: localDynamoDbArn(call.resource ?? '*'), accountId: LOCAL_ACCOUNT },
        contextVariables: call.leadingKeys ? { 'dynamodb:LeadingKeys': [...call.leadingKeys] } : {},
      },
    },
    {},
  );
}
