import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOG, productIn } from '../../core/domain/catalog';
import { LANGUAGES } from '../../core/domain/languages';
import { GRANTABLE_SCOPES, SCOPES } from '../../core/domain/scopes';
import { editProduct, ensureCatalog, listCatalog, translateProduct } from '../../lambdas/data/catalog';
import { dynamoDb } from '../../lambdas/data/db';
import { getPartner, keysIssuedItem } from '../../lambdas/data/partners';
import { admin, adminJson as json } from '../support/cli';
import { apiGet, approvedPartner, revealKey, testTarget } from '../support/partners';

/**
 * The first answer of `path` with `status`, asked every half second for 35 s at most (the last
 * answer then): a changed key record reaches every warm authorizer instance within its 25 s cache.
 */
async function eventually(path: string, key: string, status: number) {
  const started = Date.now();
  for (;;) {
    const answer = await apiGet(path, key);
    if (answer.status === status || Date.now() - started > 35_000) return answer;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A page's text with the entities its renderer writes decoded, to compare with the catalog's texts. */
const htmlText = (html: string) =>
  html
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/** `links create` for a host of the partner, offering `products`. */
const linkFor = (slug: string, products: string) => [
  'links',
  'create',
  '--partner',
  slug,
  '--email',
  'h@spa.example',
  '--name',
  'Spa Host',
  '--pms-hotel-id',
  'SPA-1',
  '--products',
  products,
];

describe('agreements: scopes and products as data', () => {
  // The two tests that wait out the authorizer's cache (up to 25 s each) run side by side, each
  // with a partner of its own.
  it.concurrent('narrows the keys in force at once', async () => {
    const partner = await approvedPartner({ revenue: true });
    expect((await apiGet('/properties', partner.key)).status).toBe(200);

    const narrowed = await json('partners', 'update', '--partner', partner.slug, '--scopes', '');
    expect(narrowed).toMatchObject({
      after: { scopes: ['metrics:read'] },
      narrowed_keys: [{ key_prefix: partner.keyPrefix, scopes: ['metrics:read'] }],
    });
    // The refusal itself, not a later call: another warm instance may still hold the key's old record.
    const refused = await eventually('/properties', partner.key, 403);
    expect(refused.status).toBe(403);
    expect(refused.json.type).toContain('insufficient-scope');
    expect((await apiGet('/usage', partner.key)).status).toBe(200);
  });

  it('widens a key not revealed yet, so a new partner’s first key works as agreed without a second mail', async () => {
    const { approvePartner } = await import('../../operations/partners');
    const { rotateKey } = await import('../../operations/keys');
    const approve = async (slug: string) =>
      (
        await approvePartner(
          testTarget(),
          { name: `Test ${slug}`, slug, email: `api@${slug}.example`, products: ['assistant'], scopes: [] },
          Date.now(),
        )
      ).result;
    const slug = `widen-${randomBytes(3).toString('hex')}`;
    const approved = await approve(slug);

    const widened = await admin('partners', 'update', '--partner', slug, '--scopes', 'revenue:read');
    const key = await revealKey(approved.reveal_url);
    const keys = await json('keys', 'list', '--partner', slug);
    // A rotation before the first key was revealed tells the partner the truth: no key is in use.
    const other = `widen-${randomBytes(3).toString('hex')}`;
    await approve(other);
    const rotation = await rotateKey(testTarget(), { slug: other, graceHours: 24 }, Date.now());

    expect(widened.code).toBe(0);
    expect(widened.stdout).toContain(`key ${approved.key_prefix} (not revealed yet`);
    expect(widened.stdout).not.toContain('--widen-to-agreement');
    expect(keys.keys).toHaveLength(1);
    expect(keys.keys[0].scopes).toEqual(['metrics:read', 'revenue:read']);
    expect((await apiGet('/properties', key)).status).toBe(200);
    expect(rotation.mail.text).toContain('It replaces the key of our earlier e-mail, which was not revealed');
    expect(rotation.mail.text).not.toContain('keeps working');
    // A partner whose only key was revealed, then revoked, has no key in force and no unrevealed one.
    const revoked = `widen-${randomBytes(3).toString('hex')}`;
    const revokedKey = await approve(revoked);
    await revealKey(revokedKey.reveal_url);
    await admin('keys', 'revoke', '--prefix', revokedKey.key_prefix);
    const afterRevocation = await rotateKey(testTarget(), { slug: revoked, graceHours: 24 }, Date.now());
    expect(afterRevocation.mail.text).toContain('You have no other key in force');
    expect(afterRevocation.mail.text).not.toContain('was not revealed');
  });

  it.concurrent('widens only keys issued afterwards, and only when asked to', async () => {
    const partner = await approvedPartner({ revenue: false });
    // The authorizer now holds the metrics-only agreement in its cache.
    expect((await apiGet('/properties', partner.key)).status).toBe(403);

    const widened = await admin('partners', 'update', '--partner', partner.slug, '--scopes', 'revenue:read');
    expect(widened.code).toBe(0);
    expect(widened.stdout).toContain('--widen-to-agreement');
    const keys = await json('keys', 'list', '--partner', partner.slug);
    expect(keys.keys[0].scopes).toEqual(['metrics:read']);

    const plainRotation = await json('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    expect((await json('keys', 'list', '--partner', partner.slug)).keys.at(-1)).toMatchObject({
      key_prefix: plainRotation.key_prefix,
      scopes: ['metrics:read'],
    });
    const rotated = await json(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--widen-to-agreement',
      '--no-mail',
    );
    const newKey = await revealKey(rotated.reveal_url);
    // The authorizer holds every key to the agreement it last read (cached up to 25 s).
    expect((await eventually('/properties', newKey, 200)).status).toBe(200);
    expect((await apiGet('/properties', partner.key)).status).toBe(403);
  });

  it('adds a catalog product that agreements and links can name, with no code change', async () => {
    const id = `spa-${randomBytes(3).toString('hex')}`;
    const added = await json(
      'catalog',
      'add',
      id,
      '--name',
      'Spa booking',
      '--description',
      'Lets guests book the spa before they arrive.',
    );
    expect(added).toMatchObject({ id, name: 'Spa booking', goes_live: null });
    expect((await json('catalog', 'list')).products.map((product: { id: string }) => product.id)).toContain(
      id,
    );

    const partner = await approvedPartner({ products: ['assistant'] });
    const outside = await admin(...linkFor(partner.slug, id));
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`Not in ${partner.slug}'s agreement: ${id}`);

    const updated = await json(
      'partners',
      'update',
      '--partner',
      partner.slug,
      '--products',
      `assistant,${id}`,
    );
    expect(updated.after.products).toEqual(['assistant', id]);
    const link = await json(...linkFor(partner.slug, id));
    const opened = await fetch(link.url, { redirect: 'manual' });
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const marketplace = await fetch(new URL(opened.headers.get('location') ?? '', link.url), {
      headers: { cookie },
    });
    expect(marketplace.status).toBe(200);
    expect(await marketplace.text()).toContain('Spa booking');

    const edited = await json('catalog', 'edit', id, '--name', 'Spa and sauna');
    expect(edited).toMatchObject({ id, name: 'Spa and sauna', description: added.description });
  });

  it('ships every default product: the marketplace offers each in the host’s language', async () => {
    // DEFAULT_CATALOG is what every deployment starts with (npm start writes it, as a stage's first
    // operator command does): a product added there reaches hosts with its translations.
    const ids = DEFAULT_CATALOG.map((product) => product.id);
    const partner = await approvedPartner({ products: ids });
    const link = await json(...linkFor(partner.slug, ids.join(',')));
    const opened = await fetch(link.url, { redirect: 'manual' });
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const marketplace = new URL(opened.headers.get('location') ?? '', link.url);

    for (const language of LANGUAGES) {
      const page = await fetch(marketplace, { headers: { cookie, 'Accept-Language': language } });
      const text = htmlText(await page.text());

      expect(page.status).toBe(200);
      for (const product of DEFAULT_CATALOG) {
        const { name, description } = productIn(product, language);
        expect(text, `${product.id} in ${language}`).toContain(name);
        expect(text, `${product.id} in ${language}`).toContain(description);
      }
    }
  });

  it('refuses unknown products and scopes, duplicates and empty edits, naming what to fix', async () => {
    const partner = await approvedPartner();
    const unknownProduct = await admin('partners', 'update', '--partner', partner.slug, '--products', 'wifi');
    const unknownScope = await admin(
      'partners',
      'update',
      '--partner',
      partner.slug,
      '--scopes',
      'admin:write',
    );
    const nothing = await admin('partners', 'update', '--partner', partner.slug);
    const duplicate = await admin('catalog', 'add', 'assistant', '--name', 'X', '--description', 'Y');
    const missing = await admin('catalog', 'edit', 'no-such-product', '--name', 'X');
    const emptyEdit = await admin('catalog', 'edit', 'assistant');
    const halfLive = await admin(
      'catalog',
      'add',
      'half',
      '--name',
      'X',
      '--description',
      'Y',
      '--goes-live',
      'Go',
    );

    expect(unknownProduct).toMatchObject({ code: 1 });
    expect(unknownProduct.stderr).toContain('Unknown product(s): wifi');
    expect(unknownScope).toMatchObject({ code: 2 });
    expect(unknownScope.stderr).toContain(`Unknown scope(s): admin:write. Scopes: ${SCOPES.join(', ')}`);
    expect(nothing).toMatchObject({ code: 2 });
    expect(duplicate).toMatchObject({ code: 1 });
    expect(duplicate.stderr).toContain('already has a product "assistant"');
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain('No product "no-such-product"');
    expect(emptyEdit).toMatchObject({ code: 2 });
    expect(halfLive).toMatchObject({ code: 2 });
    expect((await getPartner(partner.id))?.scopes).toEqual(SCOPES);
  });

  it('changes nothing for an unchanged agreement, and cancels an issue that read an older one', async () => {
    const partner = await approvedPartner({ revenue: true });
    const before = await getPartner(partner.id);

    const granted = GRANTABLE_SCOPES.join(',');
    const same = await json('partners', 'update', '--partner', partner.slug, '--scopes', granted);
    const changed = await json('partners', 'update', '--partner', partner.slug, '--products', 'assistant');
    const stillReadable = await getPartner(partner.id);
    const events = (await json('audit', 'list', '--partner', partner.slug, '--action', 'agreement.changed'))
      .events;

    expect(same).toMatchObject({ unchanged: true, narrowed_keys: [] });
    expect(changed).toMatchObject({ unchanged: false, after: { products: ['assistant'] } });
    expect(events).toHaveLength(1);
    expect(stillReadable?.revision).toBe((before?.revision ?? 0) + 1);
    // A rotation that read the agreement before the update cannot commit its key.
    await expect(
      dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [keysIssuedItem(before ?? { id: partner.id, revision: 0 }, ['svc_Unwritten'])],
        }),
      ),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    await expect(
      dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [keysIssuedItem(stillReadable ?? { id: partner.id, revision: 0 }, ['svc_Written0'])],
        }),
      ),
    ).resolves.toBeDefined();
  });

  it('gives a default product the goesLive it was stored without, unless an operator removed it', async () => {
    const id = `live-${randomBytes(3).toString('hex')}`;
    const stored = { id, name: 'Concierge', description: 'Answers guests.' };
    const goesLive = { submitLabel: 'Make my concierge live', liveMessage: 'Your concierge answers guests.' };
    const find = async () => (await listCatalog()).find((product) => product.id === id);

    await ensureCatalog([stored]);
    await ensureCatalog([{ ...stored, goesLive }]);
    const added = await find();
    await editProduct(id, { goesLive: null });
    await ensureCatalog([{ ...stored, goesLive }]);

    expect(added?.goesLive).toEqual(goesLive);
    expect((await find())?.goesLive).toBeUndefined();
  });

  it('gives a default product the translations it was stored without, never over an operator’s', async () => {
    const id = `tr-${randomBytes(3).toString('hex')}`;
    const stored = { id, name: 'Concierge', description: 'Answers guests.' };
    const translations = { de: { name: 'Concierge-Dienst' }, fr: { name: 'Conciergerie' } };
    const find = async () => (await listCatalog()).find((product) => product.id === id);

    await ensureCatalog([stored]);
    await ensureCatalog([{ ...stored, translations }]);
    const added = await find();
    await translateProduct(id, 'de', { name: 'Empfang' });
    await ensureCatalog([{ ...stored, translations: { ...translations, it: { name: 'Portineria' } } }]);
    const operatorsKept = await find();
    const renamed = `tr-${randomBytes(3).toString('hex')}`;
    await ensureCatalog([{ ...stored, id: renamed }]);
    await editProduct(renamed, { name: 'Front desk' });
    await ensureCatalog([{ ...stored, id: renamed, translations }]);

    expect(added?.translations).toEqual(translations);
    expect(operatorsKept?.translations).toEqual({ ...translations, de: { name: 'Empfang' } });
    expect((await listCatalog()).find((product) => product.id === renamed)?.translations).toBeUndefined();
  });
});
