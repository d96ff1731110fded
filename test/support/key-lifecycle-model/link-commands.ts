import { randomBytes } from 'node:crypto';
import { expect, vi } from 'vitest';
import { handler as activatePage } from '../../../lambdas/pages/activate';
import { handler as marketplacePage } from '../../../lambdas/pages/marketplace';
import { createActivationLink } from '../../../operations/links';
import { sweepExpired } from '../scan';
import { checkInvariants } from './invariants';
import {
  CHOOSING_MS,
  type Command,
  DAY,
  HOUR,
  MINUTE,
  MODEL_TABLE,
  type Model,
  page,
  pageEvent,
  pick,
  REVEAL_TTL_MS,
  type Real,
  setCookie,
} from './model';

/*
 * The key lifecycle model's clock, TTL sweeps, and activation links opened and used by hosts.
 */

/** A used nonce's TTL: a day after its link expires. */
const NONCE_TTL_AFTER_EXPIRY_MS = DAY;

/** Time passes; with `sweep`, DynamoDB's TTL deletes what expired meanwhile (it may, at any time). */
export class AdvanceClock implements Command {
  constructor(
    readonly ms: number,
    readonly sweep: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    model.now += this.ms;
    vi.setSystemTime(model.now);
    if (this.sweep) await new TtlSweep().run(model, real);
    else await checkInvariants(model, real);
  }
  toString = () => `clock +${formatDuration(this.ms)}${this.sweep ? ', TTL sweep' : ''}`;
}

/**
 * Whether an item that ends at `endsAtMs` is gone after a sweep at `now`: its `ttl` is that end
 * rounded up to a whole second (`ttlEpochSeconds`), and the sweep deletes `ttl <= floor(now)`.
 * Within a second after the end the item is still there, and the model must say so.
 */
function ttlHasPassed(endsAtMs: number, now: number): boolean {
  return Math.ceil(endsAtMs / 1000) <= Math.floor(now / 1000);
}

/** DynamoDB's TTL, at its most eager: every item whose `ttl` has passed is deleted now. */
export class TtlSweep implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await sweepExpired(MODEL_TABLE, model.now);
    for (const key of model.keys)
      if (ttlHasPassed(key.createdAt + REVEAL_TTL_MS, model.now)) key.revealDeleted = true;
    for (const link of model.links)
      if (ttlHasPassed(link.expiresAt + NONCE_TTL_AFTER_EXPIRY_MS, model.now)) link.nonceDeleted = true;
    await checkInvariants(model, real);
  }
  toString = () => 'TTL sweep';
}

const LINK_LIFETIMES = [60, 3_600, 7 * 24 * 3_600] as const;

export class CreateLink implements Command {
  constructor(
    readonly partnerIndex: number,
    readonly lifetime: number,
  ) {}
  check = (model: Readonly<Model>) => model.partners.length > 0 && model.links.length < 6;
  async run(model: Model, real: Real) {
    const partner = pick(model.partners, this.partnerIndex);
    const ttlSeconds = pick(LINK_LIFETIMES, this.lifetime);
    const link = await createActivationLink(
      real.target,
      {
        slug: partner.slug,
        email: `host-${model.links.length}@model.example`,
        name: 'Model Host',
        pmsHotelId: `PMS-${randomBytes(3).toString('hex')}`,
        products: ['assistant'],
        ttlSeconds,
      },
      model.now,
    );
    model.links.push({
      partner,
      url: link.url,
      nonce: link.nonce,
      expiresAt: Date.parse(link.expires_at),
      nonceDeleted: false,
    });
    await checkInvariants(model, real);
  }
  toString = () => `links create(partner ${this.partnerIndex}, ${pick(LINK_LIFETIMES, this.lifetime)} s)`;
}

/** A browser opens a link: the activation page verifies it and starts a session, writing nothing. */
export class OpenLink implements Command {
  constructor(readonly linkIndex: number) {}
  check = (model: Readonly<Model>) => model.links.length > 0 && model.browsers.length < 8;
  async run(model: Model, real: Real) {
    const link = pick(model.links, this.linkIndex);
    const response = await page(
      activatePage,
      pageEvent({ method: 'GET', url: link.url, pathParameters: { slug: link.partner.slug } }),
    );
    const expected = link.partner.suspended
      ? 403
      : model.now >= link.expiresAt
        ? 410
        : link.usedBy
          ? 410
          : 303;
    expect(response.statusCode, `open link ${link.nonce}`).toBe(expected);
    if (expected === 303)
      model.browsers.push({
        link,
        cookie: setCookie(response),
        sessionEnds: Math.min(link.expiresAt, (Math.floor(model.now / 1000) + CHOOSING_MS / 1000) * 1000),
        provisioned: false,
      });
    await checkInvariants(model, real);
  }
  toString = () => `open link ${this.linkIndex}`;
}

/** The host chooses products: the marketplace provisions, at most once per link, within the session. */
export class Provision implements Command {
  constructor(readonly browserIndex: number) {}
  check = (model: Readonly<Model>) => model.browsers.length > 0;
  async run(model: Model, real: Real) {
    const browser = pick(model.browsers, this.browserIndex);
    const { link } = browser;
    const url = new URL(link.url);
    const marketplaceUrl = `${url.origin}/partner/${link.partner.slug}/marketplace`;
    const event = (method: 'GET' | 'POST', body?: string) =>
      pageEvent({
        method,
        url: marketplaceUrl,
        pathParameters: { slug: link.partner.slug },
        cookie: browser.cookie,
        ...(body === undefined ? {} : { body, contentType: 'application/x-www-form-urlencoded' }),
      });
    const shown = await page(marketplacePage, event('GET'));
    const sessionOver = model.now >= browser.sessionEnds;
    const expected = link.partner.suspended
      ? 403
      : sessionOver
        ? 401
        : browser.provisioned
          ? 303
          : model.now >= link.expiresAt
            ? 410
            : link.usedBy && link.usedBy !== browser
              ? 410
              : 200;
    expect(shown.statusCode, `marketplace for browser ${this.browserIndex}`).toBe(expected);
    if (expected === 200) {
      const csrf = /name="csrf" value="([^"]+)"/.exec(shown.body)?.[1] ?? '';
      const posted = await page(
        marketplacePage,
        event('POST', new URLSearchParams({ csrf, product: 'assistant' }).toString()),
      );
      // Provisions, exactly once for this link: no other browser used it (checked just above).
      expect(posted.statusCode, 'provisioning').toBe(303);
      expect(posted.headers?.Location).toBe('onboarding');
      link.usedBy = browser;
      browser.provisioned = true;
      browser.cookie = setCookie(posted);
      browser.sessionEnds = (Math.floor(model.now / 1000) + 12 * 3_600) * 1000;
    }
    await checkInvariants(model, real);
  }
  toString = () => `provision(browser ${this.browserIndex})`;
}

/** A host who opens a link and chooses products at once (the usual path), as one step. */
export class OpenAndProvision implements Command {
  constructor(readonly linkIndex: number) {}
  check = (model: Readonly<Model>) => model.links.length > 0 && model.browsers.length < 8;
  async run(model: Model, real: Real) {
    const before = model.browsers.length;
    await new OpenLink(this.linkIndex).run(model, real);
    if (model.browsers.length > before) await new Provision(before).run(model, real);
  }
  toString = () => `open link ${this.linkIndex} and provision`;
}

function formatDuration(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY} d`;
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  return `${ms / 1000} s`;
}
