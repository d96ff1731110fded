import { createHash, randomBytes } from 'node:crypto';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { LOGO_BOX } from '../../core/domain/branding';

/**
 * Server-rendered pages. Preact escapes every interpolated string, so text from a token claim
 * or a form can never become markup. Each response gets a fresh CSP nonce for its one style
 * sheet and (where needed) its one script.
 */
export interface PageResponse {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
}

const STYLES = `
:root { color-scheme: light dark; --accent: #1f6feb; --muted: #57606a; --danger: #b42318; --ok: #1a7f37; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; padding: 1rem; }
main { max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.5rem; line-height: 1.25; }
h2 { font-size: 1.125rem; margin: 1.25rem 0 .5rem; }
p.lead { font-size: 1.1rem; }
.muted { color: var(--muted); }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: color-mix(in srgb, var(--accent) 8%, transparent); }
.notice.error { border-color: var(--danger); background: color-mix(in srgb, var(--danger) 8%, transparent); }
.notice.success { border-color: var(--ok); background: color-mix(in srgb, var(--ok) 8%, transparent); }
fieldset { border: 1px solid #d0d7de; border-radius: .5rem; padding: .75rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type=text], input[type=email], input[type=number], textarea, select { width: 100%; font: inherit; padding: .5rem; border: 1px solid #8c959f; border-radius: .375rem; }
input[aria-invalid=true], textarea[aria-invalid=true], select[aria-invalid=true] { border: 2px solid var(--danger); }
textarea { min-height: 6rem; }
.hint { margin: 0 0 .25rem; font-size: .9rem; }
form.rows { display: flex; flex-direction: column; }
form.rows .add-row { align-self: flex-start; }
.choice { display: flex; gap: .75rem; align-items: flex-start; padding: .75rem; border: 1px solid #d0d7de; border-radius: .5rem; margin: .5rem 0; }
.choice input { flex: none; margin: .125rem 0 0; width: 1.25rem; height: 1.25rem; }
.choice label { margin: 0; }
.choice span { display: block; font-weight: 400; color: var(--muted); }
button { font: inherit; font-weight: 600; padding: .65rem 1.25rem; border-radius: .375rem; border: 0; background: var(--accent); color: #fff; cursor: pointer; min-height: 44px; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--accent); }
a.button { display: inline-flex; align-items: center; font-weight: 600; padding: .65rem 1.25rem; border-radius: .375rem; background: var(--accent); color: #fff; text-decoration: none; min-height: 44px; }
button:disabled { opacity: .6; cursor: progress; }
output, code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
output { display: block; padding: .75rem; border: 1px dashed #8c959f; border-radius: .375rem; margin: .5rem 0; }
ol.steps { display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; margin: .75rem 0; list-style: none; font-size: .875rem; color: var(--muted); }
ol.steps li { padding: .125rem 0; border: 0; border-bottom: 3px solid transparent; }
ol.steps li[aria-current=step] { color: CanvasText; font-weight: 700; border-bottom-color: var(--accent); }
.error-text { color: var(--danger); font-weight: 600; }
.host-header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .5rem 1rem; margin-bottom: .5rem; }
.sponsor { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .5rem; margin: 0; min-width: 0; overflow-wrap: anywhere; }
.sponsor img { max-height: ${LOGO_BOX.height / 16}rem; max-width: ${LOGO_BOX.width / 16}rem; width: auto; height: auto; }
.languages ul { display: flex; flex-wrap: wrap; gap: .25rem .75rem; list-style: none; margin: 0; padding: 0; font-size: .9rem; }
.languages a { display: inline-block; padding: .5rem .125rem; min-height: 24px; color: inherit; }
.languages a[aria-current] { font-weight: 700; text-decoration: none; }
.actions { display: flex; justify-content: space-between; align-items: center; gap: .75rem; margin-top: 1rem; }
.actions .primary:last-child { margin-left: auto; }
.prewrap { white-space: pre-wrap; }
a.back-to { display: inline-block; margin-top: 1rem; font-weight: 600; }
h1, h2, h3, p, li, legend, label { overflow-wrap: anywhere; }
@media (prefers-color-scheme: dark) { button.secondary { color: CanvasText; border-color: CanvasText; } }
`;

