import * as z from 'zod/mini';
import { MAX_PROPERTY_NAME_LENGTH } from '../domain/properties';
import { MAX_LEAD_TIME_DAYS, MAX_STAY_NIGHTS } from '../domain/reservations';
import { ONE_LINE_PATTERN } from '../domain/text';
import { PROBLEM_TYPE_BASE, problemCatalog, problemTypeUri } from './problems';

/**
 * The response bodies of the partner API, as zod/mini schemas: the single source of the OpenAPI
 * document (`npm run openapi`) and of the tests' contract check. Handlers import only its types
 * (no schema is built at a cold start); their return types come from `responseSchemas`.
 */
export interface SchemaMeta {
  id?: string;
  description?: string;
  examples?: unknown[];
  [key: string]: unknown;
}

/** Named schemas become `components.schemas` of the document. */
export const apiSchemas = z.registry<SchemaMeta>();

const MAX_LIST_ITEMS = 1_000_000;
/** Every problem type the API answers with, from the catalogue: an enum, so generated clients get a union. */
const PROBLEM_TYPE_URIS = (Object.keys(problemCatalog) as (keyof typeof problemCatalog)[]).map(
  problemTypeUri,
);
/** Text without control characters: what every name and message of the API is. */
const PRINTABLE = new RegExp(ONE_LINE_PATTERN);
const text = (min: number, max: number) =>
  z.string().check(z.minLength(min), z.maxLength(max), z.regex(PRINTABLE));
const id = (description: string) =>
  z.int().check(z.positive()).register(apiSchemas, { description, format: 'int64' });
const count = (description: string) =>
  z.int().check(z.nonnegative()).register(apiSchemas, { description, format: 'int64' });
const timestamp = (description: string) =>
  z.iso.datetime().check(z.maxLength(30)).register(apiSchemas, { description });
const ratio = (description: string) =>
  z.number().check(z.minimum(0), z.maximum(1)).register(apiSchemas, { description, format: 'double' });

const hostSeatsSchema = z
  .object({
    host_user_id: id('Opaque host user identifier.'),
    active_seats: count('Active seats of that host (one per product active on one of its properties).'),
  })
  .register(apiSchemas, {
    id: 'HostSeats',
    description: 'Per-host seat breakdown. Host e-mail addresses are deliberately omitted.',
  });

const usageReportSchema = z
  .object({
    partner_id: id('The authenticated partner.'),
    generated_at: timestamp('ISO 8601 UTC timestamp.'),
    active_seats: count('Total active seats of the partner.'),
    hosts: z.array(hostSeatsSchema).check(z.maxLength(MAX_LIST_ITEMS)),
  })
  .register(apiSchemas, { id: 'UsageReport', description: 'Seat usage of the hosts the partner sponsors.' });

export const propertySummarySchema = z
  .object({
    id: id('Internal property identifier; the propertyId of the pricing-signals path.'),
    name: text(1, MAX_PROPERTY_NAME_LENGTH).register(apiSchemas, { description: 'Property name.' }),
  })
  .register(apiSchemas, {
    id: 'PropertySummary',
    description: 'A sponsored property. Host personal data beyond the name is omitted.',
  });

export const propertyListSchema = z
  .object({
    partner_id: id('The authenticated partner.'),
    generated_at: timestamp('ISO 8601 UTC timestamp.'),
    properties: z.array(propertySummarySchema).check(z.maxLength(MAX_LIST_ITEMS)),
  })
  .register(apiSchemas, {
    id: 'PropertyList',
    description:
      'Properties of hosts sponsored by the partner, in ascending id order: all of them, or one page with limit (the Link header leads to the next). Large bodies are gzip-compressed for requests with an Accept header and Accept-Encoding: gzip.',
  });

const signalsSchema = z
  .looseObject({
    occupancy_today: ratio('Occupied units tonight divided by units, capped at 1.'),
    avg_lead_time_days: z
      .number()
      .check(z.minimum(-MAX_LEAD_TIME_DAYS), z.maximum(MAX_LEAD_TIME_DAYS))
      .register(apiSchemas, {
        description: 'Mean of check_in minus the booking date, in days, over the lookback window.',
        format: 'double',
      }),
    avg_stay_nights: z.number().check(z.minimum(0), z.maximum(MAX_STAY_NIGHTS)).register(apiSchemas, {
      description: 'Mean stay length in nights over the lookback window.',
      format: 'double',
    }),
    source_mix: z
      .record(text(1, 64), ratio('Share of the reservations in the window.'))
      .check(z.maxSize(256))
      .register(apiSchemas, {
        description:
          'Booking channel → its share of total_reservations (shares sum to 1; empty without reservations).',
        maxProperties: 256,
      }),
    total_reservations: count('Confirmed reservations booked in the lookback window.'),
  })
  .register(apiSchemas, {
    id: 'Signals',
    description:
      'Pricing indicators. This set of fields may grow within v1: clients must ignore fields they do not know.',
    maxProperties: 64,
  });

export const pricingSignalsSchema = z
  .object({
    property_id: id('The queried property.'),
    signals: signalsSchema,
    occupancy_30d: z
      .record(
        z.iso.date().check(z.maxLength(10)),
        ratio('Occupied units divided by units on that night, capped at 1.'),
      )
      .register(apiSchemas, {
        description: 'The 30 nights from today (UTC), keyed YYYY-MM-DD.',
        maxProperties: 30,
      }),
  })
  .register(apiSchemas, { id: 'PricingSignals', description: 'Pricing signals of one property.' });

export const problemSchema = z
  .object({
    type: z.enum(PROBLEM_TYPE_URIS).register(apiSchemas, {
      description: `Identifies the problem type; stable. Branch on it: ${PROBLEM_TYPE_BASE} followed by the problem's name.`,
    }),
    title: text(1, 100).register(apiSchemas, { description: 'Short summary of the problem type.' }),
    status: z.optional(
      z
        .int()
        .check(z.minimum(100), z.maximum(599))
        .register(apiSchemas, { description: 'HTTP status code.', format: 'int32' }),
    ),
    detail: text(1, 1_000).register(apiSchemas, {
      description: 'What happened and what to do, in plain words.',
    }),
    request_id: z
      .uuid()
      .check(z.maxLength(36))
      .register(apiSchemas, { description: 'Same as the x-amzn-RequestId header: quote it to support.' }),
  })
  .register(apiSchemas, { id: 'Problem', description: 'RFC 9457 problem details.' });

/**
 * The 200 bodies by name, as routes name them (`responseSchema` in `core/routes.ts`): a handler's
 * return type is the schema's, so a handler and the document cannot disagree on a field.
 */
export const responseSchemas = {
  UsageReport: usageReportSchema,
  PropertyList: propertyListSchema,
  PricingSignals: pricingSignalsSchema,
} as const;
