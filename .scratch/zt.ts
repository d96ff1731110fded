import * as z from 'zod/mini';

const s = z.object({
  property_id: z.number().check(z.int(), z.positive()),
  name: z.optional(
    z.string().check(
      z.minLength(1),
      z.maxLength(100),
      z.refine((v) => !v.includes('\n'), 'one line'),
    ),
  ),
  at: z.iso.datetime(),
  ts: z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((v: string) => new Date(v).toISOString()),
  ),
});
console.log(JSON.stringify(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }), null, 1));
