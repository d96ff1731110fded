import type { ProductId } from '../../core/domain/catalog';
import { WIZARD_FINISH, wizardStepsFor } from '../../lambdas/pages/wizard-steps';

/*
 * A host's browser over plain HTTP, for the integration tests: the activation link, the
 * marketplace and the wizard's forms, posted as a browser posts them (the session cookie, the CSRF
 * token of each page, redirects followed by hand). No script runs on these pages, so nothing a
 * browser would do is left out but the looking (the browser suite's).
 */

/** The answers of one step as its form posts them, field by field (rows repeat their fields). */
export type StepForm = readonly (readonly [name: string, value: string])[];

/** A host's session with the pages: its cookies, and the language its browser asks for. */
export class HostBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly acceptLanguage = 'en') {}

  private async request(url: string, init: { method?: string; body?: string } = {}) {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        'Accept-Language': this.acceptLanguage,
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(init.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      text: await response.text(),
      next: location ? new URL(location, url).toString() : undefined,
    };
  }

  /** A page, as the browser shows it after following its redirects. */
  async open(url: string): Promise<{ url: string; status: number; text: string }> {
    let at = url;
    for (let hops = 0; hops < 5; hops++) {
      const answer = await this.request(at);
      if (!answer.next) return { url: at, status: answer.status, text: answer.text };
      at = answer.next;
    }
    throw new Error(`More than 5 redirects from ${url}`);
  }

  /**
   * Posts the form of the page at `url` and follows where it leads: `fields` are what the host
   * types, given the form's fields as the page draws them (its hidden fields, the CSRF token among
   * them, are posted as they are).
   */
  async submit(
    url: string,
    fields: StepForm | ((form: readonly FormField[]) => StepForm),
  ): Promise<{ url: string; status: number; text: string }> {
    const page = await this.open(url);
    const form = formFields(page.text);
    if (!form.some((field) => field.name === 'csrf'))
      throw new Error(`No form on ${page.url} (${page.status})`);
    const hidden = form
      .filter((field) => field.kind === 'hidden')
      .map((field) => [field.name, field.value] as const);
    const posted = await this.request(page.url, {
      method: 'POST',
      body: new URLSearchParams(
        [...hidden, ...(typeof fields === 'function' ? fields(form) : fields)].map(([name, value]) => [
          name,
          value,
        ]),
      ).toString(),
    });
    if (posted.status !== 303 || !posted.next) {
      const summary = /<div class="notice error"[\s\S]*?<\/div>/.exec(posted.text)?.[0] ?? '';
      throw new Error(`POST ${page.url} answered ${posted.status}: ${summary.replace(/<[^>]+>/g, ' ')}`);
    }
    return this.open(posted.next);
  }

  /**
   * Opens an activation link and activates these products on the marketplace (provisioning):
   * the host is then on the wizard's first step (or its closing page, with no step).
   */
  async activate(link: string, products: readonly ProductId[]): Promise<string> {
    const marketplace = await this.open(link);
    if (!/\/marketplace$/.test(marketplace.url))
      throw new Error(`The link opened ${marketplace.url} (${marketplace.status}), not the marketplace`);
    const { url } = await this.submit(
      marketplace.url,
      products.map((product) => ['product', product] as const),
    );
    return url;
  }

  /**
   * Walks the host's steps (the step table's, `wizardStepsFor`) from the first to the review, whose
   * button submits the wizard, typing into every field each page draws: `mark` and where it is in
   * every text (`question 1 <mark>`), a price in a decimal field, a select left as it is. Nothing
   * here knows a step's fields, so a new step is walked as it comes. Returns the closing page and
   * every text typed (each holds `mark`).
   */
  async finishWizard(
    onboarding: string,
    products: readonly ProductId[],
    mark: string,
  ): Promise<{ url: string; text: string; typed: string[] }> {
    const typed: string[] = [];
    let page = { url: onboarding, text: '' };
    for (const step of wizardStepsFor(products))
      page = await this.submit(new URL(`onboarding?step=${step.id}`, onboarding).toString(), (form) =>
        form.flatMap((field, index): StepForm => {
          if (field.kind === 'select') return [[field.name, field.value]];
          if (field.kind === 'decimal') return [[field.name, '12,50']];
          if (field.kind !== 'text') return [];
          const text = `${field.name} ${index} ${mark}`;
          typed.push(text);
          return [[field.name, text]];
        }),
      );
    if (!page.url.endsWith(`step=${WIZARD_FINISH.id}`))
      throw new Error(`The wizard ended on ${page.url}, not its closing page`);
    return { ...page, typed };
  }
}

/** A field of a page's form as the host meets it. */
export interface FormField {
  readonly name: string;
  /** `text` for a text field or text area, `decimal` for a number typed as text. */
  readonly kind: 'hidden' | 'text' | 'decimal' | 'select' | 'other';
  /** What it holds as drawn (a select: its selected option, else its first). */
  readonly value: string;
}

const unescapeHtml = (text: string) =>
  text.replace(/&(?:#(\d+)|(amp|lt|gt|quot));/g, (_, code: string | undefined, name: string | undefined) =>
    code
      ? String.fromCharCode(Number(code))
      : ({ amp: '&', lt: '<', gt: '>', quot: '"' } as const)[name as 'amp'],
  );

/** The fields of the first form of a page, in the page's order (its buttons left out). */
function formFields(html: string): FormField[] {
  const form = /<form[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
  const fields: FormField[] = [];
  for (const [, element = '', attributes = '', inner = ''] of form.matchAll(
    /<(input|textarea|select)\b([^>]*)>(?:([\s\S]*?)<\/\1>)?/g,
  )) {
    const attribute = (name: string) => {
      const found = new RegExp(`\\s${name}(?:="([^"]*)")?`).exec(attributes);
      return found ? unescapeHtml(found[1] ?? '') : undefined;
    };
    const name = attribute('name');
    if (!name) continue;
    if (element === 'select') {
      const options = [...inner.matchAll(/<option\b([^>]*)>/g)].map((option) => option[1] ?? '');
      const chosen = options.find((option) => /\sselected/.test(option)) ?? options[0] ?? '';
      fields.push({ name, kind: 'select', value: unescapeHtml(/value="([^"]*)"/.exec(chosen)?.[1] ?? '') });
    } else if (element === 'textarea') fields.push({ name, kind: 'text', value: unescapeHtml(inner) });
    else {
      const type = attribute('type') ?? 'text';
      const kind =
        type === 'hidden'
          ? 'hidden'
          : type !== 'text'
            ? 'other'
            : attribute('inputmode') === 'decimal'
              ? 'decimal'
              : 'text';
      fields.push({ name, kind, value: attribute('value') ?? '' });
    }
  }
  return fields;
}
