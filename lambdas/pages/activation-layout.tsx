import type { ComponentChildren, VNode } from 'preact';
import { LOGO_BOX } from '../../core/domain/branding';
import { LANGUAGE_NAMES, LANGUAGES } from '../../core/domain/languages';
import { htmlPage, Layout, type PageResponse } from './html';
import type { HostLocale } from './messages';

/** The partner as its hosts' pages show it: name, logo (a data: URL, never a third-party address), website. */
export interface PartnerFace {
  readonly name: string;
  readonly logo?: string;
  readonly website?: string;
  readonly accentColor?: string;
}

/** Above every host page: who sponsors it, and the language switch. */
function HostHeader(props: { locale: HostLocale; partner?: PartnerFace }) {
  const { locale, partner } = props;
  return (
    <header class="host-header">
      {partner ? (
        <p class="sponsor muted">
          {partner.logo ? <img src={partner.logo} alt="" height={LOGO_BOX.height} /> : null}
          <span>
            {locale.messages.sponsoredBy} <strong>{partner.name}</strong>
          </span>
        </p>
      ) : (
        <span />
      )}
      <nav aria-label={locale.messages.languageSwitch} class="languages">
        <ul>
          {LANGUAGES.map((language) => (
            <li>
              <a
                href={locale.switchTo(language)}
                hreflang={language}
                lang={language}
                aria-current={language === locale.language ? 'true' : undefined}
              >
                {LANGUAGE_NAMES[language]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}

/** Where the host is in the activation: the stages' names and the current one's place. */
export interface Progress {
  readonly stages: readonly string[];
  readonly current: number;
}

/** The activation pages' frame: the partner, the language switch, and the one progress indicator. */
export function ActivationLayout(props: {
  title: string;
  nonce: string;
  locale: HostLocale;
  partner: PartnerFace;
  progress: Progress;
  children: ComponentChildren;
}) {
  const { locale, progress } = props;
  return (
    <Layout
      title={`${props.title} · ${props.partner.name}`}
      nonce={props.nonce}
      lang={locale.language}
      {...(props.partner.accentColor ? { accent: props.partner.accentColor } : {})}
    >
      <HostHeader locale={locale} partner={props.partner} />
      <nav aria-label={locale.messages.progressLabel}>
        <ol class="steps">
          {progress.stages.map((stage, index) => (
            <li aria-current={index === progress.current ? 'step' : undefined}>
              {locale.formats.number(index + 1)}. {stage}
            </li>
          ))}
        </ol>
      </nav>
      {props.children}
    </Layout>
  );
}

/**
 * A host page that says what happened and what to do: in the host's language, with the partner
 * (when the address names one) and a way back to its website (when it has one).
 */
export function hostMessagePage(
  statusCode: number,
  locale: HostLocale,
  title: string,
  message: ComponentChildren,
  options: {
    partner?: PartnerFace | undefined;
    headers?: Record<string, string>;
    /** What the host can do next, under the message (a page that asks). */
    actions?: ComponentChildren;
  } = {},
): PageResponse {
  const { partner } = options;
  const failed = statusCode >= 400;
  return htmlPage(
    statusCode,
    (nonce): VNode => (
      <Layout
        title={title}
        nonce={nonce}
        lang={locale.language}
        {...(partner?.accentColor ? { accent: partner.accentColor } : {})}
      >
        <HostHeader locale={locale} {...(partner ? { partner } : {})} />
        <h1>{title}</h1>
        <div class={failed ? 'notice error' : 'notice'} role={failed ? 'alert' : undefined}>
          {message}
        </div>
        {options.actions}
        {partner?.website ? (
          <a class="back-to" href={partner.website} rel="noopener noreferrer">
            {locale.messages.backTo(partner.name)}
          </a>
        ) : null}
      </Layout>
    ),
    options.headers,
  );
}
