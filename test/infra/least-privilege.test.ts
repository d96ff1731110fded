import { beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_QUEUE_NAMES } from '../../core/event-delivery';
import * as partitions from '../../core/partitions';
import type { FunctionAccess, TableAccess } from '../../core/routes';
import { AUTHORIZER, partnerApiRoutes, serviceFunctions } from '../../core/routes';
import { SERVICE_SECRET_NAMES } from '../../core/service-secrets';
import type { FunctionPolicies, IamRequest } from '../support/iam';
import { decision, functionPolicies } from '../support/iam';
import { synthesizedApp } from './synthesized-app';

/**
 * Each function's synthesized policy, evaluated the way AWS evaluates it, against the route table
 * (core/routes.ts) it is built from. Nothing here names a route: a function added to the table is
 * checked with no edit to this file.
 *
 * 1. Derived: every call a function could make (each table action on each partition prefix of
 *    core/partitions.ts and each index partition, Scan and the batch calls, each secret, each
 *    queue) is allowed exactly when the function's `access` grants it, and denied otherwise.
 * 2. Fixed: what no function may ever do, what no GET of the partner API may do, and what the
 *    authorizer must not read, whatever the table grants; the table cannot relax these without
 *    this test failing.
 *
 * (What each function does is proven from the other side too: every call the functions make
 * during the integration suite is checked against the same policies when it ends.)
 */
let synthesized: FunctionPolicies;

beforeAll(() => {
  // The sandbox stack of the run's one synthesis (see synthesized-app.ts).
  const { templates } = synthesizedApp();
  synthesized = functionPolicies(templates.sandbox.toJSON() as Parameters<typeof functionPolicies>[0]);
});

type Call = (policies: FunctionPolicies) => IamRequest;
const item =
  (action: string, key: string): Call =>
  (p) => ({ action: `dynamodb:${action}`, resource: p.tableArn, leadingKeys: [key] });
const onIndex =
  (key: string): Call =>
  (p) => ({ action: 'dynamodb:Query', resource: `${p.tableArn}/index/GSI1`, leadingKeys: [key] });
const secret =
  (name: string): Call =>
  (p) => ({
    action: 'secretsmanager:GetSecretValue',
    resource: p.secretArns.get(name) ?? `missing ${name}`,
  });
const batchGet: Call = (p) => ({
  action: 'dynamodb:BatchGetItem',
  resource: p.tableArn,
  leadingKeys: ['PARTNER#1', 'PROPERTY#1'],
});
const batchWrite: Call = (p) => ({
  action: 'dynamodb:BatchWriteItem',
  resource: p.tableArn,
  leadingKeys: ['PARTNER#1', 'PROPERTY#1'],
});
const scan: Call = (p) => ({ action: 'dynamodb:Scan', resource: p.tableArn });
const scanIndex: Call = (p) => ({ action: 'dynamodb:Scan', resource: `${p.tableArn}/index/GSI1` });
const sendTo =
  (queue: string): Call =>
  (p) => ({ action: 'sqs:SendMessage', resource: p.queueArns.get(queue) ?? `missing ${queue}` });

/** The partition-key prefixes of the table, and the index partitions (core/partitions.ts). */
const prefixes = Object.entries(partitions).flatMap(([name, value]) =>
  typeof value === 'string' && name.endsWith('_PARTITION') ? [[name, value] as const] : [],
);
const TABLE_PARTITIONS = prefixes.filter(([name]) => !name.endsWith('_INDEX_PARTITION')).map(([, p]) => p);
const INDEX_PARTITIONS = prefixes.filter(([name]) => name.endsWith('_INDEX_PARTITION')).map(([, p]) => p);

/** The IAM action of each kind of table access (as lib/constructs/service-function.ts grants it). */
const TABLE_ACTIONS = {
  getItem: 'GetItem',
  query: 'Query',
  updateItem: 'UpdateItem',
  putItem: 'PutItem',
  deleteItem: 'DeleteItem',
  conditionCheckItem: 'ConditionCheckItem',
} as const satisfies Record<Exclude<keyof TableAccess, 'queryIndex'>, string>;

