/**
 * Partition-key prefixes of the table's entities. The key builders of the data modules use
 * them, and the stack names them in IAM conditions (`dynamodb:LeadingKeys`), so a function's
 * grants and the keys it writes cannot drift apart. Side-effect free: the stack imports it.
 */
export const API_KEY_PARTITION = 'APIKEY#';
export const RATE_LIMIT_PARTITION = 'RATELIMIT#';
export const PARTNER_PARTITION = 'PARTNER#';
export const PROPERTY_PARTITION = 'PROPERTY#';
export const HOST_PARTITION = 'HOST#';
export const HOST_EMAIL_PARTITION = 'HOSTEMAIL#';
export const NONCE_PARTITION = 'NONCE#';
export const COUNTER_PARTITION = 'COUNTER#';
export const REVEAL_PARTITION = 'REVEAL#';

export const partnerPartition = (partnerId: number) => `${PARTNER_PARTITION}${partnerId}`;
export const propertyPartition = (propertyId: number) => `${PROPERTY_PARTITION}${propertyId}`;
