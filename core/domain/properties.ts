/**
 * Limits of a sponsored property's fields, wherever they are set: the onboarding wizard (the
 * name), the operator CLI (`--units`), the platform's `PropertyUpdated` events, and the API's
 * schema (`GET /properties` answers the name).
 */
export const MAX_PROPERTY_NAME_LENGTH = 120;

/** Rentable units of one property: occupancy is occupied units / units, capped at 1. */
export const MAX_UNITS = 10_000;

/**
 * The partner's own id of a property (`pms_hotel_id`: in activation links, the links file and the
 * property lookup of `GET /properties`): printable ASCII without spaces, at most this long.
 */
export const MAX_PMS_HOTEL_ID_LENGTH = 128;
export const PMS_HOTEL_ID_PATTERN = `^[\\x21-\\x7e]{1,${MAX_PMS_HOTEL_ID_LENGTH}}$`;
