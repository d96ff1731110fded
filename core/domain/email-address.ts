import * as z from 'zod/mini';

/**
 * The one rule for an e-mail address, the activation page's: an operator's input is refused by it
 * with the operator's words before a link could carry an address the page would refuse.
 */
export const emailAddressSchema = () => z.email().check(z.maxLength(254));

let schema: ReturnType<typeof emailAddressSchema> | undefined;

/** Whether the activation page (and every other check of an address) accepts `value`. */
export function isEmailAddress(value: string): boolean {
  schema ??= emailAddressSchema();
  return z.safeParse(schema, value).success;
}