const ACCENT = /^#[0-9a-f]{6}$/;

export function Layout(props: {
  title: string;
  /** The response's CSP nonce. */
  nonce?: string;
  children: ComponentChildren;
  script?: string;
  /** The page's language (`<html lang>`); English unless given. */
  lang?: string;
  /** A partner's accent colour (`#rrggbb`) in place of ours; anything else is ignored. */
  accent?: string;
}): VNode {
  const accent = props.accent !== undefined && ACCENT.test(props.accent) ? props.accent : undefined;
  const styles = accent ? `${STYLES}:root { --accent: ${accent}; }\n` : STYLES;
  return (
    <html lang={props.lang ?? 'en'}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        {/* No favicon request (it would 404): an empty data URL, allowed by img-src. */}
        <link rel="icon" href="data:," />
        <title>{props.title}</title>
        {/* A constant, written verbatim: text escaping would turn its quotes into entities CSS does not read. */}
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: styles }} />
      </head>
      <body>
        <main>{props.children}</main>
        {props.script ? (
          <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.script }} />
        ) : null}
      </body>
    </html>
  );
}

/** A fresh nonce for this response's Content-Security-Policy. */
function cspNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Headers every page carries: strict CSP, no referrer, no caching, no framing. */
function pageHeaders(nonce: string): Record<string, string> {
  return securityHeaders(`'nonce-${nonce}'`, `'nonce-${nonce}'`);
}

function securityHeaders(styleSource: string, scriptSource: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src ${styleSource}`,
      `script-src ${scriptSource}`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  };
}

/** Renders a page (the `render` callback receives the response's CSP nonce). */
export function htmlPage(
  statusCode: number,
  render: (nonce: string) => VNode,
  extraHeaders: Record<string, string> = {},
): PageResponse {
  const nonce = cspNonce();
  return {
    statusCode,
    headers: { ...pageHeaders(nonce), ...extraHeaders },
    body: `<!doctype html>${renderToString(render(nonce))}`,
  };
}

function Message(props: {
  statusCode: number;
  title: string;
  nonce?: string;
  children: ComponentChildren;
}): VNode {
  const failed = props.statusCode >= 400;
  return (
    <Layout title={props.title} {...(props.nonce === undefined ? {} : { nonce: props.nonce })}>
      <h1>{props.title}</h1>
      <div class={failed ? 'notice error' : 'notice'} role={failed ? 'alert' : undefined}>
        {props.children}
      </div>
    </Layout>
  );
}

/** A page that says what went wrong and what to do next. */
export function messagePage(
  statusCode: number,
  title: string,
  message: ComponentChildren,
  extraHeaders: Record<string, string> = {},
): PageResponse {
  return htmlPage(
    statusCode,
    (nonce) => (
      <Message statusCode={statusCode} title={title} nonce={nonce}>
        {message}
      </Message>
    ),
    extraHeaders,
  );
}

/**
 * The headers of a page that is the same for every request, for a responder that cannot run code
 * (the web firewall's block response): no nonce, its one style sheet allowed by hash, no script.
 */
export function staticPageHeaders(styleSheet: string): Record<string, string> {
  return securityHeaders(`'sha256-${createHash('sha256').update(styleSheet).digest('base64')}'`, "'none'");
}

/** Busy or unreachable dependencies: a page that asks to try again, never a raw 5xx. */
export function tryAgainPage(): PageResponse {
  return messagePage(
    503,
    'Please try again in a moment',
    <p>
      We could not finish this step just now. Nothing was lost: go back and submit again, or reload this page
      in a few seconds.
    </p>,
    { 'Retry-After': '5' },
  );
}
