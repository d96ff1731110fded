import type { APIGatewayProxyEvent } from 'aws-lambda';
import { checkActivationLink } from './activation-link';
import { partnerFace, partnerForSlug, sessionKey } from './activation-lookups';
import { newSession, sessionCookie } from './host-session';
import { hostPageHandler } from './page-handler';
import {
  linkProblemPage,
  partnerUnavailablePage,
  secureCookies,
  seeOther,
  unknownPartnerPage,
} from './page-responses';

/**
 * GET `/partner/{slug}/activate?token=…`: verifies the link, starts the host's session and
 * redirects (303) to the marketplace, so the token leaves the address bar. Writes nothing:
 * mail scanners and link previews open links too.
 */
export const handler = hostPageHandler(async (event: APIGatewayProxyEvent, locale) => {
  const now = Date.now();
  const partner = await partnerForSlug(event.pathParameters?.slug ?? '');
  if (!partner) return unknownPartnerPage(locale);
  if (partner.suspension) return partnerUnavailablePage(locale, await partnerFace(partner));
  const tokens = event.multiValueQueryStringParameters?.token ?? [];
  const [token] = tokens;
  if (tokens.length !== 1 || !token) return linkProblemPage(locale, 'malformed', await partnerFace(partner));
  const check = await checkActivationLink(partner, token, now);
  if (!check.ok) return linkProblemPage(locale, check.problem, await partnerFace(partner), check.claims);
  const session = newSession(partner.id, partner.slug, check.claims, now);
  return seeOther('marketplace', sessionCookie(session, await sessionKey(), secureCookies(), now));
});
