import type { APIGatewayProxyEvent } from 'aws-lambda';
import { checkActivationLink } from './activation-link';
import { partnerForSlug, sessionKey } from './activation-lookups';
import { newSession, sessionCookie } from './host-session';
import { pageHandler } from './page-handler';
import {
  linkProblemPage,
  partnerUnavailablePage,
  SECURE_COOKIES,
  seeOther,
  unknownPartnerPage,
} from './page-responses';

/**
 * GET `/partner/{slug}/activate?token=…`: verifies the link, starts the host's session and
 * redirects (303) to the marketplace, so the token leaves the address bar. Writes nothing:
 * mail scanners and link previews open links too.
 */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const now = Date.now();
  const partner = await partnerForSlug(event.pathParameters?.slug ?? '');
  if (!partner) return unknownPartnerPage();
  if (partner.suspension) return partnerUnavailablePage(partner.name);
  const tokens = event.multiValueQueryStringParameters?.token ?? [];
  const [token] = tokens;
  if (tokens.length !== 1 || !token) return linkProblemPage('malformed', partner.name);
  const check = await checkActivationLink(partner, token, now);
  if (!check.ok) return linkProblemPage(check.problem, partner.name, check.claims);
  const session = newSession(partner.id, partner.slug, check.claims, now);
  return seeOther('marketplace', sessionCookie(session, await sessionKey(), SECURE_COOKIES, now));
});
