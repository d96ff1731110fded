import * as z from 'zod/mini';
import { eventSchemas, PLATFORM_EVENT_SOURCE, platformEventTypes } from '../core/contract/platform-events';
import { serviceEventTypes } from '../core/contract/service-events';
import { isOneLine, WELL_FORMED_ONE_LINE_PATTERN } from '../core/domain/text';
import {
  EVENT_BATCH_SIZE,
  EVENT_DELIVERY_ATTEMPTS,
  EVENT_VISIBILITY_TIMEOUT_SECONDS,
} from '../core/event-delivery';
import {
  OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS,
  OUTBOUND_MAXIMUM_RETRY_ATTEMPTS,
  OUTBOX_RETENTION_DAYS,
  SERVICE_EVENT_SOURCE,
} from '../core/outbound-delivery';
import { DEPLOYED_STAGES } from '../core/stages';
import { EVENT_EXAMPLES, SERVICE_EVENT_EXAMPLES } from './examples';

type Json = Record<string, unknown>;

/** The document's version: its major follows breaking changes of the contract. */
const CONTRACT_VERSION = '1.1.0';

/** The parts of a zod check the document reads: its kind and, for a refinement, its function. */
interface CheckDef {
  readonly check?: string;
  readonly fn?: unknown;
}

/**
 * The consumer's refinements that a JSON Schema can state too, stated: a text refined with
 * `isOneLine` (every one of them trimmed and non-empty: `oneLineText`) gets the pattern of exactly
 * what `isOneLine` accepts, and refuses a text of whitespace alone (empty once trimmed). Found by the
 * refinement itself, so a new field of one line is in the document without a word here.
 */
function stateRefinements({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Json }): void {
  const checks = (zodSchema as { _zod?: { def?: { checks?: { _zod: { def: CheckDef } }[] } } })._zod?.def
    ?.checks;
  if (!checks?.some(({ _zod: { def } }) => def.check === 'custom' && def.fn === isOneLine)) return;
  jsonSchema.pattern = WELL_FORMED_ONE_LINE_PATTERN;
  jsonSchema.not = { pattern: '^\\s*$' };
}

function detailSchema(schema: z.ZodMiniType): Json {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    metadata: eventSchemas,
    io: 'input',
    // Rules between fields (a reservation's dates) stay in the descriptions.
    unrepresentable: 'any',
    override: stateRefinements,
  }) as Json;
  return json;
}

/** One direction of the contract: its events' messages and detail schemas, and what delivers them. */
interface Direction {
  readonly source: string;
  readonly types: Record<string, { readonly detail: unknown; readonly summary: string }>;
  readonly examples: Record<string, { readonly detail: unknown }>;
  /** The payload's description: the envelope as the receiver gets it. */
  readonly envelope: (type: string) => string;
  /** The example's `time`, when the envelope has one the receiver reads. */
  readonly exampleTime?: (detail: Record<string, unknown>) => string;
}

function messagesOf(direction: Direction): { messages: Record<string, Json>; schemas: Record<string, Json> } {
  const messages: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  for (const [type, { detail, summary }] of Object.entries(direction.types)) {
    // Titled, so that generated models are named after it (the service's are titled in their schemas).
    schemas[`${type}Detail`] = { title: `${type}Detail`, ...detailSchema(detail as z.ZodMiniType) };
    const example = direction.examples[type]?.detail as Record<string, unknown>;
    const time = direction.exampleTime ? { time: direction.exampleTime(example) } : {};
    messages[type] = {
      name: type,
      title: type,
      summary,
      contentType: 'application/json',
      payload: {
        type: 'object',
        title: `${type}Event`,
        description: direction.envelope(type),
        required: ['source', 'detail-type', 'detail', ...Object.keys(time)],
        properties: {
          source: { const: direction.source },
          'detail-type': { const: type },
          ...(direction.exampleTime
            ? { time: { type: 'string', format: 'date-time', description: 'When the change committed.' } }
            : {}),
          detail: { $ref: `#/components/schemas/${type}Detail` },
        },
      },
      examples: [
        {
          name: `${type}Example`,
          summary: `A ${type} about the demo data of npm start`,
          payload: { source: direction.source, 'detail-type': type, ...time, detail: example },
        },
      ],
    };
  }
  return { messages, schemas };
}

const PLATFORM: Direction = {
  source: PLATFORM_EVENT_SOURCE,
  types: platformEventTypes,
  examples: EVENT_EXAMPLES,
  envelope: (type) =>
    `An EventBridge event with source "${PLATFORM_EVENT_SOURCE}" and detail-type "${type}". EventBridge adds id, time, account, region and resources. time is when the event was published (the PutEvents Time if the publisher gives one): an event published before the entity it names existed is refused as not about it, and one whose time is more than 5 minutes ahead of the consumer's clock is refused.`,
};

const SERVICE: Direction = {
  source: SERVICE_EVENT_SOURCE,
  types: serviceEventTypes,
  examples: SERVICE_EVENT_EXAMPLES,
  envelope: (type) =>
    `An EventBridge event with source "${SERVICE_EVENT_SOURCE}" and detail-type "${type}", as the platform's bus receives it; EventBridge gives each delivery an id of its own (deduplicate by detail.event_id). time is when the change committed.`,
  exampleTime: (detail) => String(detail.occurred_at ?? detail.erased_at),
};

const RECEIVE_DELIVERY = `Delivery: an EventBridge rule sends the events to an SQS queue; the consumer takes batches of up to ${EVENT_BATCH_SIZE} with partial batch responses. An event that breaks this contract, names an unknown id, or disagrees with another event of the same version goes to the dead-letter queue with its reason at once; one that keeps failing for another reason goes there after ${EVENT_DELIVERY_ATTEMPTS} deliveries, ${EVENT_VISIBILITY_TIMEOUT_SECONDS} s apart.`;

