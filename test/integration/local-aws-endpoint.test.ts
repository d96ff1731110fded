import { request } from 'node:http';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PUT_EVENTS_BYTES } from '../../core/outbound-delivery';
import { LOCAL_EVENT_BUS_NAME, localQueueUrl } from '../../emulator/event-pipeline';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';
import { signedAwsHeaders } from '../support/signed-aws';

/*
 * The local AWS endpoint against what a caller may send it, on a server of its own (a call that
 * stopped the server would stop every other test's): each call is answered as AWS answers it
 * (the PutEvents reference: https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html
 * and API_PutEventsRequestEntry.html), and nothing a caller sends stops the server or fills its
 * memory.
 */

let server: ServerProcess;
let partnerKey: string;

beforeAll(async () => {
  server = await startServerProcess({}, { fromSources: true });
  ({ key: partnerKey } = await server.approvedPartner('aws-endpoint'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const credentials = () => ({ accessKeyId: 'operator', secretAccessKey: server.runtime.secretAccessKey });

/** A call signed as the SDK signs it, with a body the SDK would never send. */
async function signedCall(
  service: string,
  target: string | undefined,
  body: string,
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const endpoint = new URL(server.runtime.awsEndpoint);
  const headers = await signedAwsHeaders({
    endpoint,
    secretAccessKey: server.runtime.secretAccessKey,
    service,
    ...(target ? { target } : {}),
    body,
  });
  const response = await fetch(endpoint, { method: 'POST', headers, body });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // XML (IAM) or empty: tests read `text`.
  }
  return { status: response.status, json, text };
}

/** IAM's PutRolePolicy on the usage function's role, with a document as given (a string as it is). */
const putRolePolicy = (name: string, document: unknown) =>
  signedCall(
    'iam',
    undefined,
    new URLSearchParams({
      Action: 'PutRolePolicy',
      Version: '2010-05-08',
      RoleName: 'usage',
      PolicyName: name,
      PolicyDocument: typeof document === 'string' ? document : JSON.stringify(document),
    }).toString(),
  );

const putEvents = (body: unknown) => signedCall('events', 'AWSEvents.PutEvents', JSON.stringify(body));

/** The partner API still answers (the server, its functions and DynamoDB are up). */
async function apiAnswers(): Promise<number> {
  const response = await fetch(`${server.runtime.apiBaseUrl}/usage`, {
    headers: { Authorization: `Bearer ${partnerKey}`, Accept: 'application/json' },
  });
  await response.arrayBuffer();
  return response.status;
}

const entry = (fields: Record<string, unknown> = {}) => ({
  EventBusName: LOCAL_EVENT_BUS_NAME,
  Source: 'host-platform',
  DetailType: 'PropertyUpdated',
  Detail: JSON.stringify({ property_id: 1, version: 1, name: 'x' }),
  ...fields,
});

describe('the local AWS endpoint, sent what the SDK would never send', () => {
  it('answers each call with an AWS error and keeps serving: null entries, a time past year 275760, unreadable policies', async () => {
    const nullEntry = await putEvents({ Entries: [null] });
    const farTime = await putEvents({ Entries: [entry({ Time: 1e20 })] });
    const notAnObject = await putEvents(null);
    const policies = await Promise.all(
      [
        { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Action: 5, Resource: '*' }] },
        { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Action: 'dynamodb:*', Resource: 5 }] },
        // The outside review's: each wildcard a backtracking match in the simulator, on every call.
        {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Deny', Action: 'dynamodb:*', Resource: `arn:aws:dynamodb:*:*:${'*'.repeat(14)}z` },
          ],
        },
        'null',
      ].map((document) => putRolePolicy('unreadable', document)),
    );

    expect(nullEntry).toMatchObject({ status: 400, json: { __type: 'SerializationException' } });
    expect(farTime.status).toBe(200);
    expect(farTime.json).toMatchObject({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InvalidArgument', ErrorMessage: expect.stringContaining('Time') }],
    });
    expect(notAnObject).toMatchObject({ status: 400, json: { __type: 'SerializationException' } });
    for (const policy of policies) {
      expect(policy.status).toBe(400);
      expect(policy.text).toContain('<Code>MalformedPolicyDocument</Code>');
    }
    // The function whose role was given the policies still answers, and so does the server.
    expect(await apiAnswers()).toBe(200);
  });

  it('refuses what AWS refuses that would grow the server: long messages, huge policies, timeouts that are not times', async () => {
    const queue = localQueueUrl(server.runtime.awsEndpoint, 'platformInbox');
    const sqs = (operation: string, body: Record<string, unknown>) =>
      signedCall('sqs', `AmazonSQS.${operation}`, JSON.stringify({ QueueUrl: queue, ...body }));
    const longMessage = await sqs('SendMessage', { MessageBody: 'x'.repeat(262_145) });
    const notATime = await sqs('ReceiveMessage', { VisibilityTimeout: 'soon' });
    const hugePolicy = await putRolePolicy('huge', {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Deny', Action: 'dynamodb:GetItem', Resource: `arn:${'x'.repeat(11_000)}` }],
    });
    const escapes = await putEvents({ Entries: [entry({ EventBusName: 'x\u001b[2J\u001b]0;pwned\u0007' })] });

    expect(longMessage).toMatchObject({
      status: 400,
      json: { __type: 'com.amazonaws.sqs#InvalidParameterValue' },
    });
    expect(notATime).toMatchObject({
      status: 400,
      json: { __type: 'com.amazonaws.sqs#InvalidParameterValue' },
    });
    expect(hugePolicy.status).toBe(409);
    expect(hugePolicy.text).toContain('<Code>LimitExceeded</Code>');
    expect(escapes.status).toBe(200);
    await expect
      .poll(() => server.output(), { timeout: 5_000 })
      .toContain('put on the bus "x?[2J?]0;pwned?"');
    expect(server.output()).not.toContain('\u001b[2J');
  });

  it('refuses a body over 16 MB before reading it, and stops reading one that says nothing of its size', async () => {
    const endpoint = new URL(server.runtime.awsEndpoint);
    const rssBefore = await server.rssMiB();
    // Says 256 MB, sends nothing: answered at once (waiting for the body would time the test out).
    const declared = await new Promise<number>((resolve, reject) => {
      const call = request(endpoint, {
        method: 'POST',
        headers: { 'Content-Length': String(256 * 1024 * 1024) },
      });
      call.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        call.destroy();
      });
      call.on('error', reject);
      call.flushHeaders();
    });
    // Chunked, no length: 40 MB sent as fast as the server takes it; answered once past 16 MB.
    const streamed = await new Promise<{ status: number; sentMiB: number }>((resolve, reject) => {
      const call = request(endpoint, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } });
      const chunk = Buffer.alloc(1024 * 1024, 97);
      let sent = 0;
      let answered = false;
      call.on('response', (response) => {
        answered = true;
        response.resume();
        resolve({ status: response.statusCode ?? 0, sentMiB: sent });
        call.destroy();
      });
      call.on('error', (error) => (answered ? undefined : reject(error)));
      const write = () => {
        while (!answered && sent < 40) {
          sent += 1;
          if (!call.write(chunk)) {
            call.once('drain', write);
            return;
          }
        }
        if (!answered) call.end();
      };
      write();
    });

    expect(declared).toBe(413);
    expect(streamed.status).toBe(413);
    // What the server holds of it is at most the cap (plus what was in flight), never the whole body.
    expect((await server.rssMiB()) - rssBefore).toBeLessThan(100);
    expect(await apiAnswers()).toBe(200);
  });
});