/** A call any function could attempt, and whether an `access` of the route table grants it. */
interface Probe {
  readonly what: string;
  readonly call: Call;
  readonly granted: (access: FunctionAccess) => boolean;
}

/** `dynamodb:LeadingKeys` with `StringLike` `<prefix>*`: the key starts with a granted prefix. */
const covers = (granted: readonly string[] | undefined, key: string) =>
  (granted ?? []).some((prefix) => key.startsWith(prefix));

const PROBES: readonly Probe[] = [
  ...Object.entries(TABLE_ACTIONS).flatMap(([kind, action]) =>
    TABLE_PARTITIONS.map((prefix) => ({
      what: `${action} ${prefix}1`,
      call: item(action, `${prefix}1`),
      granted: (access: FunctionAccess) =>
        covers(access.table?.[kind as keyof typeof TABLE_ACTIONS], `${prefix}1`),
    })),
  ),
  ...INDEX_PARTITIONS.map((key) => ({
    what: `Query index ${key}`,
    call: onIndex(key),
    granted: (access: FunctionAccess) => covers(access.table?.queryIndex, key),
  })),
  // The route table has no way to grant these: every function is denied them.
  { what: 'Scan the table', call: scan, granted: () => false },
  { what: 'Scan the index', call: scanIndex, granted: () => false },
  { what: 'BatchGetItem', call: batchGet, granted: () => false },
  { what: 'BatchWriteItem', call: batchWrite, granted: () => false },
  ...SERVICE_SECRET_NAMES.map((name) => ({
    what: `GetSecretValue ${name}`,
    call: secret(name),
    granted: (access: FunctionAccess) => (access.secrets ?? []).includes(name),
  })),
  ...SERVICE_QUEUE_NAMES.map((name) => ({
    what: `SendMessage ${name}`,
    call: sendTo(name),
    granted: (access: FunctionAccess) => (access.sendsTo ?? []).includes(name),
  })),
];

const { API_KEY_PARTITION, AUDIT_PARTITION, RATE_LIMIT_PARTITION, SIGNING_SECRET_PARTITION } = partitions;

/**
 * What no function may do, whatever the route table says: the audit trail is only ever added to;
 * API keys and signing secrets are created by operators (the CLI), never by a function.
 */
const NEVER: Record<string, Call> = {
  'change an audit event': item('UpdateItem', `${AUDIT_PARTITION}1`),
  'delete an audit event': item('DeleteItem', `${AUDIT_PARTITION}1`),
  'read the audit trail': item('Query', `${AUDIT_PARTITION}1`),
  'read an audit event': item('GetItem', `${AUDIT_PARTITION}1`),
  'list every audit event on the index': onIndex(partitions.AUDIT_INDEX_PARTITION),
  'create an API key': item('PutItem', `${API_KEY_PARTITION}svc_AbCdEfGh`),
  'delete an API key': item('DeleteItem', `${API_KEY_PARTITION}svc_AbCdEfGh`),
  "write a partner's signing secret": item('PutItem', `${SIGNING_SECRET_PARTITION}1`),
  "change a partner's signing secret": item('UpdateItem', `${SIGNING_SECRET_PARTITION}1`),
  'scan the table': scan,
  'batch-read items': batchGet,
  'batch-write items': batchWrite,
};

/**
 * What no GET of the partner API may do: it reads the partner's own data and writes only its
 * key's rate window; keys, reveals, hosts' e-mail, signing secrets and the pages' secrets are not
 * its business.
 */
