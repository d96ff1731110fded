import { renderToString } from 'preact-render-to-string';
import type { Language } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import type { PageResponse } from './html';
import { staticPageHeaders } from './html';
import { CATALOGUES } from './messages';

/** `a minute`, `5 minutes`, `90 seconds`: English as people say it. */
export function durationText(seconds: number): string {
  if (seconds % 60 !== 0) return `${seconds} seconds`;
  return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
}

/** The wait in a language: `1 Minute`, `5 minutes`, `90 secondi` (Intl's units). */
function waitIn(language: Language, seconds: number): string {
  if (language === 'en') return durationText(seconds);
  const [value, unit] = seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/**
 * The most a web ACL's custom response body may hold, in bytes (AWS WAF's quota is 4 KB; the
 * CloudFormation property takes more characters than WAF then accepts).
 */
export const FIREWALL_BODY_LIMIT_BYTES = 4_096;

/**
 * Its own small style sheet: WAF serves the page from the web ACL, whose custom response bodies
 * are capped (`FIREWALL_BODY_LIMIT_BYTES`), and the page must carry every host language.
 */
const FIREWALL_STYLES =
  ':root{color-scheme:light dark}body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1rem}main{max-width:40rem;margin:0 auto}h1{font-size:1.5rem;line-height:1.25}h2{font-size:1.1rem;margin:1.5rem 0 0}.notice{border-left:4px solid #b42318;padding:.5rem 1rem}';

/**
 * The page the web firewall answers when one network asks for pages too often (a static body:
 * the firewall cannot run code, nor read `Accept-Language`). Hosts read what happened and what to
 * do in every language of the host pages, English first.
 */
export function firewallThrottledPage(windowSeconds: number): PageResponse {
  const [first, ...others] = LANGUAGES.map((language) => ({ language, messages: CATALOGUES[language] }));
  const en = first?.messages ?? CATALOGUES.en;
  const body = renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{en.firewallTitle}</title>
        <style dangerouslySetInnerHTML={{ __html: FIREWALL_STYLES }} />
      </head>
      <body>
        <main>
          <h1>{en.firewallTitle}</h1>
          <div class="notice" role="alert">
            <p>{en.firewallWhat}</p>
            <p>{en.firewallNext(waitIn('en', windowSeconds))}</p>
          </div>
          {others.map(({ language, messages }) => (
            <section lang={language}>
              <h2>{messages.firewallTitle}</h2>
              <p>
                {messages.firewallWhat} {messages.firewallNext(waitIn(language, windowSeconds))}
              </p>
            </section>
          ))}
        </main>
      </body>
    </html>,
  );
  return {
    statusCode: 429,
    headers: { ...staticPageHeaders(FIREWALL_STYLES), 'Retry-After': String(windowSeconds) },
    body: `<!doctype html>${body}`,
  };
}
