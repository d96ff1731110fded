import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Language } from '../../../core/domain/languages';
import { isLanguage, LANGUAGES, negotiateLanguage } from '../../../core/domain/languages';
import { headerValue } from '../../common/http-headers';
import { de } from './de';
import type { Messages } from './en';
import { en } from './en';
import { es } from './es';
import type { Formats } from './format';
import { formatsFor } from './format';
import { fr } from './fr';
import { it } from './it';

export type { Messages } from './en';

/** How each language's catalogue is built; the type makes each one complete. */
const BUILDERS: Readonly<Record<Language, () => Messages>> = { en, de, fr, es, it };

/** Each language's catalogue as a getter that builds it on first use and keeps it. */
function builtOnFirstUse(): Readonly<Record<Language, Messages>> {
  const catalogues = {} as Record<Language, Messages>;
  for (const language of LANGUAGES) {
    let built: Messages | undefined;
    Object.defineProperty(catalogues, language, {
      enumerable: true,
      get: () => {
        built ??= BUILDERS[language]();
        return built;
      },
    });
  }
  return catalogues;
}

/**
 * One catalogue per language, each built on first use and kept for the instance: a request needs
 * one language, and building them all at load was load time every page's cold start paid
 * (docs/design/README.md#cold-start-is-billed). Pure, so a bundle that never reads it leaves it out.
 */
export const CATALOGUES = /* @__PURE__ */ builtOnFirstUse();

/** The query parameter of the language switch, and the cookie that keeps its choice. */
const LANGUAGE_PARAMETER = 'lang';
export const LANGUAGE_COOKIE = 'host_lang';

/** A host page's language: its messages, its `Intl` formats, and how to offer the other languages. */
export interface HostLocale {
  readonly language: Language;
  readonly messages: Messages;
  readonly formats: Formats;
  /** The address of this page in another language (relative, keeps the page's own query). */
  switchTo(language: Language): string;
  /** The same locale, its switch keeping these query parameters too (a form's page after a POST). */
  keeping(parameters: Record<string, string>): HostLocale;
  /** Set when the address chose the language: the cookie that keeps it for the browser session. */
  readonly cookie?: string;
}

/** A host page's locale; `query` is the page's own query, which the language switch keeps. */
function localeOf(
  language: Language,
  options: { query?: URLSearchParams; cookie?: string } = {},
): HostLocale {
  const query = options.query ?? new URLSearchParams();
  return {
    language,
    messages: CATALOGUES[language],
    formats: formatsFor(language),
    switchTo: (other) => {
      const next = new URLSearchParams(query);
      next.set(LANGUAGE_PARAMETER, other);
      return `?${next.toString()}`;
    },
    keeping: (parameters) => {
      const next = new URLSearchParams(query);
      for (const [name, value] of Object.entries(parameters)) next.set(name, value);
      return localeOf(language, { ...options, query: next });
    },
    ...(options.cookie ? { cookie: options.cookie } : {}),
  };
}

function cookieLanguage(event: APIGatewayProxyEvent): Language | undefined {
  for (const part of (headerValue(event.headers, 'cookie') ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === LANGUAGE_COOKIE && isLanguage(value)) return value;
  }
  return undefined;
}

/**
 * The language of a host page: the switch's `?lang=` (which also sets the cookie), else the
 * cookie an earlier switch set, else the best match of `Accept-Language`. The cookie has no
 * Max-Age, so the choice lasts for the browser session; like the host session's cookie it has
 * no Path, so it holds for the partner's pages (`…/partner/<slug>/`).
 */
export function hostLocale(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueQueryStringParameters' | 'queryStringParameters'>,
  secure: boolean,
): HostLocale {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    if (name !== LANGUAGE_PARAMETER) for (const value of values ?? []) query.append(name, value);
  const chosen = event.queryStringParameters?.[LANGUAGE_PARAMETER];
  if (isLanguage(chosen))
    return localeOf(chosen, {
      query,
      cookie: `${LANGUAGE_COOKIE}=${chosen}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
    });
  const language =
    cookieLanguage(event as APIGatewayProxyEvent) ??
    negotiateLanguage(headerValue(event.headers, 'accept-language'));
  return localeOf(language, { query });
}