describe('the local PutEvents, as AWS answers it', () => {
  it('fails an entry whose detail-type or source is too long, and takes those at the limit', async () => {
    const answer = await putEvents({
      Entries: [
        entry({ DetailType: 'x'.repeat(129) }),
        entry({ DetailType: 'x'.repeat(128) }),
        entry({ Source: 's'.repeat(257) }),
        entry({ Source: 's'.repeat(256) }),
      ],
    });

    expect(answer.status).toBe(200);
    const entries = answer.json.Entries as Record<string, unknown>[];
    expect(entries.map((result) => result.ErrorCode ?? 'taken')).toEqual([
      'InvalidArgument',
      'taken',
      'InvalidArgument',
      'taken',
    ]);
    expect(answer.json.FailedEntryCount).toBe(2);
  });

  it('fails the whole request when no entry has a source, a detail-type and a detail; one such entry fails alone', async () => {
    const none = await putEvents({
      Entries: [{ Source: 'host-platform' }, { DetailType: 'PropertyUpdated' }],
    });
    const one = await putEvents({ Entries: [entry(), { Source: 'host-platform' }] });

    expect(none).toMatchObject({ status: 400, json: { __type: 'ValidationException' } });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      FailedEntryCount: 1,
      Entries: [{ EventId: expect.any(String) }, { ErrorCode: 'InvalidArgument' }],
    });
  });

  it('refuses entries of 256 KB or more in all, as EventBridge counts them', async () => {
    const detail = (bytes: number) => JSON.stringify({ pad: 'p'.repeat(bytes - 10) });
    const perEntry = Math.floor(MAX_PUT_EVENTS_BYTES / 4);
    const over = await putEvents({
      Entries: Array.from({ length: 4 }, () => entry({ Detail: detail(perEntry) })),
    });
    const under = await putEvents({
      Entries: Array.from({ length: 3 }, () => entry({ Detail: detail(perEntry) })),
    });

    expect(over).toMatchObject({ status: 400, json: { __type: 'ValidationException' } });
    expect(under).toMatchObject({ status: 200, json: { FailedEntryCount: 0 } });
  });

  it('takes an event for the default bus or a bus that does not exist, as AWS does, and says on the terminal where it went', async () => {
    const bus = new EventBridgeClient({
      endpoint: server.runtime.awsEndpoint,
      region: 'local',
      credentials: credentials(),
    });
    const { EventBusName: _, ...withoutBus } = entry({ DetailType: 'PropertyUpdatedOnDefault' });

    const answer = await bus.send(
      new PutEventsCommand({
        Entries: [withoutBus, entry({ EventBusName: 'no-such-bus', DetailType: 'PropertyUpdatedOnNoBus' })],
      }),
    );
    bus.destroy();

    expect(answer.FailedEntryCount).toBe(0);
    expect(answer.Entries?.every((result) => typeof result.EventId === 'string')).toBe(true);
    await expect
      .poll(() => server.output(), { timeout: 5_000 })
      .toContain('PropertyUpdatedOnDefault event was put on the bus "default"');
    expect(server.output()).toContain('PropertyUpdatedOnNoBus event was put on the bus "no-such-bus"');
    expect(server.output()).toContain(LOCAL_EVENT_BUS_NAME);
  });
});
