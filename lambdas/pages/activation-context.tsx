import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ComponentChildren } from 'preact';
import { listCatalog } from '../data/catalog';
import type { Partner } from '../data/partners';
import { getPartnerBySlug, getSealedSigningSecret } from '../data/partners';
import type { ActivationClaims } from '../domain/activation-token';
import type { Product } from '../domain/catalog';
import { isPartnerSlug } from '../domain/partner-slug';
import { config } from '../shared/config';
import { unseal } from '../shared/secret-box';
import { loadServiceKey } from '../shared/service-secrets';
import type { HostSession } from './host-session';
import { readSession } from './host-session';
import type { PageResponse } from './html';
import { Layout, messagePage } from './html';
import { MAX_FORM_BODY_CHARS, overlongFields } from './onboarding-forms';

/** Looked-up data that changes rarely, kept for a minute per warm instance. */
const CACHE_MS = 60_000;
const cache = new Map<string, { value: unknown; at: number }>();

async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value as T;
  const value = await load();
  if (value !== undefined) cache.set(key, { value, at: Date.now() });
  return value;
}

/** Forgets cached lookups (tests). */
export function forgetCachedLookups(): void {
  cache.clear();
}

/** The partner a page address names; a malformed slug is answered without a lookup. */
export const partnerForSlug = async (slug: string) =>
  isPartnerSlug(slug) ? cached(`slug:${slug}`, () => getPartnerBySlug(slug)) : undefined;
export const productCatalog = () => cached('catalog', listCatalog);

export async function signingSecretOf(partnerId: number): Promise<Buffer | undefined> {
  return cached(`secret:${partnerId}`, async () => {
    const sealed = await getSealedSigningSecret(partnerId);
    return sealed ? unseal(sealed, await loadServiceKey('sealing')) : undefined;
  });
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
): Promise<{ partner: Partner; session: HostSession; key: Buffer } | { page: PageResponse }> {
  const partner = await partnerForSlug(event.pathParameters?.slug ?? '');
  if (!partner) return { page: unknownPartnerPage() };
  const key = await sessionKey();
  const session = readSession(event, key, partner.slug, Date.now());
  if (!session) return { page: sessionEndedPage(partner.name) };
  return { partner, session, key };
}

/** Cookies are Secure everywhere but on the local http server. */
export const SECURE_COOKIES = config.stage !== 'local';

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

/** Products the host may activate: those requested that the partner's agreement includes. */
export function offeredProducts(
  catalog: readonly Product[],
  partner: Partner,
  claims: ActivationClaims,
): Product[] {
  return catalog.filter(
    (product) => claims.requested_product_ids.includes(product.id) && partner.products.includes(product.id),
  );
}

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

/** A posted form, or the page that says it is longer than these pages' forms can be. */
export type PostedForm =
  | { readonly ok: true; readonly form: URLSearchParams }
  | { readonly ok: false; readonly page: PageResponse };

/** An urlencoded form body (API Gateway may hand it over base64-encoded), within the wizard's size. */
export function postedForm(event: APIGatewayProxyEvent): PostedForm {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.length <= MAX_FORM_BODY_CHARS) return { ok: true, form: new URLSearchParams(text) };
  return { ok: false, page: formTooLargePage(overlongFields(new URLSearchParams(text))) };
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

const STEPS = ['Choose products', 'Set up your assistant', 'Live'] as const;

/** The activation pages' frame: the partner's name and where the host is in the flow. */
export function ActivationLayout(props: {
  title: string;
  nonce: string;
  partnerName: string;
  step: 0 | 1 | 2;
  children: ComponentChildren;
}) {
  return (
    <Layout title={`${props.title} · ${props.partnerName}`} nonce={props.nonce}>
      <p class="muted">Sponsored by {props.partnerName}</p>
      <nav aria-label="Progress">
        <ol class="steps">
          {STEPS.map((label, index) => (
            <li aria-current={index === props.step ? 'step' : undefined}>
              {index + 1}. {label}
            </li>
          ))}
        </ol>
      </nav>
      {props.children}
    </Layout>
  );
}
