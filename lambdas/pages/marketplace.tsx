import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { getConsumedNonce } from '../data/activation-nonces';
import { HOST_ACTOR } from '../data/audit';
import type { Partner } from '../data/partners';
import {
  PartnerSuspendedError,
  PropertyHeldByAnotherHostError,
  ProvisioningContentionError,
  provisionSponsoredHost,
} from '../data/provisioning';
import type { ActivationClaims } from '../domain/activation-token';
import type { Product } from '../domain/catalog';
import { ActivationLayout } from './activation-layout';
import { openSession, productCatalog } from './activation-lookups';
import type { HostSession } from './host-session';
import { csrfToken, isValidCsrfToken, provisionedSession, sessionCookie } from './host-session';
import { htmlPage, messagePage, tryAgainPage } from './html';
import { pageHandler } from './page-handler';
import {
  formExpiredPage,
  linkProblemPage,
  partnerUnavailablePage,
  SECURE_COOKIES,
  seeOther,
} from './page-responses';
import { postedForm } from './posted-form';

/** Products the host may activate: those requested that the partner's agreement includes. */
function offeredProducts(catalog: readonly Product[], partner: Partner, claims: ActivationClaims): Product[] {
  return catalog.filter(
    (product) => claims.requested_product_ids.includes(product.id) && partner.products.includes(product.id),
  );
}

function marketplacePage(
  partner: Partner,
  session: HostSession,
  products: readonly Product[],
  csrf: string,
  options: { error?: string; selected?: readonly string[] } = {},
) {
  const selected = options.selected ?? products.map((product) => product.id);
  return htmlPage(options.error ? 400 : 200, (nonce) => (
    <ActivationLayout title="Choose your products" nonce={nonce} partnerName={partner.name} stage="products">
      <h1>Welcome, {session.claims.contact_name}</h1>
      <p class="lead">
        {partner.name} sponsors your account: choose the products to switch on. There is nothing to pay.
      </p>
      {products.length === 0 ? (
        <p class="notice error" role="alert">
          None of the products in this link are part of {partner.name}’s offer any more. Ask {partner.name}{' '}
          for a fresh link.
        </p>
      ) : (
        <form method="post" action="marketplace" novalidate>
          <input type="hidden" name="csrf" value={csrf} />
          <fieldset aria-describedby={options.error ? 'products-error' : undefined}>
            <legend>Products for {session.claims.contact_email}</legend>
            {options.error ? (
              <p id="products-error" class="error-text" role="alert">
                {options.error}
              </p>
            ) : null}
            {products.map((product) => (
              <div class="choice">
                <input
                  type="checkbox"
                  id={`product-${product.id}`}
                  name="product"
                  value={product.id}
                  checked={selected.includes(product.id)}
                />
                <label for={`product-${product.id}`}>
                  {product.name}
                  <span>{product.description}</span>
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit">Activate selected products</button>
        </form>
      )}
    </ActivationLayout>
  ));
}

async function provision(
  event: APIGatewayProxyEvent,
  partner: Partner,
  session: HostSession,
  key: Buffer,
  offered: readonly Product[],
): Promise<APIGatewayProxyResult> {
  const posted = postedForm(event);
  if (!posted.ok) return posted.page;
  const { form } = posted;
  if (!isValidCsrfToken(session, key, form.get('csrf'))) return formExpiredPage();
  const chosen = form.getAll('product');
  const offeredIds = offered.map((product) => product.id);
  const productIds = offeredIds.filter((id) => chosen.includes(id));
  const notOffered = chosen.some((id) => !offeredIds.includes(id as Product['id']));
  if (productIds.length === 0 || notOffered) {
    return marketplacePage(partner, session, offered, csrfToken(session, key), {
      error: notOffered
        ? 'Only the products listed here can be activated. Choose among them.'
        : 'Choose at least one product to activate.',
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
      return linkProblemPage('used', partner.name, session.claims);
    const next = provisionedSession(
      session,
      { hostUserId: result.hostUserId, propertyId: result.propertyId },
      now,
    );
    return seeOther('onboarding', sessionCookie(next, key, SECURE_COOKIES, now));
  } catch (error) {
    if (error instanceof ProvisioningContentionError) return tryAgainPage();
    if (error instanceof PartnerSuspendedError) return partnerUnavailablePage(partner.name);
    if (error instanceof PropertyHeldByAnotherHostError) {
      return messagePage(
        409,
        'This property is already set up',
        <p>
          {partner.name} already set this property up for another account. Ask {partner.name} to check the
          e-mail address in your link. Nothing was changed.
        </p>,
      );
    }
    throw error;
  }
}

/**
 * `/partner/{slug}/marketplace`: GET lists the products of the link that the partner's
 * agreement includes, with no prices; POST provisions the host in one transaction and goes on
 * to the onboarding wizard. A second submit (two tabs, a double click, a retry) finds the
 * link's work done and goes on too.
 */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const opened = await openSession(event);
  if ('page' in opened) return opened.page;
  const { partner, session, key } = opened;
  if (session.provisioned) return seeOther('onboarding');
  if (session.claims.exp * 1000 <= Date.now())
    return linkProblemPage('expired', partner.name, session.claims);
  // Used by another session meanwhile: say so now rather than after the host chooses products.
  const used = await getConsumedNonce(partner.id, session.claims.nonce);
  if (used && used.sessionId !== session.sid) return linkProblemPage('used', partner.name, session.claims);
  const offered = offeredProducts(await productCatalog(), partner, session.claims);
  if (event.httpMethod === 'POST') return provision(event, partner, session, key, offered);
  return marketplacePage(partner, session, offered, csrfToken(session, key));
});
