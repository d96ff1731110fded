import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Language } from '../../core/domain/languages';
import { lambdaContext, proxyEvent } from '../support/events';

/**
 * A page Lambda's cold start pays for what its modules do when they load, and Lambda bills that
 * time (docs/design/README.md#cold-start-is-billed). `Intl` constructors load locale data: made for
 * every language at load, they once added 20–28 ms to each page bundle's import (bench section 2).
 * The message catalogues were built at load too. Both are made on first use instead; this
 * counts them.
 */
const CONSTRUCTORS = ['NumberFormat', 'DateTimeFormat', 'ListFormat', 'PluralRules'] as const;
const originals = Object.fromEntries(CONSTRUCTORS.map((name) => [name, Intl[name]]));

/** The languages whose formats were asked for, in order: each catalogue asks for its own when it is built. */
const formatsAskedFor = vi.hoisted(() => [] as string[]);
vi.mock('../../lambdas/pages/messages/format', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lambdas/pages/messages/format')>();
  return {
    ...actual,
    formatsFor: (language: Language) => {
      formatsAskedFor.push(language);
      return actual.formatsFor(language);
    },
  };
});

function countIntlConstructions(): { readonly made: number } {
  const counter = { made: 0 };
  for (const name of CONSTRUCTORS) {
    const Original = originals[name] as unknown as new (...args: unknown[]) => object;
    const Counted = function (this: unknown, ...args: unknown[]) {
      counter.made += 1;
      return new Original(...args);
    } as unknown as (typeof Intl)[typeof name];
    Object.assign(Counted, Original);
    Object.defineProperty(Intl, name, { value: Counted, configurable: true, writable: true });
  }
  return counter;
}

afterEach(() => {
  for (const name of CONSTRUCTORS)
    Object.defineProperty(Intl, name, { value: originals[name], configurable: true, writable: true });
});

const loadPages = () =>
  Promise.all([
    import('../../lambdas/pages/home'),
    import('../../lambdas/pages/reveal'),
    import('../../lambdas/pages/activate'),
    import('../../lambdas/pages/marketplace'),
    import('../../lambdas/pages/onboarding'),
  ]);

/** A link to a partner slug that cannot exist: the page answers from its catalogue alone, with no AWS call. */
function unknownPartnerRequest(acceptLanguage: string): APIGatewayProxyEvent {
  return proxyEvent({
    resource: '/partner/{slug}/activate',
    path: '/partner/NO%20SUCH%20SLUG/activate',
    pathParameters: { slug: 'NO SUCH SLUG' },
    headers: { 'Accept-Language': acceptLanguage, Accept: 'text/html' },
    authorizer: null,
  });
}

describe('loading the page modules', () => {
  it('makes no Intl formatter until a page is rendered; the first format makes one', async () => {
    vi.resetModules();
    const counter = countIntlConstructions();

    const pages = await loadPages();
    const made = counter.made;
    const { formatsFor } = await import('../../lambdas/pages/messages/format');
    const german = formatsFor('de').list(['A', 'B', 'C']);

    expect(pages.every((page) => typeof page.handler === 'function')).toBe(true);
    expect(made).toBe(0);
    expect(german).toBe('A, B und C');
    expect(counter.made).toBe(1);
  });

  it('builds no message catalogue; a request builds its own language’s and keeps it', async () => {
    vi.resetModules();
    formatsAskedFor.length = 0;

    const [, , activate] = await loadPages();
    const atLoad = [...formatsAskedFor];
    const first = await activate.handler(unknownPartnerRequest('de-CH, fr;q=0.5'), lambdaContext);
    const afterGerman = [...new Set(formatsAskedFor)];
    const again = await activate.handler(unknownPartnerRequest('de'), lambdaContext);
    const afterAgain = [...new Set(formatsAskedFor)];
    const { CATALOGUES } = await import('../../lambdas/pages/messages');

    expect(atLoad).toEqual([]);
    expect(first.statusCode).toBe(404);
    expect(first.body).toContain(CATALOGUES.de.unknownPartnerTitle);
    expect(afterGerman).toEqual(['de']);
    expect(again.body).toContain(CATALOGUES.de.unknownPartnerTitle);
    expect(afterAgain).toEqual(['de']);
    expect(CATALOGUES.de).toBe(CATALOGUES.de);
  });
});
