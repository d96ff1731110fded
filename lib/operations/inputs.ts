import { isKeyPrefix } from '../../lambdas/domain/api-key';
import type { ProductId } from '../../lambdas/domain/catalog';
import { isProductId, PRODUCT_IDS } from '../../lambdas/domain/catalog';
import { isPartnerSlug } from '../../lambdas/domain/partner-slug';
import { isOneLine, quoted } from '../../lambdas/domain/text';
import { OperatorError } from './operator-error';

/** Operator input checks with messages that say what to fix. */
export function partnerSlug(value: string, flag: string): string {
  const slug = value.trim();
  if (!isPartnerSlug(slug)) {
    throw new OperatorError(
      `${flag} "${quoted(value, 60)}" is not a partner slug: 1-40 lower-case letters, digits and hyphens, not starting or ending with a hyphen.`,
    );
  }
  return slug;
}

export function emailAddress(flag: string, value: string): string {
  const email = value.trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw new OperatorError(`${flag} "${quoted(value, 60)}" is not an e-mail address.`);
  }
  return email;
}

export function displayName(flag: string, value: string, maxLength = 120): string {
  const name = value.trim();
  if (name.length === 0 || name.length > maxLength || !isOneLine(name)) {
    throw new OperatorError(`${flag} must be 1-${maxLength} characters on one line.`);
  }
  return name;
}

export function productList(value: string): ProductId[] {
  const requested = value
    .split(',')
    .map((product) => product.trim())
    .filter(Boolean);
  const unknown = requested.filter((product) => !isProductId(product));
  if (requested.length === 0 || unknown.length > 0) {
    throw new OperatorError(
      `${unknown.length > 0 ? `Unknown product(s): ${unknown.join(', ')}. ` : '--products is empty. '}Products: ${PRODUCT_IDS.join(', ')}.`,
    );
  }
  return [...new Set(requested.filter(isProductId))];
}

export function keyPrefix(value: string): string {
  const prefix = value.trim();
  if (!isKeyPrefix(prefix)) {
    throw new OperatorError(
      `--prefix "${quoted(value, 60)}" is not a key prefix: it is the first 12 characters of a key, like svc_AbC123xy.`,
    );
  }
  return prefix;
}

export function integerInRange(flag: string, value: string, minimum: number, maximum: number): number {
  const number = /^-?[0-9]+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < minimum || number > maximum) {
    throw new OperatorError(
      `${flag} must be an integer from ${minimum} to ${maximum}; got "${quoted(value, 60)}".`,
    );
  }
  return number;
}

/** The partner's own identifier of the property: printable ASCII without spaces, 1-128 characters. */
export function pmsHotelId(value: string): string {
  const id = value.trim();
  if (!/^[\x21-\x7e]{1,128}$/.test(id)) {
    throw new OperatorError(
      `--pms-hotel-id "${quoted(value, 60)}" is not valid: use 1-128 printable characters without spaces.`,
    );
  }
  return id;
}
