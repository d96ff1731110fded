import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../common/logger';
import type { AuditEvent } from '../data/audit';
import { PARTNER_ACTOR, recordAuditEvent } from '../data/audit';
import type { RevealOutcome } from '../data/key-reveal';
import { RevealContentionError, spendReveal } from '../data/key-reveal';
import { getPartnerStanding } from '../data/partners';
import { getReveal } from '../data/reveals';
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
document.getElementById('copy').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(output.textContent);
    say('Copied. Paste the key into your secret store now: this page cannot show it again.', 'success');
  } catch (error) {
    getSelection().selectAllChildren(output);
    say('Copying is blocked in this browser: the key is selected, copy it with your keyboard.', 'error');
  }
});
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
    document.getElementById('intro').textContent = 'The key was decrypted in this browser, once: we cannot see it and cannot show it again.';
    say('Copy the key now and keep it in your secret store. This page cannot show it again.', 'success');
    document.getElementById('copy').focus();
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
const SUPERSEDED =
  'This key was replaced by a newer one before it was revealed, so this link no longer shows it. Open the link in our most recent e-mail; a key you already use keeps working until you reveal the new one.';
const REVOKED =
  'This key was revoked before it was revealed, so this link no longer shows it. Your current key is not affected. Ask us if you need a new key.';
const UNAVAILABLE =
  'API access for this account is not available at the moment, so this key cannot be revealed now. Nothing was used up: contact us, and open this link again once access is restored.';

/** Why a link shows no key: the page's title, its message and its status. Nothing here writes. */
const REFUSALS = {
  revealed: { status: 410, title: 'Key already shown', message: ALREADY_SHOWN },
  expired: { status: 410, title: 'Reveal link expired', message: EXPIRED },
  superseded: { status: 410, title: 'This key was replaced', message: SUPERSEDED },
  revoked: { status: 410, title: 'This key was revoked', message: REVOKED },
  unavailable: { status: 403, title: 'Not available', message: UNAVAILABLE },
  unknown: { status: 404, title: 'Reveal link not found', message: UNKNOWN },
} as const;
type Refusal = keyof typeof REFUSALS;

/**
 * How partners reach us: the address our mail to them comes from (the stage's `mailFrom`, which
 * the stack gives this function as `CONTACT_EMAIL`), the one they got this link from.
 */
function contactAddress(environment: Record<string, string | undefined>): string | undefined {
  const address = environment.CONTACT_EMAIL?.trim();
  return address && /^[^\s@<>"]+@[^\s@<>"]+$/.test(address) ? address : undefined;
}

/** Where the pages' "ask us" leads: a line with our address, when the stage has one. */
function ReachUs() {
  const contact = contactAddress(process.env);
  return contact ? (
    <p>
      To reach us, write to <a href={`mailto:${contact}`}>{contact}</a>.
    </p>
  ) : null;
}

/** A refusal as the page's script shows it (JSON): the message, and how to reach us. */
function refusalJson(refusal: Refusal): APIGatewayProxyResult {
  const { status, message } = REFUSALS[refusal];
  const contact = contactAddress(process.env);
  return pageJson(status, { message: contact ? `${message} To reach us, write to ${contact}.` : message });
}

const refusalPage = (refusal: Refusal) => {
  const { status, title, message } = REFUSALS[refusal];
  return messagePage(
    status,
    title,
    <>
      <p>{message}</p>
      <ReachUs />
    </>,
  );
};

async function showRevealPage(revealId: string): Promise<APIGatewayProxyResult> {
  const reveal = await getReveal(revealId, Date.now());
  if (reveal.state !== 'ready') return refusalPage(reveal.state);
  if ((await getPartnerStanding(reveal.partnerId ?? 0))?.suspended !== false)
    return refusalPage('unavailable');
  return htmlPage(200, (nonce) => (
    <Layout title="Your partner API key" nonce={nonce} script={REVEAL_SCRIPT}>
      <h1>Your partner API key</h1>
      <p class="lead">
        {reveal.partnerName ? `For ${reveal.partnerName}. ` : ''}Key <code>{reveal.keyPrefix}…</code>
      </p>
      {/* Its script says what is true once the key is shown: there is nothing left to reveal. */}
      <p id="intro">
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
        <button id="copy" type="button" class="secondary">
          Copy key
        </button>
        {reveal.apiBaseUrl ? (
          <>
            <label for="base-url">API base URL</label>
            <output id="base-url">{reveal.apiBaseUrl}</output>
          </>
        ) : null}
        <p class="muted">
          Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Never put it in a browser or a mobile
          app.
        </p>
      </div>
      <button id="reveal" type="button">
        Reveal key
      </button>
      <ReachUs />
    </Layout>
  ));
}

/**
 * Records what happened to a reveal. After the ciphertext is spent the event is part of the
 * reveal's transaction; a refusal is recorded here, and a failure to record it must not change
 * the answer: it is logged as an error (the function's error alarm sees it).
 */
async function recordRefusal(event: AuditEvent): Promise<void> {
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
  const nowMs = Date.now();
  let outcome: RevealOutcome;
  try {
    outcome = await spendReveal(revealId, digest, nowMs, requestId);
  } catch (error) {
    if (!(error instanceof RevealContentionError)) throw error;
    return pageJson(503, {
      message: 'The key could not be revealed just now. Nothing was used up: try again.',
    });
  }
  switch (outcome.kind) {
    case 'ciphertext':
      return pageJson(200, { key_prefix: outcome.keyPrefix, iv: outcome.iv, ciphertext: outcome.ciphertext });
    case 'wrong-secret':
      return pageJson(400, {
        message:
          'This link was altered or cut short: open the whole link from the e-mail. Nothing was used up.',
      });
    case 'unknown':
    case 'expired':
      return refusalJson(outcome.kind);
    default:
      // A second reveal, or the link of a key that is dead or whose partner is suspended; recorded
      // only for whoever holds the link's secret, so knowing a reveal id cannot fill the trail.
      if (!outcome.presentedTheSecret) return refusalJson(outcome.kind);
      await recordRefusal({
        at: new Date(nowMs).toISOString(),
        actor: PARTNER_ACTOR,
        action: 'key.reveal-refused',
        partnerId: outcome.partnerId,
        keyPrefix: outcome.keyPrefix,
        details: { reason: outcome.kind },
        ...(requestId ? { requestId } : {}),
      });
      return refusalJson(outcome.kind);
  }
}

/** GET shows the page and spends nothing (mail scanners open links); POST reveals once. */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const revealId = event.pathParameters?.revealId ?? '';
  if (!REVEAL_ID.test(revealId)) return refusalPage('unknown');
  if (event.httpMethod === 'POST') return revealOnce(revealId, event.body, event.requestContext?.requestId);
  return showRevealPage(revealId);
});
