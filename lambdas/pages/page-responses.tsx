import type { APIGatewayProxyResult } from 'aws-lambda';
import { config } from '../common/config';
import type { ActivationClaims } from '../domain/activation-token';
import type { PageResponse } from './html';
import { messagePage } from './html';

/**
 * The activation pages' answers besides the pages themselves: redirects, the cookies' Secure
 * flag, and the pages that say why a link, a session or a form cannot be used.
 */

/** Cookies are Secure everywhere but on the local http server. */
export const SECURE_COOKIES = config.stage !== 'local';

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
  { status: number; title: string; explain: (claims?: ActivationClaims) => string }
> = {
  malformed: {
    status: 400,
    title: 'This link is incomplete',
    explain: () =>
      'The activation link is damaged or was cut short when it was copied, so we cannot read it.',
  },
  tampered: {
    status: 400,
    title: 'This link was changed',
    explain: () => 'Part of the activation link was changed after it was made, so we cannot trust it.',
  },
  foreign: {
    status: 400,
    title: 'This link is for another platform',
    explain: () =>
      'This activation link was made by a different platform than the one in its address, so it cannot be used here.',
  },
  invalid: {
    status: 400,
    title: 'This link is not valid',
    explain: () => 'The activation link does not contain the details we need to set up your account.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    explain: (claims) =>
      `Activation links work for a limited time${claims ? `; this one expired on ${new Date(claims.exp * 1000).toUTCString()}` : ''}.`,
  },
  used: {
    status: 410,
    title: 'This link was already used',
    explain: () => 'This activation link was already used to set up an account. Each link works once.',
  },
};

/** The page for a link we cannot accept: what happened, in plain words, and what to do. */
export function linkProblemPage(
  problem: LinkProblem,
  partnerName: string,
  claims?: ActivationClaims,
): PageResponse {
  const { status, title, explain } = LINK_PROBLEMS[problem];
  return messagePage(
    status,
    title,
    <>
      <p>{explain(claims)}</p>
      {problem === 'used' ? (
        <p>
          If you set up your account with it, there is nothing more to do here. If not,{' '}
          <strong>ask {partnerName} for a fresh link</strong> and tell them this one was used in another
          browser.
        </p>
      ) : (
        <p>
          <strong>Ask {partnerName} for a fresh link:</strong> go back to {partnerName} and use its activation
          button again. Nothing was set up with this link.
        </p>
      )}
    </>,
  );
}

export function unknownPartnerPage(): PageResponse {
  return messagePage(
    404,
    'This link is not valid',
    <p>
      The address of this activation link does not name a platform we know. Ask the platform that sent you for
      a fresh link.
    </p>,
  );
}

/** The partner is suspended: its links do nothing for now, and nothing was set up. */
export function partnerUnavailablePage(partnerName: string): PageResponse {
  return messagePage(
    403,
    'Not available at the moment',
    <p>
      Activation through {partnerName} is not available at the moment, so nothing was set up. Please try again
      later, or ask {partnerName} about it.
    </p>,
  );
}

export function sessionEndedPage(partnerName: string): PageResponse {
  return messagePage(
    401,
    'Your session has ended',
    <p>
      For your security, this setup session has ended. Open the activation link from {partnerName} again; if
      it has expired, ask {partnerName} for a fresh link.
    </p>,
  );
}

export function formExpiredPage(): PageResponse {
  return messagePage(
    403,
    'This form has expired',
    <p>
      The form could not be checked (it may be from an older page). Go back, reload the page and submit it
      again.
    </p>,
  );
}

/** 413: nothing saved; which text was too long, so the host can shorten exactly that. */
export function formTooLargePage(overlong: readonly string[]): PageResponse {
  return messagePage(
    413,
    'Your text is too long',
    <>
      <p>Nothing was saved: what you sent is longer than this form takes.</p>
      {overlong.length > 0 ? (
        <ul>
          {overlong.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      ) : (
        <p>It has more entries than the form shows.</p>
      )}
      <p>Go back, shorten it, and send the form again.</p>
    </>,
  );
}
