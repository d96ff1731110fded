import type { Partner } from '../lambdas/data/partners';
import { getPartnerBySlug } from '../lambdas/data/partners';
import { OperatorError } from './operator-error';

/** The partner an operator named, read consistently (commands decide on what they read). */
export async function requirePartner(slug: string): Promise<Partner> {
  const partner = await getPartnerBySlug(slug, { consistent: true });
  if (!partner)
    throw new OperatorError(`No partner with slug "${slug}". List them with: npm run admin -- partners list`);
  return partner;
}
