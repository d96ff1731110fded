import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ActivationClaims } from '../../core/domain/activation-token';
import type { Product } from '../../core/domain/catalog';
import { productIn } from '../../core/domain/catalog';
import { getConsumedNonce } from '../data/activation-nonces';
import { HOST_ACTOR } from '../data/audit';
import type { Partner } from '../data/partners';
import {
  PartnerSuspendedError,
  PropertyHeldByAnotherHostError,
  ProvisioningContentionError,
  provisionSponsoredHost,
} from '../data/provisioning';
import type { PartnerFace } from './activation-layout';
import { ActivationLayout, hostMessagePage } from './activation-layout';
import { openSession, productCatalog } from './activation-lookups';
import { ErrorSummary } from './error-summary';
import type { HostSession } from './host-session';
import { csrfToken, isValidCsrfToken, provisionedSession, sessionCookie } from './host-session';
import { htmlPage } from './html';
import type { HostLocale } from './messages';
import { hostPageHandler } from './page-handler';
import {
  formExpiredPage,
  hostTryAgainPage,
  linkProblemPage,
  partnerUnavailablePage,
  secureCookies,
  seeOther,
} from './page-responses';
import { PLAIN_FORM, postedForm } from './posted-form';
import { wizardStepsFor } from './wizard-steps';

/** Products the host may activate: those requested that the partner's agreement includes. */
function offeredProducts(catalog: readonly Product[], partner: Partner, claims: ActivationClaims): Product[] {
  return catalog.filter(
    (product) => claims.requested_product_ids.includes(product.id) && partner.products.includes(product.id),
  );
}

function marketplacePage(
  locale: HostLocale,
  partner: PartnerFace,
  session: HostSession,
  products: readonly Product[],
  csrf: string,
  options: { error?: string; selected?: readonly string[] } = {},
) {
  const m = locale.messages;
  const selected = options.selected ?? products.map((product) => product.id);
  const stages = [
    m.stageProducts,
    ...wizardStepsFor(products.map((product) => product.id)).map((step) => step.stage(m)),
    m.stageDone,
  ];
  return htmlPage(options.error ? 400 : 200, (nonce) => (
    <ActivationLayout
      title={m.marketplaceTitle}
      nonce={nonce}
      locale={locale}
      partner={partner}
      progress={{ stages, current: 0 }}
    >
      <h1>{m.welcomeHeading(session.claims.contact_name)}</h1>
      <p class="lead">{m.marketplaceLead(partner.name)}</p>
      <ErrorSummary
        errors={
          options.error && products[0] ? [{ message: options.error, field: `product-${products[0].id}` }] : []
        }
        locale={locale}
      />
      {products.length === 0 ? (
        <p class="notice error" role="alert">
          {m.noProductsOffered(partner.name)}
        </p>
      ) : (
        <form method="post" action="marketplace" novalidate>
          <input type="hidden" name="csrf" value={csrf} />
          <fieldset aria-describedby={options.error ? 'products-error' : undefined}>
            <legend>{m.productsFor(session.claims.contact_email)}</legend>
            {options.error ? (
              <p id="products-error" class="error-text">
                {options.error}
              </p>
            ) : null}
            {products.map((product) => {
              const texts = productIn(product, locale.language);
              return (
                <div class="choice">
                  <input
                    type="checkbox"
                    id={`product-${product.id}`}
                    name="product"
                    value={product.id}
                    checked={selected.includes(product.id)}
                  />
                  <label for={`product-${product.id}`}>
                    {texts.name}
                    <span>{texts.description}</span>
                  </label>
                </div>
              );
            })}
          </fieldset>
          <button type="submit" class="primary">
            {m.activateSelected}
          </button>
        </form>
      )}
    </ActivationLayout>
  ));
}

async function provision(
  event: APIGatewayProxyEvent,
  locale: HostLocale,
  opened: { partner: Partner; face: PartnerFace; session: HostSession; key: Buffer },
  offered: readonly Product[],
): Promise<APIGatewayProxyResult> {
  const { partner, face, session, key } = opened;
  const m = locale.messages;
  const posted = postedForm(event, locale, face, PLAIN_FORM);
  if (!posted.ok) return posted.page;
  const { form } = posted;
  if (!isValidCsrfToken(session, key, form.get('csrf'))) return formExpiredPage(locale, face);
  const chosen = form.getAll('product');
  const offeredIds = offered.map((product) => product.id);
  const productIds = offeredIds.filter((id) => chosen.includes(id));
  const notOffered = chosen.some((id) => !offeredIds.includes(id as Product['id']));
  if (productIds.length === 0 || notOffered) {
    return marketplacePage(locale, face, session, offered, csrfToken(session, key), {
      error: notOffered ? m.onlyListedProducts : m.chooseAtLeastOne,
      selected: chosen.filter((id) => offeredIds.includes(id as Product['id'])),
    });
  }
  const now = Date.now();
  try {
    const result = await provisionSponsoredHost({
      partnerId: partner.id,
      contactEmail: session.claims.contact_email,
      contactName: session.claims.contact_name,
      pmsHotelId: session.claims.pms_hotel_id,
      propertyName: session.claims.contact_name,
      productIds,
      language: locale.language,
      nonce: {
        value: session.claims.nonce,
        tokenExpiresAtMs: session.claims.exp * 1000,
        sessionId: session.sid,
      },
      nowMs: now,
      audit: { actor: HOST_ACTOR, requestId: event.requestContext?.requestId },
    });
    // Another session used this link first (someone who opened it before the host): it has no door
    // into that host's wizard.
    if (result.alreadyProvisioned && result.sessionId !== session.sid)
      return linkProblemPage(locale, 'used', face, session.claims);
    const next = provisionedSession(
      session,
      { hostUserId: result.hostUserId, propertyId: result.propertyId },
      now,
    );
    return seeOther('onboarding', sessionCookie(next, key, secureCookies(), now));
  } catch (error) {
    if (error instanceof ProvisioningContentionError) return hostTryAgainPage(locale, face);
    if (error instanceof PartnerSuspendedError) return partnerUnavailablePage(locale, face);
    if (error instanceof PropertyHeldByAnotherHostError)
      return hostMessagePage(409, locale, m.propertyTakenTitle, <p>{m.propertyTaken(partner.name)}</p>, {
        partner: face,
      });
    throw error;
  }
}

/**
 * `/partner/{slug}/marketplace`: GET lists the products of the link that the partner's
 * agreement includes, with no prices; POST provisions the host in one transaction and goes on
 * to the onboarding wizard. A second submit (two tabs, a double click, a retry) finds the
 * link's work done and goes on too.
 */
export const handler = hostPageHandler(async (event: APIGatewayProxyEvent, locale) => {
  const opened = await openSession(event, locale);
  if ('page' in opened) return opened.page;
  const { partner, face, session, key } = opened;
  if (session.provisioned) return seeOther('onboarding');
  if (session.claims.exp * 1000 <= Date.now())
    return linkProblemPage(locale, 'expired', face, session.claims);
  // Used by another session meanwhile: say so now rather than after the host chooses products.
  const used = await getConsumedNonce(partner.id, session.claims.nonce);
  if (used && used.sessionId !== session.sid) return linkProblemPage(locale, 'used', face, session.claims);
  const offered = offeredProducts(
    await productCatalog(session.claims.requested_product_ids),
    partner,
    session.claims,
  );
  if (event.httpMethod === 'POST') return provision(event, locale, opened, offered);
  return marketplacePage(locale, face, session, offered, csrfToken(session, key));
});
