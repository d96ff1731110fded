import * as z from 'zod/mini';
import { MAX_CONTACT_NAME_LENGTH } from '../domain/activation-token';
import { PRODUCT_ID_PATTERN } from '../domain/catalog';
import { emailAddressSchema } from '../domain/email-address';
import {
  KNOWLEDGE_BASE_TEXT_LIMITS,
  MAX_FAQS,
  MAX_OFFERS,
  MAX_PRICE_MINOR,
  OFFER_CURRENCIES,
} from '../domain/knowledge-base';
import { LANGUAGES } from '../domain/languages';
import { MAX_PMS_HOTEL_ID_LENGTH, MAX_PROPERTY_NAME_LENGTH } from '../domain/properties';
import { SERVICE_EVENT_TYPES } from '../outbound-delivery';
import { eventSchemas } from './platform-events';
import { oneLineText, onFirstUse } from './reservation-schema';

/**
 * The events this service publishes to the platform (docs/design/events.md#what-this-service-sends):
 * the hosts an activation link provisioned, the knowledge bases they submitted in the wizard, and
 * the erasures that are done. Each is written in the same DynamoDB transaction as the change it
 * reports (an outbox item, lambdas/data/outbox.ts), and an EventBridge Pipe delivers it from the
 * table's stream to the stage's bus, whose rule forwards it to the platform's bus.
 *
 * These zod/mini schemas are the contract: the code builds each detail with their types, the tests
 * check every event delivered against them, and `npm run asyncapi` writes their JSON Schema into the
 * AsyncAPI document (the `send` operation). Built on first use, as the platform's are.
 */

const id = (description: string) =>
  z.int('must be an integer').check(z.positive('must be positive')).register(eventSchemas, { description });

const utcTimestamp = (description: string) =>
  z.iso.datetime({ error: 'must be an ISO 8601 date-time in UTC' }).register(eventSchemas, { description });

const eventId = () =>
  z.string('must be a string').check(z.uuid('must be a UUID')).register(eventSchemas, {
    description:
      'This event’s own id, the same on every delivery of it (EventBridge gives each delivery an envelope id of its own): what `npm run admin -- events sent` lists it by.',
  });

const version = (entity: string) =>
  id(
    `Grows with every change of ${entity}. Apply an event only when its version is greater than the last one applied: duplicates and any delivery order then end in the state of the highest version.`,
  );

/** Text as stored, at most `max` characters; `oneLine` for names, questions and titles. */
const storedText = (max: number, oneLine: boolean) =>
  oneLine ? oneLineText(max) : z.string('must be a string').check(z.maxLength(max, `at most ${max}`));

const hostProvisioned = onFirstUse(() =>
  z
    .object({
      event_id: eventId(),
      host_user_id: id('The host: the id of its account here (host_user_id of GET /usage).'),
      partner_id: id('The partner whose activation link provisioned the host.'),
      account: z.enum(['created', 'linked']).register(eventSchemas, {
        title: 'HostAccount',
        description:
          '"created": a new account. "linked": the account that already had this e-mail address, now sponsored by this partner for this property (also when the partner sponsors the host again).',
      }),
      contact_email: emailAddressSchema().register(eventSchemas, {
        description: 'The e-mail address the activation link was issued to.',
      }),
      contact_name: oneLineText(MAX_CONTACT_NAME_LENGTH).register(eventSchemas, {
        description: 'The contact name the activation link was issued with.',
      }),
      language: z.enum(LANGUAGES).register(eventSchemas, {
        title: 'Language',
        description: 'The language the host used the pages in: what the assistant should speak to them.',
      }),
      property: z
        .object({
          property_id: id('The property (an id of GET /properties).'),
          pms_hotel_id: oneLineText(MAX_PMS_HOTEL_ID_LENGTH).register(eventSchemas, {
            description: 'The partner’s own id of the property, from the activation link.',
          }),
          name: oneLineText(MAX_PROPERTY_NAME_LENGTH).register(eventSchemas, {
            description: 'The property’s name as stored when it was provisioned.',
          }),
        })
        .register(eventSchemas, { title: 'ProvisionedProperty', description: 'The property provisioned.' }),
      products: z
        .array(
          z
            .string('must be a string')
            .check(z.regex(PRODUCT_ID_PATTERN, 'must be a catalog product id'))
            .register(eventSchemas, { description: 'A catalog product id.' }),
        )
        .check(z.minLength(1, 'at least one product'))
        .register(eventSchemas, {
          description:
            'The products the host chose in this provisioning, each active on the property from occurred_at (whether it was already or not).',
        }),
      version: version('the host’s provisionings under this partner for this property'),
      occurred_at: utcTimestamp('When the provisioning committed.'),
    })
    .register(eventSchemas, { title: 'HostProvisionedDetail' }),
);

