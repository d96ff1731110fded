import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { openReveal as decrypt } from '../../../core/contract/reveal-crypto';
import { pruneUsagePlanKeys, revokeKey, rotateKey } from '../../../operations/keys';
import { approvePartner, resumePartner, suspendPartner, updateAgreement } from '../../../operations/partners';
import { checkInvariants } from './invariants';
import {
  agreementScopes,
  type Command,
  HOUR,
  inForce,
  type Model,
  type ModelKey,
  type ModelPartner,
  pick,
  postReveal,
  REVEAL_LIFETIME_MS,
  REVENUE,
  type Real,
} from './model';

/*
 * The key lifecycle model's operator commands: approve, rotate, reveal, revoke, agreements,
 * suspension, prune.
 */

export class Approve implements Command {
  constructor(readonly revenue: boolean) {}
  check = (model: Readonly<Model>) => model.partners.length < 3;
  async run(model: Model, real: Real) {
    const slug = `model-${randomBytes(4).toString('hex')}`;
    const { result } = await approvePartner(
      real.target,
      {
        name: `Model ${slug}`,
        slug,
        email: `api@${slug}.example`,
        products: ['assistant'],
        scopes: this.revenue ? [REVENUE] : [],
      },
      model.now,
    );
    const partner: ModelPartner = {
      slug,
      id: result.partner_id,
      revenue: this.revenue,
      suspended: false,
      changedAt: model.now,
      revokedInForce: false,
    };
    model.partners.push(partner);
    model.keys.push(
      newKey(model, partner, result.key_prefix, result.reveal_url, [], 0, agreementScopes(partner)),
    );
    await checkInvariants(model, real);
  }
  toString = () => `approve(${this.revenue ? 'revenue' : 'metrics only'})`;
}

function newKey(
  model: Model,
  partner: ModelPartner,
  prefix: string,
  revealUrl: string,
  retires: string[],
  graceMs: number,
  scopes: string[],
): ModelKey {
  return {
    prefix,
    partner,
    revealUrl,
    createdAt: model.now,
    retires,
    graceMs,
    state: 'pending',
    scopes,
    revealSpent: false,
    revealDeleted: false,
    changedAt: model.now,
    wasInForce: false,
    leftForce: false,
  };
}