const SEND_DELIVERY = [
  `Delivery: each event is written in the same DynamoDB transaction as the change it reports; an EventBridge Pipe reads it from the table's stream and puts it on the stage's outbound bus, whose rule forwards it to the platform's bus. At least once, in any order: an event may come more than once, and a later change before an earlier one. A failed delivery is tried again${OUTBOUND_MAXIMUM_RETRY_ATTEMPTS < 0 ? '' : ` up to ${OUTBOUND_MAXIMUM_RETRY_ATTEMPTS} times`} until the change is ${OUTBOUND_MAXIMUM_RECORD_AGE_SECONDS / 3_600} hours old; the partner API's operators can list what it sent for ${OUTBOX_RETENTION_DAYS} days.`,
  'How to apply them: event_id is the same on every delivery of an event (deduplicate by it, not by the envelope id). Apply an event only when its version is greater than the last one applied to its entity: a HostProvisioned is about partner_id + property.property_id, a KnowledgeBaseSubmitted about property_id. HostErased is final: after it, drop any event about that host_user_id delivered later, whatever its version (one sent before the erasure may arrive after it).',
].join(' ');

function servers(): Json {
  return Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [
      stage,
      {
        host: 'events.{region}.amazonaws.com',
        protocol: 'https',
        description: `The ${stage} stage's EventBridge buses, through the PutEvents API (SigV4-signed; on the platform's events bus, with the platform's account or role allowed by the bus policy).`,
        variables: { region: { description: 'The AWS region of the stage.', default: 'eu-west-1' } },
      },
    ]),
  );
}

const stageParameter = { stage: { enum: [...DEPLOYED_STAGES], description: 'The deployed stage.' } };

const channelMessages = (types: object) =>
  Object.fromEntries(Object.keys(types).map((type) => [type, { $ref: `#/components/messages/${type}` }]));

function channels(): Json {
  return {
    platformEvents: {
      address: 'partner-api-{stage}-platform-events',
      title: 'The stage’s bus of the platform’s events',
      description: `The EventBridge bus of a stage that the platform puts its events on. Put each event with Source "${PLATFORM_EVENT_SOURCE}", its DetailType, and its detail as the JSON Detail.`,
      parameters: stageParameter,
      messages: channelMessages(platformEventTypes),
    },
    serviceEvents: {
      address: 'partner-api-{stage}-service-events',
      title: 'The stage’s outbound bus',
      description: `The EventBridge bus of a stage that the partner API puts its own events on (source "${SERVICE_EVENT_SOURCE}"). Its rule forwards each of them to the platform's bus of the stage (the stage setting platformEventBus, in the platform's account): the platform receives them there, unchanged.`,
      parameters: stageParameter,
      messages: channelMessages(serviceEventTypes),
    },
  };
}

const operationMessages = (channel: string, types: object) =>
  Object.keys(types).map((type) => ({ $ref: `#/channels/${channel}/messages/${type}` }));

function operations(): Json {
  return {
    applyPlatformEvents: {
      action: 'receive',
      title: 'Apply the platform’s events',
      summary: 'The partner API receives every event of the platform and applies it to what partners read.',
      description: RECEIVE_DELIVERY,
      channel: { $ref: '#/channels/platformEvents' },
      messages: operationMessages('platformEvents', platformEventTypes),
    },
    sendServiceEvents: {
      action: 'send',
      title: 'Tell the platform what hosts did here',
      summary:
        'The partner API sends the hosts an activation link provisioned, the knowledge bases they submitted, and the erasures it finished.',
      description: SEND_DELIVERY,
      channel: { $ref: '#/channels/serviceEvents' },
      messages: operationMessages('serviceEvents', serviceEventTypes),
    },
  };
}

/**
 * The AsyncAPI 3.0 document of the events between the host platform and the partner API
 * (`asyncapi/platform-events.json`), both directions, generated from the zod schemas each side is
 * checked with: what the platform sends, from those the consumer validates with
 * (`core/contract/platform-events.ts`, the `receive` operation); what the partner API sends, from
 * those its events are built and tested with (`core/contract/service-events.ts`, the `send`
 * operation). Each channel is a stage's EventBridge bus, each message an EventBridge event whose
 * `detail` follows the contract. `npm run asyncapi` writes it; `npm run check` fails when it is
 * stale or invalid.
 */
export function eventsDocument(): Json {
  const platform = messagesOf(PLATFORM);
  const service = messagesOf(SERVICE);
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Events between the host platform and the partner API',
      version: CONTRACT_VERSION,
      description: [
        'Both directions of the events between the host platform and the partner API.',
        'What the host platform publishes about hosts after onboarding, and the partner API applies (the receive operation): seats switched on and off, property changes, sponsorships ending, reservations, and erasure requests. Each event carries a version per entity (a seat is property_id + product_id; a property; a sponsorship is partner_id + host_user_id; a reservation is property_id + reservation.id) that grows with every change. An event whose version is not greater than the one already applied changes nothing, so duplicates and any delivery order end in the state of the highest version. Each event is applied in one DynamoDB transaction or not at all. Unknown fields of a detail are ignored.',
        'What the partner API sends the platform (the send operation): the hosts an activation link provisioned, the knowledge bases they submitted in the onboarding wizard, and the erasures it finished. Each carries its own event_id and, but for HostErased, a version per entity.',
        'The design: docs/design/events.md in the partner API repository.',
      ].join('\n\n'),
    },
    defaultContentType: 'application/json',
    servers: servers(),
    channels: channels(),
    operations: operations(),
    components: {
      messages: { ...platform.messages, ...service.messages },
      schemas: { ...platform.schemas, ...service.schemas },
    },
  };
}
