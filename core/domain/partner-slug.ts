/** A partner's slug: 1-40 lower-case letters, digits and hyphens, not starting or ending with a hyphen. */
const PARTNER_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** Checked before any lookup: a page address with anything else names no partner. */
export function isPartnerSlug(value: string): boolean {
  return PARTNER_SLUG.test(value);
}