export class Rotate implements Command {
  constructor(
    readonly partnerIndex: number,
    readonly graceHours: number,
    readonly widen: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.partners.length > 0;
  async run(model: Model, real: Real) {
    const partner = pick(model.partners, this.partnerIndex);
    const { result } = await rotateKey(
      real.target,
      { slug: partner.slug, graceHours: this.graceHours, widenToAgreement: this.widen },
      model.now,
    );
    const keys = model.keys.filter((key) => key.partner === partner);
    const current = keys.filter((key) => inForce(key, model.now));
    const pending = keys.filter((key) => key.state === 'pending');
    expect(result.retiring).toEqual(current.map((key) => key.prefix));
    expect(result.superseded).toEqual(pending.map((key) => key.prefix));
    for (const key of pending) {
      key.state = 'superseded';
      key.changedAt = model.now;
      if (!key.revealDeleted) key.tombstone = 'superseded';
    }
    const newest = current.at(-1);
    const scopes =
      newest && !this.widen
        ? newest.scopes.filter((scope) => agreementScopes(partner).includes(scope))
        : agreementScopes(partner);
    model.keys.push(
      newKey(
        model,
        partner,
        result.key_prefix,
        result.reveal_url,
        current.map((key) => key.prefix),
        this.graceHours * HOUR,
        scopes,
      ),
    );
    await checkInvariants(model, real);
  }
  toString = () =>
    `rotate(partner ${this.partnerIndex}, grace ${this.graceHours} h${this.widen ? ', widen' : ''})`;
}

export class Reveal implements Command {
  constructor(readonly keyIndex: number) {}
  check = (model: Readonly<Model>) => model.keys.length > 0;
  async run(model: Model, real: Real) {
    const key = pick(model.keys, this.keyIndex);
    const answer = await postReveal(key.revealUrl);
    const expired = model.now >= key.createdAt + REVEAL_LIFETIME_MS;
    const expected = key.revealDeleted
      ? 404
      : key.tombstone
        ? 410
        : key.revealSpent || key.state !== 'pending'
          ? 410
          : expired
            ? 410
            : key.partner.suspended
              ? 403
              : 200;
    expect(answer.status, `reveal of ${key.prefix}`).toBe(expected);
    if (expected !== 200) {
      // A dead, spent, expired or suspended reveal shows nothing.
      expect(answer.body.ciphertext).toBeUndefined();
      if (key.tombstone && !key.revealDeleted)
        expect(answer.body.message).toContain(
          key.tombstone === 'superseded' ? 'replaced by a newer one' : 'revoked',
        );
      await checkInvariants(model, real);
      return;
    }
    key.plaintext = decrypt({
      fragmentSecret: answer.secret,
      iv: answer.body.iv ?? '',
      ciphertext: answer.body.ciphertext ?? '',
    });
    key.revealSpent = true;
    key.state = 'active';
    key.changedAt = model.now;
    for (const prefix of key.retires) {
      const replaced = model.keys.find((candidate) => candidate.prefix === prefix);
      if (!replaced || (replaced.state !== 'active' && replaced.state !== 'retiring')) continue;
      replaced.state = 'retiring';
      replaced.expiresAt = Math.min(replaced.expiresAt ?? Number.POSITIVE_INFINITY, model.now + key.graceMs);
      replaced.changedAt = model.now;
    }
    await checkInvariants(model, real);
  }
  toString = () => `reveal(key ${this.keyIndex})`;
}

export class Revoke implements Command {
  constructor(readonly keyIndex: number) {}
  check = (model: Readonly<Model>) => model.keys.length > 0;
  async run(model: Model, real: Real) {
    const key = pick(model.keys, this.keyIndex);
    const result = await revokeKey(real.target, key.prefix, model.now);
    const dead = key.state === 'revoked' || key.state === 'superseded';
    expect(result.changed, `revoke ${key.prefix} (${key.state})`).toBe(!dead);
    if (!dead) {
      if (inForce(key, model.now)) key.partner.revokedInForce = true;
      if (key.state === 'pending' && !key.revealDeleted) key.tombstone = 'revoked';
      key.state = 'revoked';
      key.changedAt = model.now;
    }
    await checkInvariants(model, real);
  }
  toString = () => `revoke(key ${this.keyIndex})`;
}

export class SetAgreement implements Command {
  constructor(
    readonly partnerIndex: number,
    readonly revenue: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.partners.length > 0;
  async run(model: Model, real: Real) {
    const partner = pick(model.partners, this.partnerIndex);
    await updateAgreement(
      real.target,
      { slug: partner.slug, scopes: this.revenue ? [REVENUE] : [] },
      model.now,
    );
    if (partner.revenue !== this.revenue) partner.changedAt = model.now;
    // Scopes the agreement gains reach the keys no one holds yet (not revealed), never a key in use.
    if (this.revenue && !partner.revenue)
      for (const key of model.keys)
        if (key.partner === partner && key.state === 'pending' && !key.scopes.includes(REVENUE))
          key.scopes = [...key.scopes, REVENUE];
    partner.revenue = this.revenue;
    if (!this.revenue)
      for (const key of model.keys)
        if (key.partner === partner && (key.state === 'pending' || inForce(key, model.now)))
          key.scopes = key.scopes.filter((scope) => scope !== REVENUE);
    await checkInvariants(model, real);
  }
  toString = () => `agreement(partner ${this.partnerIndex}, ${this.revenue ? 'widen' : 'narrow'})`;
}

export class Suspend implements Command {
  constructor(
    readonly partnerIndex: number,
    readonly suspend: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.partners.length > 0;
  async run(model: Model, real: Real) {
    const partner = pick(model.partners, this.partnerIndex);
    const result = this.suspend
      ? await suspendPartner(real.target, { slug: partner.slug, reason: 'model' }, model.now)
      : await resumePartner(real.target, partner.slug, model.now);
    expect(result.changed).toBe(partner.suspended !== this.suspend);
    if (result.changed) partner.changedAt = model.now;
    partner.suspended = this.suspend;
    await checkInvariants(model, real);
  }
  toString = () => `${this.suspend ? 'suspend' : 'resume'}(partner ${this.partnerIndex})`;
}

export class Prune implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await pruneUsagePlanKeys(real.target, model.now);
    await checkInvariants(model, real);
  }
  toString = () => 'keys prune';
}
