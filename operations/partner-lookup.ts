import type { Partner } from '../lambdas/data/partners';
import { getPartnerBySlug, listPartners } from '../lambdas/data/partners';
import { didYouMean } from './did-you-mean';
import { OperatorError } from './operator-error';

/** The partner an operator named, read consistently (commands decide on what they read). */
export async function requirePartner(slug: string): Promise<Partner> {
  const partner = await getPartnerBySlug(slug, { consistent: true });
  if (!partner) throw await noSuchPartner(slug);
  return partner;
}

/** The error for a slug no partner has, naming the nearest one there is. */
export async function noSuchPartner(slug: string): Promise<OperatorError> {
  const slugs = (await listPartners()).map((partner) => partner.slug);
  return new OperatorError(
    `No partner with slug "${slug}".${didYouMean(slug, slugs)} List them with: npm run admin -- partners list`,
  );
}
