import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isPartnerSlug } from '../../core/domain/partner-slug';
import { unseal } from '../common/secret-box';
import { loadServiceKey } from '../common/service-secrets';
import { listCatalog } from '../data/catalog';
import { getKnowledgeBase } from '../data/knowledge-base';
import { getPartnerLogo } from '../data/partner-logos';
import type { Partner } from '../data/partners';
import { getPartner, getPartnerIdBySlug, getSealedSigningSecret } from '../data/partners';
import { getPropertyOfPartner } from '../data/properties';
import { listActiveProductsOfProperty } from '../data/seats';
import type { PartnerFace } from './activation-layout';
import type { HostSession } from './host-session';
import { readSession } from './host-session';
import type { PageResponse } from './html';
import type { HostLocale } from './messages';
import { partnerUnavailablePage, sessionEndedPage, unknownPartnerPage } from './page-responses';

/** Looked-up data that changes rarely, kept for a minute per warm instance. */
const CACHE_MS = 60_000;
const cache = new Map<string, { value: unknown; at: number }>();

/** A cached value, reloaded when older than CACHE_MS or when `lacks` says it cannot answer. */
async function cached<T>(key: string, load: () => Promise<T>, lacks?: (value: T) => boolean): Promise<T> {
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS && !lacks?.(hit.value as T)) return hit.value as T;
  const value = await load();
  if (value !== undefined) cache.set(key, { value, at: Date.now() });
  return value;
}

/** Forgets cached lookups (tests). */
export function forgetCachedLookups(): void {
  cache.clear();
}

/**
 * The partner a page address names; a malformed slug is answered without a lookup. Which partner a
 * slug names is kept (a minute); the partner itself is read on every page, strongly consistent, so
 * a suspension (or a resumption) shows on the next page a host opens, never a minute later.
 */
export async function partnerForSlug(slug: string): Promise<Partner | undefined> {
  if (!isPartnerSlug(slug)) return undefined;
  const partnerId = await cached(`slug:${slug}`, () => getPartnerIdBySlug(slug));
  return partnerId === undefined ? undefined : getPartner(partnerId, { consistent: true });
}
/**
 * The product catalog. A product added since it was cached is read at once when a link names it,
 * so an operator can add a product, put it in an agreement and mint a link in the same minute.
 */
export const productCatalog = (named: readonly string[] = []) =>
  cached('catalog', listCatalog, (catalog) =>
    named.some((id) => !catalog.some((product) => product.id === id)),
  );

export async function signingSecretOf(partnerId: number): Promise<Buffer | undefined> {
  return cached(`secret:${partnerId}`, async () => {
    const sealed = await getSealedSigningSecret(partnerId);
    return sealed ? unseal(sealed, await loadServiceKey('sealing')) : undefined;
  });
}

/**
 * The partner as the pages show it. The logo is read by its digest, so a new logo is shown as
 * soon as the cached partner names it; the page inlines it as a data: URL, so no page ever
 * fetches an image from anywhere (CSP `img-src 'self' data:`).
 */
export async function partnerFace(partner: Partner): Promise<PartnerFace> {
  const { branding } = partner;
  const logo = branding?.logo
    ? await cached(`logo:${partner.id}:${branding.logo.sha256}`, () => getPartnerLogo(partner.id))
    : undefined;
  return {
    name: partner.name,
    ...(logo ? { logo: `data:${logo.contentType};base64,${logo.data}` } : {}),
    ...(branding?.website ? { website: branding.website } : {}),
    ...(branding?.accentColor ? { accentColor: branding.accentColor } : {}),
  };
}

export async function sessionKey(): Promise<Buffer> {
  return loadServiceKey('session');
}

/**
 * The partner a page's address names and the host's session for it, with the session key; or,
 * when either is missing, the page that tells the host why and what to do.
 */
export async function openSession(
  event: APIGatewayProxyEvent,
  locale: HostLocale,
): Promise<
  { partner: Partner; face: PartnerFace; session: HostSession; key: Buffer } | { page: PageResponse }
> {
  const partner = await partnerForSlug(event.pathParameters?.slug ?? '');
  if (!partner) return { page: unknownPartnerPage(locale) };
  const [key, face] = await Promise.all([sessionKey(), partnerFace(partner)]);
  if (partner.suspension) return { page: partnerUnavailablePage(locale, face) };
  const session = readSession(event, key, partner.slug, Date.now());
  if (!session) return { page: sessionEndedPage(locale, face) };
  return { partner, face, session, key };
}

/**
 * A provisioned property as the onboarding wizard reads it: the property (strongly consistent: it
 * was provisioned a moment ago; undefined once the partner no longer sponsors it), its knowledge
 * base, its products.
 */
export async function provisionedProperty(partnerId: number, propertyId: number) {
  const [property, knowledgeBase, products] = await Promise.all([
    getPropertyOfPartner(partnerId, propertyId, { consistent: true }),
    getKnowledgeBase(propertyId),
    listActiveProductsOfProperty(partnerId, propertyId),
  ]);
  return { property, knowledgeBase, products };
}
