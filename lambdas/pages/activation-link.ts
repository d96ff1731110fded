import type { ActivationClaims } from '../../core/domain/activation-token';
import { claimedNonce, verifyActivationToken } from '../../core/domain/activation-token';
import { getIssuedLink } from '../data/activation-links';
import { getConsumedNonce } from '../data/activation-nonces';
import type { Partner } from '../data/partners';
import { getPartner } from '../data/partners';
import { signingSecretOf } from './activation-lookups';
import type { LinkProblem } from './page-responses';

/**
 * The verification order of docs/design/activation-links.md, after the slug: shape and size,
 * signature, claims, expiry, then the nonce. A bad signature is told apart from a link of
 * another partner by the record of issued links. Reads only: opening a link consumes nothing.
 */
export async function checkActivationLink(
  partner: Partner,
  token: string,
  nowMs: number,
): Promise<
  { ok: true; claims: ActivationClaims } | { ok: false; problem: LinkProblem; claims?: ActivationClaims }
> {
  const secret = await signingSecretOf(partner.id);
  if (!secret) return { ok: false, problem: 'invalid' };
  const check = verifyActivationToken(token, secret, nowMs);
  if (!check.ok) {
    if (check.reason === 'bad-signature')
      return {
        ok: false,
        problem: (await issuedByAnotherPartner(partner, token, nowMs)) ? 'foreign' : 'tampered',
      };
    if (check.reason === 'invalid-claims') return { ok: false, problem: 'invalid' };
    return { ok: false, problem: check.reason, claims: check.claims };
  }
  if (await getConsumedNonce(partner.id, check.claims.nonce))
    return { ok: false, problem: 'used', claims: check.claims };
  return { ok: true, claims: check.claims };
}

async function issuedByAnotherPartner(partner: Partner, token: string, nowMs: number): Promise<boolean> {
  const nonce = claimedNonce(token);
  const issued = nonce ? await getIssuedLink(nonce) : undefined;
  if (!issued || issued.partnerId === partner.id) return false;
  const owner = await getPartner(issued.partnerId);
  const ownerSecret = owner ? await signingSecretOf(owner.id) : undefined;
  const check = ownerSecret ? verifyActivationToken(token, ownerSecret, nowMs) : undefined;
  return check !== undefined && (check.ok || check.reason === 'expired');
}