const knowledgeBase = () => {
  const limits = KNOWLEDGE_BASE_TEXT_LIMITS;
  return z
    .object({
      property_name: storedText(limits.details.property_name, true).register(eventSchemas, {
        description: 'The property’s name, as the host gave it in the wizard (or as provisioned).',
      }),
      checkin_instructions: storedText(limits.details.checkin_instructions, false).register(eventSchemas, {
        description:
          'Check-in instructions for guests, line feeds kept; empty when the host has no step for them.',
      }),
      faqs: z
        .array(
          z
            .object({
              question: storedText(limits.faqs.question, true),
              answer: storedText(limits.faqs.answer, false),
            })
            .register(eventSchemas, { title: 'Faq', description: 'A question guests ask, and its answer.' }),
        )
        .check(z.maxLength(MAX_FAQS, `at most ${MAX_FAQS}`))
        .register(eventSchemas, {
          description: 'What the assistant answers guests from, in the host’s order.',
        }),
      offers: z
        .array(
          z
            .object({
              title: storedText(limits.upsells.title, true),
              description: storedText(limits.upsells.description, false),
              price_minor: z
                .int('must be an integer')
                .check(z.minimum(0, 'must not be negative'), z.maximum(MAX_PRICE_MINOR, 'too large'))
                .register(eventSchemas, {
                  description: 'The guest price in minor units (cents) of currency.',
                }),
              currency: z.enum(OFFER_CURRENCIES).register(eventSchemas, {
                title: 'Currency',
                description: 'The currency of price_minor.',
              }),
            })
            .register(eventSchemas, { title: 'Offer', description: 'An offer guests can book.' }),
        )
        .check(z.maxLength(MAX_OFFERS, `at most ${MAX_OFFERS}`))
        .register(eventSchemas, { description: 'The offers guests can book, in the host’s order.' }),
    })
    .register(eventSchemas, {
      title: 'KnowledgeBase',
      description:
        'The whole knowledge base as stored when the host submitted it: it replaces any earlier one.',
    });
};

const knowledgeBaseSubmitted = onFirstUse(() =>
  z
    .object({
      event_id: eventId(),
      host_user_id: id('The host who submitted it.'),
      partner_id: id('The partner that sponsors the property (whose activation link the host used).'),
      property_id: id('The property the knowledge base is about.'),
      first_submission: z.boolean().register(eventSchemas, {
        description:
          'True the first time the host finishes the wizard (the assistant goes live); false for every later "Save my changes".',
      }),
      language: z.enum(LANGUAGES).register(eventSchemas, {
        title: 'Language',
        description: 'The language the host wrote in (the pages’ language).',
      }),
      knowledge_base: knowledgeBase(),
      version: version('the property’s knowledge base'),
      occurred_at: utcTimestamp('When the submission committed.'),
    })
    .register(eventSchemas, { title: 'KnowledgeBaseSubmittedDetail' }),
);

const hostErased = onFirstUse(() =>
  z
    .object({
      event_id: eventId(),
      host_user_id: id('The host that was erased.'),
      requested_at: utcTimestamp('When the host asked to be forgotten (from HostErasureRequested).'),
      erased_at: utcTimestamp(
        'When this service had deleted everything it must: from then on no event about the host is sent.',
      ),
    })
    .register(eventSchemas, { title: 'HostErasedDetail' }),
);

/** What each event says, in the words of the AsyncAPI document and `events sent --help`. */
export const serviceEventTypes = {
  HostProvisioned: {
    get detail() {
      return hostProvisioned();
    },
    summary:
      'An activation link provisioned a host: a new account, or the account of the same e-mail linked to this partner and property. The ids to use in the platform’s own events.',
  },
  KnowledgeBaseSubmitted: {
    get detail() {
      return knowledgeBaseSubmitted();
    },
    summary:
      'A host submitted the onboarding wizard (the first time, or a later "Save my changes"): the whole knowledge base the assistant answers guests from.',
  },
  HostErased: {
    get detail() {
      return hostErased();
    },
    summary:
      'An erasure the platform asked for (HostErasureRequested) is done here: nothing personal about the host is left, and no event about it follows. Ids only.',
  },
} as const satisfies Record<
  (typeof SERVICE_EVENT_TYPES)[number],
  { readonly detail: unknown; readonly summary: string }
>;

export type ServiceEventType = keyof typeof serviceEventTypes;

export type ServiceEventDetail<Type extends ServiceEventType> = z.output<
  (typeof serviceEventTypes)[Type]['detail']
>;

/** One event this service sends: its detail-type and detail. */
export type ServiceEvent<Of extends ServiceEventType = ServiceEventType> = {
  [Type in Of]: { readonly type: Type; readonly detail: ServiceEventDetail<Type> };
}[Of];

/** The knowledge base as `KnowledgeBaseSubmitted` carries it. */
export type SubmittedKnowledgeBase = ServiceEventDetail<'KnowledgeBaseSubmitted'>['knowledge_base'];

/** Checks an event against the contract: the problems, each naming its field, or none. */
export function serviceEventProblems(detailType: unknown, detail: unknown): string[] {
  if (typeof detailType !== 'string' || !Object.hasOwn(serviceEventTypes, detailType))
    return [`detail-type ${JSON.stringify(detailType)} is not one of ${SERVICE_EVENT_TYPES.join(', ')}`];
  const parsed = z.safeParse(
    serviceEventTypes[detailType as ServiceEventType].detail as z.ZodMiniType,
    detail,
  );
  return parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `detail${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`,
      );
}
