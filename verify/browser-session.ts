/**
 * Just enough of a browser for the deploy verification to walk the activation pages: a cookie
 * jar, redirects followed by hand (each hop is checked), and forms submitted as a browser submits
 * them (every named field in document order, checkboxes only when checked).
 */

export interface PageAnswer {
  readonly url: string;
  readonly status: number;
  readonly location?: string;
  readonly html: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name] ?? entity;
  });
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) {
    const [, name, value] = match;
    if (name) found.set(name.toLowerCase(), decodeEntities(value ?? ''));
  }
  return found;
}

/** A form field as a browser would submit it. */
interface FormField {
  readonly name: string;
  value: string;
  readonly kind: 'hidden' | 'text' | 'textarea' | 'select' | 'checkbox';
  readonly attributes: ReadonlyMap<string, string>;
}

export interface PostForm {
  readonly action: string;
  readonly fields: FormField[];
}

/** The first `<form method="post">` of a page, with its fields in document order. */
export function postFormOf(html: string): PostForm | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (
    !form ||
    attributes(form[1] ?? '')
      .get('method')
      ?.toLowerCase() !== 'post'
  )
    return undefined;
  const fields: FormField[] = [];
  for (const match of (form[2] ?? '').matchAll(
    /<input\b([^>]*)\/?>|<textarea\b([^>]*)>([\s\S]*?)<\/textarea>|<select\b([^>]*)>([\s\S]*?)<\/select>/gi,
  )) {
    const [, input, textareaTag, textareaBody, selectTag, selectBody] = match;
    if (input !== undefined) {
      const attrs = attributes(input);
      const name = attrs.get('name');
      const type = (attrs.get('type') ?? 'text').toLowerCase();
      if (!name || ['submit', 'button', 'reset', 'file', 'image'].includes(type)) continue;
      const kind = type === 'hidden' ? 'hidden' : type === 'checkbox' ? 'checkbox' : 'text';
      fields.push({
        name,
        value: attrs.get('value') ?? (kind === 'checkbox' ? 'on' : ''),
        kind,
        attributes: attrs,
      });
    } else if (textareaTag !== undefined) {
      const attrs = attributes(textareaTag);
      const name = attrs.get('name');
      if (name)
        fields.push({ name, value: decodeEntities(textareaBody ?? ''), kind: 'textarea', attributes: attrs });
    } else if (selectTag !== undefined) {
      const attrs = attributes(selectTag);
      const name = attrs.get('name');
      const options = [...(selectBody ?? '').matchAll(/<option\b([^>]*)>/gi)].map((option) =>
        attributes(option[1] ?? ''),
      );
      const chosen = options.find((option) => option.has('selected')) ?? options[0];
      if (name) fields.push({ name, value: chosen?.get('value') ?? '', kind: 'select', attributes: attrs });
    }
  }
  return { action: attributes(form[1] ?? '').get('action') ?? '', fields };
}

/**
 * Fills a form as a host would for the verification: every checkbox ticked, and the first empty
 * text field of each name given a value (a decimal field a price), so a repeated group (questions,
 * offers) gets one complete entry and its blank rows stay blank.
 */
export function fillForm(form: PostForm, text: string): URLSearchParams {
  const filled = new Set<string>();
  const body = new URLSearchParams();
  for (const field of form.fields) {
    if (field.kind === 'checkbox') {
      body.append(field.name, field.value);
      continue;
    }
    if (
      (field.kind === 'text' || field.kind === 'textarea') &&
      field.value === '' &&
      !filled.has(field.name)
    ) {
      filled.add(field.name);
      field.value = field.attributes.get('inputmode') === 'decimal' ? '25.00' : text;
    }
    body.append(field.name, field.value);
  }
  return body;
}

/** A browser tab: cookies kept per host, every request made with `redirect: manual`. */
export class BrowserSession {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly timeoutMs: number) {}

  async open(url: string, init: { method?: string; body?: URLSearchParams } = {}): Promise<PageAnswer> {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        Accept: 'text/html',
        ...(this.cookies.size > 0
          ? { Cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
          : {}),
        ...(init.body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.body ? { body: init.body.toString() } : {}),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const separator = pair.indexOf('=');
      if (separator > 0) this.cookies.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
    }
    const location = response.headers.get('location');
    return {
      url,
      status: response.status,
      ...(location ? { location: new URL(location, url).toString() } : {}),
      html: await response.text(),
    };
  }
}

/** The page's `<title>` or first heading, to say where a walk stopped. */
export function pageTitle(html: string): string {
  const title =
    /<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1] ?? /<title>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  return decodeEntities((title ?? '').replace(/<[^>]+>/g, '').trim()).slice(0, 120);
}
