/**
 * Partition-key prefixes of the table's entities, and of its global index. The key builders of
 * the data modules use them, and the stack names them in IAM conditions (`dynamodb:LeadingKeys`),
 * so a function's grants and the keys it reads and writes cannot drift apart. Side-effect free:
 * the stack imports it.
 */
export const API_KEY_PARTITION = 'APIKEY#';
export const RATE_LIMIT_PARTITION = 'RATELIMIT#';
export const PARTNER_PARTITION = 'PARTNER#';
export const PARTNER_SLUG_PARTITION = 'PARTNERSLUG#';
/** Sealed activation signing secrets: apart from the partner's items, which pages write. */
export const SIGNING_SECRET_PARTITION = 'SIGNING_SECRET#';
export const PROPERTY_PARTITION = 'PROPERTY#';
export const HOST_PARTITION = 'HOST#';
export const HOST_EMAIL_PARTITION = 'HOSTEMAIL#';
export const NONCE_PARTITION = 'NONCE#';
export const ACTIVATION_LINK_PARTITION = 'ACTIVATION_LINK#';
export const COUNTER_PARTITION = 'COUNTER#';
export const REVEAL_PARTITION = 'REVEAL#';
export const PRODUCT_PARTITION = 'PRODUCT#';
/** The audit trail: one partition per partner, and one for events of no partner (the catalog). */
export const AUDIT_PARTITION = 'AUDIT#';
/**
 * The outbox: the events this service sends the platform, one partition per host, each written in
 * the transaction of the change it reports (docs/design/events.md#what-this-service-sends).
 */
export const OUTBOX_PARTITION = 'OUTBOX#';

/**
 * The data migrations' records, one item each (`MIGRATION#0001`): which ran, by whom, how far
 * (docs/design/data-migrations.md). Only the operator CLI reads or writes it.
 */
export const MIGRATIONS_PARTITION = 'MIGRATIONS';

/** Partitions of the global index (GSI1PK) that functions query. */
export const PARTNERS_INDEX_PARTITION = 'PARTNERS';
export const CATALOG_INDEX_PARTITION = 'PRODUCTS';
/** Every audit event on the index, newest first by time: the trail across partners. */
export const AUDIT_INDEX_PARTITION = 'AUDIT';
/** The outbox's events of one UTC day on the index, by time (`events sent`): `OUTBOX_DAY#2026-11-28`. */
export const OUTBOX_INDEX_PARTITION = 'OUTBOX_DAY#';

export const partnerPartition = (partnerId: number) => `${PARTNER_PARTITION}${partnerId}`;
export const propertyPartition = (propertyId: number) => `${PROPERTY_PARTITION}${propertyId}`;
