import type * as z from 'zod/mini';
import type { responseSchemas } from '../core/contract/api-schemas';
import { encodePageCursor } from '../core/domain/page-cursor';
import type { ResponseSchemaName } from '../core/routes';
import { API_BASE_PATH, PAGE_CURSOR, PAGE_LIMIT } from '../core/routes';

/**
 * The 200 examples of the document: one partner's data as the local demo seeds it, typed by the
 * response schemas (a field the schema does not have fails the type check) and validated against
 * the generated document by `test/unit/openapi-examples.test.ts`.
 */
type Body<Name extends ResponseSchemaName> = z.output<(typeof responseSchemas)[Name]>;

const GENERATED_AT = '2026-11-22T10:05:12.004Z';
const PARTNER_ID = 1;

const usageExample: Body<'UsageReport'> = {
  partner_id: PARTNER_ID,
  generated_at: GENERATED_AT,
  active_seats: 12,
  hosts: [
    { host_user_id: 1, active_seats: 5 },
    { host_user_id: 2, active_seats: 4 },
    { host_user_id: 3, active_seats: 3 },
  ],
};

const PROPERTIES = [
  { id: 1, name: 'Seaside Loft' },
  { id: 2, name: 'Harbour View Apartments' },
  { id: 3, name: 'Old Town Studio' },
  { id: 4, name: 'Casa Verde' },
  { id: 5, name: 'Lakeside Cabins' },
];

const propertyListExample: Body<'PropertyList'> = {
  partner_id: PARTNER_ID,
  generated_at: GENERATED_AT,
  properties: PROPERTIES,
};

/** The first page of the same list with `limit=2`; its Link header is {@link propertyPageLink}. */
const propertyPageExample: Body<'PropertyList'> = {
  ...propertyListExample,
  properties: PROPERTIES.slice(0, 2),
};

/** A cursor of the shape the API issues (signed with an example key, so it works nowhere). */
const exampleCursor = encodePageCursor(Buffer.alloc(32, 7), PARTNER_ID, 2);

/** The path as API Gateway gives it behind production's custom domain (no stage segment). */
export const propertyPageLink = `<${API_BASE_PATH}/properties?${PAGE_LIMIT.name}=2&${PAGE_CURSOR.name}=${exampleCursor}>; rel="next"`;

const OCCUPANCY = [
  0.75, 1, 1, 0.75, 0.5, 0.5, 0.25, 0.5, 0.75, 1, 1, 1, 0.75, 0.5, 0.25, 0.25, 0.5, 0.5, 0.75, 1, 1, 0.75,
  0.5, 0.25, 0, 0.25, 0.5, 0.75, 0.75, 0.5,
];

const pricingSignalsExample: Body<'PricingSignals'> = {
  property_id: 2,
  signals: {
    occupancy_today: 0.75,
    avg_lead_time_days: 29.4,
    avg_stay_nights: 4.3,
    source_mix: { Airbnb: 0.35, 'Booking.com': 0.15, Direct: 0.2, Vrbo: 0.3 },
    total_reservations: 20,
  },
  occupancy_30d: Object.fromEntries(
    OCCUPANCY.map((ratio, night) => [
      new Date(Date.parse('2026-11-22T00:00:00Z') + night * 86_400_000).toISOString().slice(0, 10),
      ratio,
    ]),
  ),
};

/**
 * The 200 examples of each response schema, by name: what the document shows under each route.
 * A schema added to `responseSchemas` fails the type check here until it has one.
 */
export const SUCCESS_EXAMPLES: {
  readonly [Name in ResponseSchemaName]: Record<string, { summary: string; value: Body<Name> }>;
} = {
  UsageReport: { usage: { summary: 'Three sponsored hosts, 12 seats', value: usageExample } },
  PropertyList: {
    wholeList: { summary: 'The whole list (no limit)', value: propertyListExample },
    byPmsHotelId: {
      summary: 'With pms_hotel_id=PMS-1002: that property alone (an empty list when none has it)',
      value: { ...propertyListExample, properties: PROPERTIES.slice(1, 2) },
    },
    firstPage: {
      summary: 'The first page with limit=2 (a Link header points to the next)',
      value: propertyPageExample,
    },
  },
  PricingSignals: {
    signals: { summary: 'A property with 20 reservations in the window', value: pricingSignalsExample },
  },
};