const NOT_FOR_GET_ROUTES: Record<string, Call> = {
  'read an API key record': item('GetItem', `${API_KEY_PARTITION}svc_AbCdEfGh`),
  'query API keys': item('Query', `${API_KEY_PARTITION}svc_AbCdEfGh`),
  'read a reveal record': item('GetItem', `${partitions.REVEAL_PARTITION}revealid`),
  "read a host's e-mail claim": item('GetItem', `${partitions.HOST_EMAIL_PARTITION}host@example.com`),
  "read a partner's sealed signing secret": item('GetItem', `${SIGNING_SECRET_PARTITION}1`),
  'list every partner on the index': onIndex(partitions.PARTNERS_INDEX_PARTITION),
  'read the session secret': secret('session'),
  'read the sealing secret': secret('sealing'),
  ...Object.fromEntries(
    TABLE_PARTITIONS.filter((prefix) => prefix !== RATE_LIMIT_PARTITION).flatMap((prefix) =>
      (['PutItem', 'UpdateItem', 'DeleteItem'] as const).map((action) => [
        `${action} ${prefix}1 (it writes its rate window only)`,
        item(action, `${prefix}1`),
      ]),
    ),
  ),
};

/** Nothing with a TTL decides who gets in: the key and its partner, nothing else. */
const NOT_FOR_THE_AUTHORIZER: Record<string, Call> = {
  'read a reveal record (TTL)': item('GetItem', `${partitions.REVEAL_PARTITION}revealid`),
  'read a used nonce (TTL)': item('GetItem', `${partitions.NONCE_PARTITION}1#nonce`),
  'read a rate window (TTL)': item('GetItem', `${RATE_LIMIT_PARTITION}svc_AbCdEfGh`),
};

const FIXED: readonly (readonly [string, readonly string[], Record<string, Call>])[] = [
  ['no function may %s', serviceFunctions.map(({ name }) => name), NEVER],
  ['no GET of the partner API may %s', partnerApiRoutes.map(({ id }) => id), NOT_FOR_GET_ROUTES],
  ['the authorizer may not %s', [AUTHORIZER.id], NOT_FOR_THE_AUTHORIZER],
];

describe('least privilege of the synthesized functions', () => {
  it('has a policy for every function of the route table, and none other', () => {
    expect([...synthesized.policies.keys()].sort()).toEqual(serviceFunctions.map((spec) => spec.name).sort());
  });

  it.each(serviceFunctions.map((spec) => [spec.name, spec] as const))(
    '%s is allowed exactly what its entry in the route table grants',
    async (name, spec) => {
      const policy = synthesized.policies.get(name);
      const wrong: string[] = [];
      for (const probe of PROBES) {
        const expected = probe.granted(spec.access) ? 'Allowed' : 'ImplicitlyDenied';
        const actual = await decision(policy, probe.call(synthesized));
        if (actual !== expected) wrong.push(`${probe.what}: ${actual}, the route table says ${expected}`);
      }

      expect(wrong, `${name}: calls its policy and its access in core/routes.ts disagree on`).toEqual([]);
    },
  );

  for (const [title, names, calls] of FIXED) {
    it.each(Object.entries(calls))(title, async (_what, call) => {
      const allowed: string[] = [];
      for (const name of names)
        if ((await decision(synthesized.policies.get(name), call(synthesized))) !== 'ImplicitlyDenied')
          allowed.push(name);

      expect(allowed, 'functions whose access in core/routes.ts allows it').toEqual([]);
    });
  }

  it('denies a request naming two partitions when only one is granted (every key must match)', async () => {
    // The authorizer may read partners' items, not reveals.
    const policy = synthesized.policies.get(AUTHORIZER.id);

    expect(
      await decision(policy, {
        action: 'dynamodb:GetItem',
        resource: synthesized.tableArn,
        leadingKeys: ['PARTNER#1'],
      }),
    ).toBe('Allowed');
    expect(
      await decision(policy, {
        action: 'dynamodb:GetItem',
        resource: synthesized.tableArn,
        leadingKeys: ['PARTNER#1', 'REVEAL#revealid'],
      }),
    ).toBe('ImplicitlyDenied');
  });
});
