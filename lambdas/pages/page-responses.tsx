import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ActivationClaims } from '../../core/domain/activation-token';
import { serviceConfig } from '../common/config';
import type { PartnerFace } from './activation-layout';
import { hostMessagePage } from './activation-layout';
import type { PageResponse } from './html';
import type { HostLocale, Messages } from './messages';

/**
 * The activation pages' answers besides the pages themselves: redirects, the cookies' Secure
 * flag, and the pages that say why a link, a session or a form cannot be used, in the host's
 * language.
 */

/** Cookies are Secure everywhere but on the local http server. */
export const secureCookies = (): boolean => serviceConfig().stage !== 'local';

/**
 * Where a session's own link (or "Continue my setup") leads, relative to the link's page: the
 * wizard redirects it to the Done page once the wizard was submitted, else to the first step the
 * host never saved (`lambdas/pages/onboarding.tsx`). A new link's session starts at the first step
 * instead: its host came to give or change answers.
 */
export const RESUME_ADDRESS = 'onboarding?step=resume';

/** A 303 to a path relative to the current page (so any stage or domain prefix is kept). */
export function seeOther(location: string, setCookie?: string): APIGatewayProxyResult {
  return {
    statusCode: 303,
    headers: {
      Location: location,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      ...(setCookie ? { 'Set-Cookie': setCookie } : {}),
    },
    body: '',
  };
}

export type LinkProblem = 'malformed' | 'tampered' | 'foreign' | 'invalid' | 'expired' | 'used';

const LINK_PROBLEMS: Record<
  LinkProblem,
  {
    status: number;
    title: (m: Messages) => string;
    explain: (m: Messages, claims?: ActivationClaims) => string;
  }
> = {
  malformed: { status: 400, title: (m) => m.linkMalformedTitle, explain: (m) => m.linkMalformed },
  tampered: { status: 400, title: (m) => m.linkTamperedTitle, explain: (m) => m.linkTampered },
  foreign: { status: 400, title: (m) => m.linkForeignTitle, explain: (m) => m.linkForeign },
  invalid: { status: 400, title: (m) => m.linkInvalidTitle, explain: (m) => m.linkInvalid },
  expired: {
    status: 410,
    title: (m) => m.linkExpiredTitle,
    explain: (m, claims) => m.linkExpired(claims ? claims.exp * 1000 : undefined),
  },
  used: { status: 410, title: (m) => m.linkUsedTitle, explain: (m) => m.linkUsed },
};

/** The page for a link we cannot accept: what happened, in plain words, and what to do. */
export function linkProblemPage(
  locale: HostLocale,
  problem: LinkProblem,
  partner: PartnerFace,
  claims?: ActivationClaims,
): PageResponse {
  const m = locale.messages;
  const { status, title, explain } = LINK_PROBLEMS[problem];
  return hostMessagePage(
    status,
    locale,
    title(m),
    <>
      <p>{explain(m, claims)}</p>
      <p>{problem === 'used' ? m.linkUsedNext(partner.name) : m.linkFreshNext(partner.name)}</p>
    </>,
    { partner },
  );
}

export function unknownPartnerPage(locale: HostLocale): PageResponse {
  const m = locale.messages;
  return hostMessagePage(404, locale, m.unknownPartnerTitle, <p>{m.unknownPartner}</p>);
}

/** The partner is suspended: its links do nothing for now, and nothing was set up. */
export function partnerUnavailablePage(locale: HostLocale, partner: PartnerFace): PageResponse {
  const m = locale.messages;
  return hostMessagePage(
    403,
    locale,
    m.partnerUnavailableTitle,
    <p>{m.partnerUnavailable(partner.name)}</p>,
    {
      partner,
    },
  );
}

export function sessionEndedPage(locale: HostLocale, partner: PartnerFace): PageResponse {
  const m = locale.messages;
  return hostMessagePage(401, locale, m.sessionEndedTitle, <p>{m.sessionEnded(partner.name)}</p>, {
    partner,
  });
}

/** 410: the wizard's property is no longer the partner's (its sponsorship ended, or its host was erased). */
export function setupEndedPage(locale: HostLocale, partner: PartnerFace): PageResponse {
  const m = locale.messages;
  return hostMessagePage(410, locale, m.setupEndedTitle, <p>{m.setupEnded(partner.name)}</p>, { partner });
}

export function formExpiredPage(locale: HostLocale, partner: PartnerFace): PageResponse {
  const m = locale.messages;
  return hostMessagePage(403, locale, m.formExpiredTitle, <p>{m.formExpired}</p>, { partner });
}

/** 413: nothing saved; which text was too long, so the host can shorten exactly that. */
export function formTooLargePage(
  locale: HostLocale,
  partner: PartnerFace,
  overlong: readonly string[],
): PageResponse {
  const m = locale.messages;
  return hostMessagePage(
    413,
    locale,
    m.formTooLargeTitle,
    <>
      <p>{m.formTooLarge}</p>
      {overlong.length > 0 ? (
        <ul>
          {overlong.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      ) : (
        <p>{m.formTooManyEntries}</p>
      )}
      <p>{m.formTooLargeNext}</p>
    </>,
    { partner },
  );
}

/** Busy or unreachable dependencies: a page that asks to try again, never a raw 5xx. */
export function hostTryAgainPage(locale: HostLocale, partner?: PartnerFace): PageResponse {
  const m = locale.messages;
  return hostMessagePage(503, locale, m.tryAgainTitle, <p>{m.tryAgain}</p>, {
    partner,
    headers: { 'Retry-After': '5' },
  });
}
