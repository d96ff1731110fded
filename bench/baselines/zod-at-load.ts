import { z } from 'zod';

/**
 * Positive control of the "no schema compiled at load" check: this bundle parses with a classic
 * zod object schema at load time, which makes zod compile the object's fast path with
 * `new Function` (after probing `new Function("")` once). The probe must count these here, or
 * the check would prove nothing. (The service uses zod/mini, whose parsers are never compiled.)
 */
const schema = z.object({ id: z.string(), count: z.number() });
const parsed = schema.parse({ id: 'a', count: 1 });

export const handler = async (): Promise<unknown> => parsed;
