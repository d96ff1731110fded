import { DeleteRolePolicyCommand, IAMClient, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect, inject } from 'vitest';
import type { ServiceEventType } from '../../core/contract/service-events';
import { serviceEventProblems } from '../../core/contract/service-events';
import { OUTBOUND_ENRICHMENT } from '../../core/routes';
import type { SentEvent } from '../../operations/events';
import { adminJson } from './cli';

/*
 * What this service sends the platform, as the tests watch it: `events sent` (the outbox, through
 * the operator CLI), the local platform's inbox (the SQS queue the outbound bus forwards to, read
 * with the SDK's own client, signed as the CLI signs), and the pipe's enrichment held failing
 * through the local IAM emulation (an inline Deny on its role, as `npm run verify` does to the
 * authorizer).
 */

/** Where the local AWS endpoint answers, and the key calls to it are signed with. */
export interface LocalAws {
  readonly endpoint: string;
  readonly secretAccessKey: string;
}

/** The suite's local server's AWS endpoint (the one the CLI signs its calls for). */
export function suiteAws(): LocalAws {
  const environment = inject('localEnvironment');
  return {
    endpoint: environment.AWS_ENDPOINT_URL_SQS ?? '',
    secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
  };
}

const clientSettings = (aws: LocalAws) => ({
  endpoint: aws.endpoint,
  region: 'local',
  credentials: { accessKeyId: 'operator', secretAccessKey: aws.secretAccessKey },
});

/**
 * The fields of each event's detail, as the contract promises them (docs/design/events.md): an
 * object's fields by their path, a list of objects' fields under `[]`.
 */
export const CONTRACT_FIELDS: Readonly<Record<ServiceEventType, readonly string[]>> = {
  HostProvisioned: [
    'event_id',
    'host_user_id',
    'partner_id',
    'account',
    'contact_email',
    'contact_name',
    'language',
    'property',
    'property.property_id',
    'property.pms_hotel_id',
    'property.name',
    'products',
    'version',
    'occurred_at',
  ],
  KnowledgeBaseSubmitted: [
    'event_id',
    'host_user_id',
    'partner_id',
    'property_id',
    'first_submission',
    'language',
    'knowledge_base',
    'knowledge_base.property_name',
    'knowledge_base.checkin_instructions',
    'knowledge_base.faqs',
    'knowledge_base.faqs[].question',
    'knowledge_base.faqs[].answer',
    'knowledge_base.offers',
    'knowledge_base.offers[].title',
    'knowledge_base.offers[].description',
    'knowledge_base.offers[].price_minor',
    'knowledge_base.offers[].currency',
    'version',
    'occurred_at',
  ],
  HostErased: ['event_id', 'host_user_id', 'requested_at', 'erased_at'],
};

/** Every field path of a value: `a`, `a.b`, `list`, `list[].c` (each element of a list of objects). */
export function fieldPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value))
    return [
      ...new Set(
        value.flatMap((element) =>
          element !== null && typeof element === 'object' && !Array.isArray(element)
            ? fieldPaths(element, `${prefix}[].`)
            : [],
        ),
      ),
    ];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, field]) => [
    `${prefix}${name}`,
    ...fieldPaths(field, Array.isArray(field) ? `${prefix}${name}` : `${prefix}${name}.`),
  ]);
}

/**
 * An event as delivered holds the contract's fields and no other: its detail passes the schema
 * (`serviceEventProblems`), and has exactly the fields of `CONTRACT_FIELDS` (lists of objects
 * non-empty, so that their elements' fields are seen).
 */
export function expectContractEvent(event: { 'detail-type': string; detail: unknown }): void {
  const type = event['detail-type'] as ServiceEventType;
  expect(serviceEventProblems(type, event.detail), `${type} ${JSON.stringify(event.detail)}`).toEqual([]);
  expect(fieldPaths(event.detail).sort(), type).toEqual([...(CONTRACT_FIELDS[type] ?? [])].sort());
}

