/**
 * Limits of a sponsored property's fields, wherever they are set: the onboarding wizard (the
 * name), the operator CLI (`--units`), the platform's `PropertyUpdated` events, and the API's
 * schema (`GET /properties` answers the name).
 */
export const MAX_PROPERTY_NAME_LENGTH = 120;

/** Rentable units of one property: occupancy is occupied units / units, capped at 1. */
export const MAX_UNITS = 10_000;
