import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ActivationClaims } from '../../core/domain/activation-token';
import { getKnowledgeBase } from '../data/knowledge-base';
import type { Partner } from '../data/partners';
import type { PartnerFace } from './activation-layout';
import { hostMessagePage } from './activation-layout';
import { checkActivationLink } from './activation-link';
import { partnerFace, partnerForSlug, sessionKey } from './activation-lookups';
import type { HostSession } from './host-session';
import { csrfToken, isValidCsrfToken, newSession, readSession, sessionCookie } from './host-session';
import type { HostLocale } from './messages';
import { hostPageHandler } from './page-handler';
import {
  formExpiredPage,
  linkProblemPage,
  partnerUnavailablePage,
  RESUME_ADDRESS,
  secureCookies,
  seeOther,
  unknownPartnerPage,
} from './page-responses';
import { PLAIN_FORM, postedForm } from './posted-form';

/** Where a session continues: the wizard where the host left once provisioned, the products before. */
const continueAddress = (session: HostSession) => (session.provisioned ? RESUME_ADDRESS : 'marketplace');

/** Whether the session's setup was finished (its wizard submitted): then it is not "in progress". */
async function setupFinished(session: HostSession): Promise<boolean> {
  if (!session.provisioned) return false;
  const knowledgeBase = await getKnowledgeBase(session.provisioned.propertyId);
  return Boolean(knowledgeBase.assistantLiveAt);
}

/**
 * A browser with a setup in progress opened another link: nothing changes until the host says
 * so. Continuing is a plain link; starting with the new link is a POST carrying the session's
 * CSRF token, so no other site can make the choice for the host.
 */
function sessionChoicePage(
  locale: HostLocale,
  face: PartnerFace,
  current: HostSession,
  next: { token: string; claims: ActivationClaims; csrf: string },
  finished: boolean,
) {
  const m = locale.messages;
  return hostMessagePage(
    200,
    locale,
    finished ? m.sessionDoneTitle : m.sessionChoiceTitle,
    <>
      <p>
        {(finished ? m.sessionDoneCurrent : m.sessionChoiceCurrent)(current.claims.contact_name, face.name)}
      </p>
      <p>{(finished ? m.sessionDoneNew : m.sessionChoiceNew)(next.claims.contact_name)}</p>
    </>,
    {
      partner: face,
      actions: (
        <form method="post" action="activate" class="actions">
          <input type="hidden" name="csrf" value={next.csrf} />
          <input type="hidden" name="token" value={next.token} />
          <a class="button" href={continueAddress(current)}>
            {finished ? m.openMySetup : m.continueMySetup}
          </a>
          <button type="submit" class="secondary">
            {m.startWithNewLink}
          </button>
        </form>
      ),
    },
  );
}

/**
 * POST: the host chose to start with the new link over the setup in progress. Only with that
 * session's cookie and CSRF token: a form of another site sends neither (the cookie is
 * SameSite=Lax), and gets the expired-form page with the session untouched.
 */
async function replaceSession(
  event: APIGatewayProxyEvent,
  locale: HostLocale,
  partner: Partner,
  face: PartnerFace,
) {
  const now = Date.now();
  const posted = postedForm(event, locale, face, PLAIN_FORM);
  if (!posted.ok) return posted.page;
  const key = await sessionKey();
  const current = readSession(event, key, partner.slug, now);
  if (!current || !isValidCsrfToken(current, key, posted.form.get('csrf')))
    return formExpiredPage(locale, face);
  const check = await checkActivationLink(partner, posted.form.get('token') ?? '', now);
  if (!check.ok) return linkProblemPage(locale, check.problem, face, check.claims);
  const session = newSession(partner.id, partner.slug, check.claims, now);
  return seeOther('marketplace', sessionCookie(session, key, secureCookies(), now));
}

/**
 * GET `/partner/{slug}/activate?token=…`: verifies the link, starts the host's session and
 * redirects (303) to the marketplace, so the token leaves the address bar. Writes nothing:
 * mail scanners and link previews open links too. A browser whose setup with this partner is
 * still in progress keeps it: the same link continues it, another link asks first (GET never
 * replaces a session).
 */
export const handler = hostPageHandler(async (event: APIGatewayProxyEvent, locale) => {
  const now = Date.now();
  const partner = await partnerForSlug(event.pathParameters?.slug ?? '');
  if (!partner) return unknownPartnerPage(locale);
  const face = await partnerFace(partner);
  if (partner.suspension) return partnerUnavailablePage(locale, face);
  if (event.httpMethod === 'POST') return replaceSession(event, locale, partner, face);
  const tokens = event.multiValueQueryStringParameters?.token ?? [];
  const [token] = tokens;
  if (tokens.length !== 1 || !token) return linkProblemPage(locale, 'malformed', face);
  const [check, key] = await Promise.all([checkActivationLink(partner, token, now), sessionKey()]);
  const current = readSession(event, key, partner.slug, now);
  const sameLink = current !== undefined && current.claims.nonce === check.claims?.nonce;
  // The host opens the link they are setting up with again (used by now once provisioned, perhaps
  // expired: the session outlives the link, docs/design/activation-links.md): go on.
  if (sameLink && (check.ok || check.problem === 'used' || check.problem === 'expired'))
    return seeOther(continueAddress(current));
  if (!check.ok) return linkProblemPage(locale, check.problem, face, check.claims);
  if (current)
    return sessionChoicePage(
      locale,
      face,
      current,
      { token, claims: check.claims, csrf: csrfToken(current, key) },
      await setupFinished(current),
    );
  const session = newSession(partner.id, partner.slug, check.claims, now);
  return seeOther('marketplace', sessionCookie(session, key, secureCookies(), now));
});
