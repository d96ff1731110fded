import { beforeAll, describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../core/routes';
import type { FunctionPolicies, IamRequest } from '../support/iam';
import { decision, functionPolicies } from '../support/iam';
import { synthesizedApp } from './synthesized-app';

/**
 * What each function must never be able to do, evaluated against its synthesized policy the way
 * AWS evaluates it. (What each may do is proven from the other side: every call the functions
 * make during the integration suite is checked against the same policies when it ends.)
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
const scan: Call = (p) => ({ action: 'dynamodb:Scan', resource: p.tableArn });
const sendTo =
  (queue: string): Call =>
  (p) => ({ action: 'sqs:SendMessage', resource: p.queueArns.get(queue) ?? `missing ${queue}` });

/** Secrets, keys and host data no GET handler needs, and any way to read the whole table. */
const NOT_FOR_GET_HANDLERS: Record<string, Call> = {
  'read an API key record': item('GetItem', 'APIKEY#svc_AbCdEfGh'),
  'read a reveal record': item('GetItem', 'REVEAL#revealid'),
  "read a host's e-mail claim": item('GetItem', 'HOSTEMAIL#host@example.com'),
  "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
  'query API keys': item('Query', 'APIKEY#svc_AbCdEfGh'),
  'list every partner on the index': onIndex('PARTNERS'),
  'batch-read items': batchGet,
  'scan the table': scan,
  'write a partner item': item('PutItem', 'PARTNER#1'),
  'change an API key': item('UpdateItem', 'APIKEY#svc_AbCdEfGh'),
  'read the session secret': secret('session'),
  'read the sealing secret': secret('sealing'),
  'read the cursor secret': secret('cursor'),
  'add an audit event': item('PutItem', 'AUDIT#1'),
};

/** The property list signs page cursors: the cursor secret is the one secret it reads. */
const { 'read the cursor secret': _signsCursors, ...NOT_FOR_THE_PROPERTY_LIST } = NOT_FOR_GET_HANDLERS;

/** The audit trail is append-only for the pages: they may add an event, never change or remove one. */
const NEVER_REWRITE_AUDIT: Record<string, Call> = {
  'change an audit event': item('UpdateItem', 'AUDIT#1'),
  'delete an audit event': item('DeleteItem', 'AUDIT#1'),
  'read the audit trail': item('Query', 'AUDIT#1'),
  'read an audit event': item('GetItem', 'AUDIT#1'),
  'list every audit event on the index': onIndex('AUDIT'),
};

const FORBIDDEN: Record<string, Record<string, Call>> = {
  authorizer: {
    // Nothing with a TTL decides who gets in: the key and its partner, nothing else.
    'read a reveal record (TTL)': item('GetItem', 'REVEAL#revealid'),
    'read a used nonce (TTL)': item('GetItem', 'NONCE#1#nonce'),
    'change a partner item': item('UpdateItem', 'PARTNER#1'),
    "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
    'change an API key': item('UpdateItem', 'APIKEY#svc_AbCdEfGh'),
    'create an API key': item('PutItem', 'APIKEY#svc_AbCdEfGh'),
    'spend a reveal': item('UpdateItem', 'REVEAL#revealid'),
    'add an audit event': item('PutItem', 'AUDIT#1'),
    'read the sealing secret': secret('sealing'),
    'read the cursor secret': secret('cursor'),
    'scan the table': scan,
  },
  usage: NOT_FOR_GET_HANDLERS,
  properties: NOT_FOR_THE_PROPERTY_LIST,
  pricingSignals: NOT_FOR_GET_HANDLERS,
  openapiDocument: {
    'read anything in the table': item('GetItem', 'PARTNER#1'),
    'add an audit event': item('PutItem', 'AUDIT#1'),
    'read the session secret': secret('session'),
    'read the cursor secret': secret('cursor'),
  },
  homePage: {
    'read anything in the table': item('GetItem', 'PARTNER#1'),
    'add an audit event': item('PutItem', 'AUDIT#1'),
    'read the session secret': secret('session'),
    'read the sealing secret': secret('sealing'),
    'read the cursor secret': secret('cursor'),
  },
  revealPage: {
    ...NEVER_REWRITE_AUDIT,
    'create a reveal': item('PutItem', 'REVEAL#revealid'),
    'create or overwrite an API key': item('PutItem', 'APIKEY#svc_AbCdEfGh'),
    'change a partner item (it only checks one)': item('UpdateItem', 'PARTNER#1'),
    "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
    'query reveals': item('Query', 'REVEAL#revealid'),
    'read the session secret': secret('session'),
    'read the cursor secret': secret('cursor'),
  },
  activatePage: {
    'write anything (opening a link writes nothing)': item('PutItem', 'NONCE#1#nonce'),
    'add an audit event (it records none)': item('PutItem', 'AUDIT#1'),
    'update a partner item': item('UpdateItem', 'PARTNER#1'),
    'read an API key record': item('GetItem', 'APIKEY#svc_AbCdEfGh'),
    "read a host's e-mail claim": item('GetItem', 'HOSTEMAIL#host@example.com'),
    'read the cursor secret': secret('cursor'),
  },
  marketplacePage: {
    ...NEVER_REWRITE_AUDIT,
    'read the sealing secret (it verifies nothing)': secret('sealing'),
    "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
    "overwrite a partner's signing secret": item('PutItem', 'SIGNING_SECRET#1'),
    'read an API key record': item('GetItem', 'APIKEY#svc_AbCdEfGh'),
    'create an API key': item('PutItem', 'APIKEY#svc_AbCdEfGh'),
    'read a reveal record': item('GetItem', 'REVEAL#revealid'),
  },
  onboardingPage: {
    ...NEVER_REWRITE_AUDIT,
    'create or overwrite a partner item': item('PutItem', 'PARTNER#1'),
    'delete a partner item': item('DeleteItem', 'PARTNER#1'),
    "overwrite a partner's signing secret": item('UpdateItem', 'SIGNING_SECRET#1'),
    "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
    'read the sealing secret': secret('sealing'),
    'create a host account': item('PutItem', 'HOST#1'),
  },
  platformEvents: {
    ...NEVER_REWRITE_AUDIT,
    'read an API key record': item('GetItem', 'APIKEY#svc_AbCdEfGh'),
    'change or delete an API key': item('DeleteItem', 'APIKEY#svc_AbCdEfGh'),
    'read a reveal record': item('GetItem', 'REVEAL#revealid'),
    "read a partner's sealed signing secret": item('GetItem', 'SIGNING_SECRET#1'),
    'change a rate window': item('UpdateItem', 'RATELIMIT#svc_AbCdEfGh'),
    'create a host account (it only erases one)': item('PutItem', 'HOST#1'),
    "read a host's e-mail claim (an erasure reads the account)": item(
      'GetItem',
      'HOSTEMAIL#host@example.com',
    ),
    'list every partner on the index': onIndex('PARTNERS'),
    'batch-read items': batchGet,
    'scan the table': scan,
    'read the session secret': secret('session'),
    'read the sealing secret': secret('sealing'),
    'read the cursor secret': secret('cursor'),
    'send to its own queue (only to the dead-letter queue)': sendTo('platformEvents'),
  },
};

describe('least privilege of the synthesized functions', () => {
  it('has a list of forbidden calls for every function of the route table', () => {
    expect(Object.keys(FORBIDDEN).sort()).toEqual(serviceFunctions.map((spec) => spec.name).sort());
    expect([...synthesized.policies.keys()].sort()).toEqual(serviceFunctions.map((spec) => spec.name).sort());
  });

  for (const [name, calls] of Object.entries(FORBIDDEN)) {
    it.each(Object.entries(calls))(`denies ${name}: %s`, async (_what, call) => {
      const policy = synthesized.policies.get(name);

      expect(await decision(policy, call(synthesized))).toBe('ImplicitlyDenied');
    });
  }

  it.each(['revealPage', 'marketplacePage', 'onboardingPage', 'platformEvents'])(
    'lets %s add an audit event, the one thing it may do there',
    async (name) => {
      expect(
        await decision(synthesized.policies.get(name), {
          action: 'dynamodb:PutItem',
          resource: synthesized.tableArn,
          leadingKeys: ['AUDIT#1'],
        }),
      ).toBe('Allowed');
    },
  );

  it('lets the event consumer send to its dead-letter queue, the one queue it may send to', async () => {
    expect(
      await decision(
        synthesized.policies.get('platformEvents'),
        sendTo('platformEventsDeadLetter')(synthesized),
      ),
    ).toBe('Allowed');
  });

  it('lets the property list read the cursor secret, which signs its page cursors', async () => {
    expect(await decision(synthesized.policies.get('properties'), secret('cursor')(synthesized))).toBe(
      'Allowed',
    );
  });

  it('denies a request naming two partitions when only one is granted (every key must match)', async () => {
    const policy = synthesized.policies.get('pricingSignals');

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
        leadingKeys: ['PARTNER#1', 'APIKEY#svc_AbCdEfGh'],
      }),
    ).toBe('ImplicitlyDenied');
  });
});
