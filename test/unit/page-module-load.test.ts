import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * A page Lambda's cold start pays for what its modules do when they load. `Intl` constructors load
 * locale data: made for every language at load, they once added 20–28 ms to each page bundle's
 * import (bench section 2). They are made on first use instead; this counts them.
 */
const CONSTRUCTORS = ['NumberFormat', 'DateTimeFormat', 'ListFormat', 'PluralRules'] as const;
const originals = Object.fromEntries(CONSTRUCTORS.map((name) => [name, Intl[name]]));

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

describe('loading the page modules', () => {
  it('makes no Intl formatter until a page is rendered; the first format makes one', async () => {
    vi.resetModules();
    const counter = countIntlConstructions();

    const pages = await Promise.all([
      import('../../lambdas/pages/home'),
      import('../../lambdas/pages/reveal'),
      import('../../lambdas/pages/activate'),
      import('../../lambdas/pages/marketplace'),
      import('../../lambdas/pages/onboarding'),
    ]);
    const made = counter.made;
    const { formatsFor } = await import('../../lambdas/pages/messages/format');
    const german = formatsFor('de').list(['A', 'B', 'C']);

    expect(pages.every((page) => typeof page.handler === 'function')).toBe(true);
    expect(made).toBe(0);
    expect(german).toBe('A, B und C');
    expect(counter.made).toBe(1);
  });
});
