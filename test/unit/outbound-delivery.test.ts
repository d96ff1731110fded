import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FORWARDING_PATTERN,
  MAX_PUT_EVENTS_BYTES,
  OUTBOUND_BATCH_SIZE,
  OUTBOUND_TARGET,
  OUTBOX_FILTER,
  putEventsEntrySize,
} from '../../core/outbound-delivery';
import { applyInputTemplate, atPath, matchesPattern } from '../../emulator/event-patterns';
import { handler as enrichment } from '../../lambdas/events/outbound-enrichment';

/*
 * The outbound pipe's pieces without DynamoDB (docs/design/events.md#delivery-to-the-platform): the
 * filter the stack gives the pipe, as the local pipe matches it; the target's paths and template;
 * and the enrichment on the records the filter lets through, or should not have.
 */

const record = (eventName: string, PK: string, SK = '2026-11-28T10:00:00.000Z#e-1') => ({
  eventID: 'x',
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: { PK: { S: PK }, SK: { S: SK } }, SequenceNumber: '1', StreamViewType: 'KEYS_ONLY' },
});

describe('the pipe’s filter', () => {
  it('keeps the outbox’s inserts, and nothing else the table writes', () => {
    expect(matchesPattern(OUTBOX_FILTER, record('INSERT', 'OUTBOX#12'))).toBe(true);
    for (const other of [
      record('MODIFY', 'OUTBOX#12'), // the enrichment's mark, an erasure
      record('REMOVE', 'OUTBOX#12'), // the TTL
      record('INSERT', 'RATELIMIT#svc_abc#2026-11-28T10:00'), // every API call
      record('INSERT', 'HOSTEMAIL#ana@example.com'),
      record('INSERT', 'AUDIT#1'),
      { eventName: 'INSERT' },
    ])
      expect(matchesPattern(OUTBOX_FILTER, other), JSON.stringify(other)).toBe(false);
  });

  it('forwards exactly this service’s events to the platform', () => {
    const event = (source: string, type: string) => ({ source, 'detail-type': type, detail: {} });
    for (const type of ['HostProvisioned', 'KnowledgeBaseSubmitted', 'HostErased'])
      expect(matchesPattern(FORWARDING_PATTERN, event('partner-api', type))).toBe(true);
    expect(matchesPattern(FORWARDING_PATTERN, event('host-platform', 'HostProvisioned'))).toBe(false);
    expect(matchesPattern(FORWARDING_PATTERN, event('partner-api', 'SeatActivated'))).toBe(false);
  });

  it('refuses an operator the local pipe does not know, rather than match otherwise than AWS', () => {
    expect(() => matchesPattern({ x: [{ suffix: 'a' }] }, { x: 'ba' })).toThrow(/suffix/);
    expect(() => matchesPattern({ x: [{ exists: true }] }, { x: 1 })).not.toThrow();
  });
});

describe('the size of what the pipe puts on the bus', () => {
  it('counts an entry as EventBridge does: 14 bytes for a time, the UTF-8 bytes of the rest', () => {
    expect(
      putEventsEntrySize({
        Time: new Date(),
        Source: 'partner-api',
        DetailType: 'HostErased',
        Detail: '{"a":"é"}',
      }),
    ).toBe(14 + 11 + 10 + 10);
    expect(putEventsEntrySize({ Source: 'a', DetailType: 'b', Resources: ['arn:x'] })).toBe(7);
  });

  it('puts one event per request, so even a knowledge base at the wizard’s limits fits', () => {
    // 20 answers of 2,000 characters, 20 offers of 1,000 and check-in text of 4,000, in 3-byte characters.
    const largest = 3 * (20 * (300 + 2_000) + 20 * (120 + 1_000) + 4_000 + 120);
    expect(OUTBOUND_BATCH_SIZE * largest).toBeLessThan(MAX_PUT_EVENTS_BYTES);
  });
});

describe('the pipe’s target', () => {
  const entry = {
    detailType: 'HostErased',
    time: '2026-11-28T10:00:00.000Z',
    detail: { host_user_id: 3, nested: { a: [1] } },
  };

  it('reads the detail-type and time by path, and passes the detail as an object', () => {
    expect(atPath(entry, OUTBOUND_TARGET.detailType)).toBe('HostErased');
    expect(atPath(entry, OUTBOUND_TARGET.time)).toBe('2026-11-28T10:00:00.000Z');
    expect(applyInputTemplate(OUTBOUND_TARGET.inputTemplate, entry)).toEqual(entry.detail);
  });

  it('refuses a template it cannot apply as Pipes does', () => {
    expect(() => applyInputTemplate('{"a": <$.detail>}', entry)).toThrow(/one <\$.path>/);
    expect(() => atPath(entry, '$..detail')).toThrow(/dot-notation/);
  });
});

describe('the enrichment', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  mockClient(DynamoDBClient);
  afterEach(() => dynamo.reset());

  it('reads each outbox insert it is given, in order, and leaves out what is not one', async () => {
    const detail = { event_id: 'e-1', host_user_id: 12 };
    dynamo.on(UpdateCommand).callsFake((input: { Key: { SK: string } }) => ({
      Attributes: {
        eventId: input.Key.SK.split('#')[1],
        detailType: 'HostProvisioned',
        occurredAt: '2026-11-28T10:00:00.000Z',
        hostUserId: 12,
        detail: { ...detail, event_id: input.Key.SK.split('#')[1] },
      },
    }));
    const entries = await enrichment([
      record('INSERT', 'OUTBOX#12', '2026-11-28T10:00:00.000Z#e-1'),
      record('MODIFY', 'OUTBOX#12', '2026-11-28T10:00:00.000Z#e-9'),
      record('INSERT', 'RATELIMIT#x'),
      record('INSERT', 'OUTBOX#12', '2026-11-28T10:00:00.000Z#e-2'),
    ]);
    expect(entries.map((entry) => entry.detail.event_id)).toEqual(['e-1', 'e-2']);
    expect(entries[0]).toMatchObject({ detailType: 'HostProvisioned', time: '2026-11-28T10:00:00.000Z' });
    // Each read marks the item, on condition that it still has its detail (not erased).
    const calls = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      ConditionExpression: 'attribute_exists(detail)',
      ReturnValues: 'ALL_NEW',
    });
  });

  it('sends nothing for an item erased or gone since it was written', async () => {
    dynamo
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'erased', $metadata: {} }));
    expect(await enrichment([record('INSERT', 'OUTBOX#12')])).toEqual([]);
  });

  it('fails the batch when DynamoDB does, so the pipe tries it again', async () => {
    dynamo.on(UpdateCommand).rejects(Object.assign(new Error('busy'), { name: 'ThrottlingException' }));
    await expect(enrichment([record('INSERT', 'OUTBOX#12')])).rejects.toThrow(/busy/);
  });
});
