import fc from 'fast-check';

/** Channel names that collide with Object.prototype, or hold line or paragraph separators. */
export const AWKWARD_CHANNELS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'Airbnb\u2028Plus',
  '\u2029',
  'Booking.com',
  'Direct',
] as const;

/** Mostly awkward names, sometimes any text a channel may be (1–64 characters). */
export const channelName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...AWKWARD_CHANNELS) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 64 }) },
);