/** `events sent --json` with these options, on the suite's server: its events, oldest first. */
export async function sentEvents(...options: string[]): Promise<SentEvent[]> {
  return (await adminJson('events', 'sent', ...options)).events as SentEvent[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads `events sent` again (`list`) until `done` holds for what it lists, or `timeoutMs` passed
 * (then fails, saying what was listed last). Returns what was listed when `done` held.
 */
export async function untilListed(
  list: () => Promise<SentEvent[]>,
  done: (events: SentEvent[]) => boolean,
  timeoutMs: number,
  what: string,
): Promise<SentEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await list();
    if (done(events)) return events;
    if (Date.now() > deadline)
      throw new Error(`Not within ${timeoutMs / 1000} s: ${what}. Listed: ${JSON.stringify(events)}`);
    await pause(100);
  }
}

/** An event as the platform receives it from the outbound bus: an EventBridge event. */
export interface PlatformMessage {
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly time: string;
  readonly detail: Record<string, unknown> & { event_id?: string; host_user_id?: number };
}

/**
 * The local platform's inbox, read as a platform reads it: ReceiveMessage (long polling), each
 * message deleted once read and kept here, so that every test of a file sees what arrived, each
 * message once.
 */
export class PlatformInbox {
  private readonly client: SQSClient;
  private readonly arrived: PlatformMessage[] = [];

  constructor(
    aws: LocalAws,
    private readonly queueUrl: string,
  ) {
    this.client = new SQSClient(clientSettings(aws));
  }

  /** The suite's server's inbox. */
  static ofSuite(): PlatformInbox {
    return new PlatformInbox(suiteAws(), inject('platformInboxUrl'));
  }

  /** Everything read so far, in the order it arrived. */
  messages(): readonly PlatformMessage[] {
    return this.arrived;
  }

  /** The messages read so far about this event (its `event_id`). */
  about(eventId: string): PlatformMessage[] {
    return this.arrived.filter((message) => message.detail.event_id === eventId);
  }

  /** One ReceiveMessage of up to `waitSeconds`; what it got is kept. */
  async receive(waitSeconds = 1): Promise<number> {
    const { Messages = [] } = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
    for (const message of Messages) {
      this.arrived.push(JSON.parse(message.Body ?? '{}') as PlatformMessage);
      await this.client.send(
        new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
    return Messages.length;
  }

  /** Reads until the event (its `event_id`) arrived, at most `timeoutMs`; its messages. */
  async until(eventId: string, timeoutMs: number): Promise<PlatformMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.about(eventId).length === 0) {
      if (Date.now() > deadline)
        throw new Error(`Event ${eventId} did not reach the platform's inbox within ${timeoutMs / 1000} s`);
      await this.receive(1);
    }
    return this.about(eventId);
  }

  close(): void {
    this.client.destroy();
  }
}

/**
 * Holds the outbound pipe's enrichment failing: an inline policy on its role (locally, named after
 * the function) denies its UpdateItem, the one call it makes, on these outbox partitions (every
 * one when none is named). The pipe tries the batch again every second meanwhile, and delivers it
 * once `release` removed the policy.
 */
export async function holdEnrichment(
  aws: LocalAws,
  options: { readonly policyName: string; readonly partitions?: readonly string[] },
): Promise<{ release(): Promise<void> }> {
  const iam = new IAMClient(clientSettings(aws));
  const role = OUTBOUND_ENRICHMENT.id;
  await iam.send(
    new PutRolePolicyCommand({
      RoleName: role,
      PolicyName: options.policyName,
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Deny',
            Action: 'dynamodb:UpdateItem',
            Resource: '*',
            ...(options.partitions
              ? { Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': options.partitions } } }
              : {}),
          },
        ],
      }),
    }),
  );
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await iam.send(new DeleteRolePolicyCommand({ RoleName: role, PolicyName: options.policyName }));
      iam.destroy();
    },
  };
}
