import * as z from 'zod/mini';
import { eventSchemas, PLATFORM_EVENT_SOURCE, platformEventTypes } from '../core/contract/platform-events';
import { isOneLine, WELL_FORMED_ONE_LINE_PATTERN } from '../core/domain/text';
import {
  EVENT_BATCH_SIZE,
  EVENT_DELIVERY_ATTEMPTS,
  EVENT_VISIBILITY_TIMEOUT_SECONDS,
} from '../core/event-delivery';
import { DEPLOYED_STAGES } from '../core/stages';
import { EVENT_EXAMPLES } from './examples';

type Json = Record<string, unknown>;

/** The document's version: its major follows breaking changes of the contract. */
const CONTRACT_VERSION = '1.0.1';

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

/**
 * The AsyncAPI 3.0 document of the platform's events (`asyncapi/platform-events.json`), generated
 * from the zod schemas the consumer validates with (`core/contract/platform-events.ts`): the
 * channel is the stage's EventBridge bus, each message an EventBridge event whose `detail` follows
 * the contract. `npm run asyncapi` writes it; `npm run check` fails when it is stale or invalid.
 */
export function platformEventsDocument(): Json {
  const messages: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  for (const [type, { detail, summary }] of Object.entries(platformEventTypes)) {
    // Titled, so that generated models are named after it.
    schemas[`${type}Detail`] = { title: `${type}Detail`, ...detailSchema(detail as z.ZodMiniType) };
    const example = EVENT_EXAMPLES[type as keyof typeof EVENT_EXAMPLES];
    messages[type] = {
      name: type,
      title: type,
      summary,
      contentType: 'application/json',
      payload: {
        type: 'object',
        description: `An EventBridge event with source "${PLATFORM_EVENT_SOURCE}" and detail-type "${type}". EventBridge adds id, time, account, region and resources. time is when the event was published (the PutEvents Time if the publisher gives one): an event published before the entity it names existed is refused as not about it, and one whose time is more than 5 minutes ahead of the consumer's clock is refused.`,
        required: ['source', 'detail-type', 'detail'],
        properties: {
          source: { const: PLATFORM_EVENT_SOURCE },
          'detail-type': { const: type },
          detail: { $ref: `#/components/schemas/${type}Detail` },
        },
      },
      examples: [
        {
          name: `${type}Example`,
          summary: `A ${type} about the demo data of npm start`,
          payload: { source: PLATFORM_EVENT_SOURCE, 'detail-type': type, detail: example.detail },
        },
      ],
    };
  }
  const messageRefs = Object.keys(messages).map((type) => ({
    $ref: `#/channels/platformEvents/messages/${type}`,
  }));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Host platform events consumed by the partner API',
      version: CONTRACT_VERSION,
      description: [
        'What the host platform publishes about hosts after onboarding, and the partner API applies: seats switched on and off, property changes, sponsorships ending, reservations, and erasure requests.',
        'Each event carries a version per entity (a seat is property_id + product_id; a property; a sponsorship is partner_id + host_user_id; a reservation is property_id + reservation.id) that grows with every change. An event whose version is not greater than the one already applied changes nothing, so duplicates and any delivery order end in the state of the highest version. Each event is applied in one DynamoDB transaction or not at all.',
        `Delivery: an EventBridge rule sends the events to an SQS queue; the consumer takes batches of up to ${EVENT_BATCH_SIZE} with partial batch responses. An event that breaks this contract, names an unknown id, or disagrees with another event of the same version goes to the dead-letter queue with its reason at once; one that keeps failing for another reason goes there after ${EVENT_DELIVERY_ATTEMPTS} deliveries, ${EVENT_VISIBILITY_TIMEOUT_SECONDS} s apart.`,
        'Unknown fields of a detail are ignored. The design: docs/design/events.md in the partner API repository.',
      ].join('\n\n'),
    },
    defaultContentType: 'application/json',
    servers: Object.fromEntries(
      DEPLOYED_STAGES.map((stage) => [
        stage,
        {
          host: 'events.{region}.amazonaws.com',
          protocol: 'https',
          description: `The ${stage} stage's EventBridge bus, through the PutEvents API (SigV4-signed, with the platform's account or role allowed by the bus policy).`,
          variables: { region: { description: 'The AWS region of the stage.', default: 'eu-west-1' } },
        },
      ]),
    ),
    channels: {
      platformEvents: {
        address: 'partner-api-{stage}-platform-events',
        title: 'The stage’s event bus',
        description: `The EventBridge bus of a stage. Put each event with Source "${PLATFORM_EVENT_SOURCE}", its DetailType, and its detail as the JSON Detail.`,
        parameters: {
          stage: { enum: [...DEPLOYED_STAGES], description: 'The deployed stage.' },
        },
        messages: Object.fromEntries(
          Object.keys(messages).map((type) => [type, { $ref: `#/components/messages/${type}` }]),
        ),
      },
    },
    operations: {
      applyPlatformEvents: {
        action: 'receive',
        title: 'Apply the platform’s events',
        summary: 'The partner API receives every event of the contract and applies it to what partners read.',
        channel: { $ref: '#/channels/platformEvents' },
        messages: messageRefs,
      },
    },
    components: { messages, schemas },
  };
}
