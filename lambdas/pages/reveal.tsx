import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../common/logger';
import type { AuditEvent } from '../data/audit';
import { PARTNER_ACTOR, recordAuditEvent } from '../data/audit';
import { getRevealState, takeReveal } from '../data/reveals';
import { htmlPage, Layout, messagePage } from './html';
import { pageHandler, pageJson } from './page-handler';

const REVEAL_ID = /^[A-Za-z0-9_-]{16,64}$/;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

/*
 * Runs in the browser. The secret never leaves it: the page sends only the secret's SHA-256
 * (so a damaged link is refused before the key is spent), receives the ciphertext once, and
 * decrypts with WebCrypto. The fragment is then dropped from the address bar.
 */
const REVEAL_SCRIPT = `
const button = document.getElementById('reveal');
const status = document.getElementById('status');
const output = document.getElementById('key');
const fromBase64Url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const toBase64Url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const say = (text, kind) => { status.textContent = text; status.className = 'notice ' + (kind || ''); status.hidden = false; };
button.addEventListener('click', async () => {
  const secret = location.hash.slice(1);
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) {
    say('This link is incomplete: the part after # is missing or cut short. Open the whole link from the e-mail; nothing was used up.', 'error');
    return;
  }
  if (!window.crypto || !crypto.subtle) {
    say('This browser cannot decrypt the key here. Open the link over HTTPS (or on localhost) in a current browser; nothing was used up.', 'error');
    return;
  }
  button.disabled = true;
  try {
    const secretBytes = fromBase64Url(secret);
    const digest = toBase64Url(await crypto.subtle.digest('SHA-256', secretBytes));
    const response = await fetch(location.pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret_digest: digest }),
      credentials: 'omit',
    });
    const body = await response.json();
    if (!response.ok) { say(body.message, 'error'); button.disabled = false; return; }
    const key = await crypto.subtle.importKey('raw', secretBytes, 'AES-GCM', false, ['decrypt']);
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64Url(body.iv) }, key, fromBase64Url(body.ciphertext));
    output.textContent = new TextDecoder().decode(plain);
    document.getElementById('revealed').hidden = false;
    button.hidden = true;
    history.replaceState(null, '', location.pathname);
    say('Copy the key now and keep it in your secret store. This page cannot show it again.', 'success');
  } catch (error) {
    say('The key could not be shown. Reload the page and try again; if it says the key was already shown, ask us for a new key.', 'error');
    button.disabled = false;
  }
});
`;

const ALREADY_SHOWN =
  'This key was already shown once and cannot be displayed again. If you did not keep it, ask us to rotate your key; you will get a new reveal link.';
const EXPIRED = 'This reveal link has expired. Ask us to rotate your key; you will get a new reveal link.';
const UNKNOWN = 'This reveal link is not valid. Check that you opened the whole link from the e-mail.';

async function showRevealPage(revealId: string): Promise<APIGatewayProxyResult> {
  const { state, keyPrefix, partnerName } = await getRevealState(revealId, Date.now());
  if (state === 'revealed') return messagePage(410, 'Key already shown', <p>{ALREADY_SHOWN}</p>);
  if (state === 'expired') return messagePage(410, 'Reveal link expired', <p>{EXPIRED}</p>);
  if (state === 'unknown') return messagePage(404, 'Reveal link not found', <p>{UNKNOWN}</p>);
  return htmlPage(200, (nonce) => (
    <Layout title="Your partner API key" nonce={nonce} script={REVEAL_SCRIPT}>
      <h1>Your partner API key</h1>
      <p class="lead">
        {partnerName ? `For ${partnerName}. ` : ''}Key <code>{keyPrefix}…</code>
      </p>
      <p>
        The key is shown <strong>once</strong>. It is decrypted in this browser; we cannot see it and cannot
        show it again. Have your secret store ready, then reveal it.
      </p>
      <noscript>
        <p class="notice error">
          Revealing the key needs JavaScript, because it is decrypted in your browser.
        </p>
      </noscript>
      <p id="status" class="notice" role="status" aria-live="polite" hidden />
      <div id="revealed" hidden>
        <label for="key">API key</label>
        <output id="key" aria-live="polite" />
        <p class="muted">
          Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Never put it in a browser or a mobile
          app.
        </p>
      </div>
      <button id="reveal" type="button">
        Reveal key
      </button>
    </Layout>
  ));
}

/**
 * Records the reveal. After the ciphertext is spent, so a failure here must not cost the key: it
 * is logged as an error (the function's error alarm sees it) and the key is still shown.
 */
async function recordReveal(event: AuditEvent): Promise<void> {
  try {
    await recordAuditEvent(event);
  } catch (error) {
    logger.error('Audit event not recorded', { auditEvent: event, error: error as Error });
  }
}

async function revealOnce(
  revealId: string,
  body: string | null,
  requestId: string | undefined,
): Promise<APIGatewayProxyResult> {
  let digest: unknown;
  try {
    digest = (JSON.parse(body ?? '') as { secret_digest?: unknown }).secret_digest;
  } catch {
    digest = undefined;
  }
  if (typeof digest !== 'string' || !DIGEST.test(digest)) {
    return pageJson(400, {
      message: 'This link is incomplete: open the whole link from the e-mail. Nothing was used up.',
    });
  }
  const outcome = await takeReveal(revealId, digest, Date.now());
  switch (outcome.kind) {
    case 'ciphertext':
      await recordReveal({
        at: new Date().toISOString(),
        actor: PARTNER_ACTOR,
        action: 'key.revealed',
        partnerId: outcome.partnerId,
        keyPrefix: outcome.keyPrefix,
        ...(requestId ? { requestId } : {}),
      });
      return pageJson(200, { key_prefix: outcome.keyPrefix, iv: outcome.iv, ciphertext: outcome.ciphertext });
    case 'wrong-secret':
      return pageJson(400, {
        message:
          'This link was altered or cut short: open the whole link from the e-mail. Nothing was used up.',
      });
    case 'unknown':
      return pageJson(404, { message: UNKNOWN });
    case 'expired':
      return pageJson(410, { message: EXPIRED });
    default:
      return pageJson(410, { message: ALREADY_SHOWN });
  }
}

/** GET shows the page and spends nothing (mail scanners open links); POST reveals once. */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const revealId = event.pathParameters?.revealId ?? '';
  if (!REVEAL_ID.test(revealId)) return messagePage(404, 'Reveal link not found', <p>{UNKNOWN}</p>);
  if (event.httpMethod === 'POST') return revealOnce(revealId, event.body, event.requestContext?.requestId);
  return showRevealPage(revealId);
});
