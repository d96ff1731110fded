import { describe, expect, it } from 'vitest';
import { didYouMean, nearest } from '../../operations/did-you-mean';

describe('did you mean', () => {
  const slugs = ['demo-pms', 'acme', 'harbour-pms', 'casa-pms'];

  it('names the known name one typo away: a letter changed, left out, added, or two swapped', () => {
    expect(nearest('demo-pmz', slugs)).toBe('demo-pms');
    expect(nearest('demo-ps', slugs)).toBe('demo-pms');
    expect(nearest('demo-pmss', slugs)).toBe('demo-pms');
    expect(nearest('demo-mps', slugs)).toBe('demo-pms');
    expect(nearest('ACME', slugs)).toBe('acme');
    expect(didYouMean('upsels', ['assistant', 'upsells', 'guidebook'])).toBe(' Did you mean "upsells"?');
  });

  it('names nothing when nothing known is near, or when the name is known as typed', () => {
    expect(nearest('zebra', slugs)).toBeUndefined();
    expect(nearest('ac', slugs)).toBeUndefined();
    expect(nearest('harbour', slugs)).toBeUndefined();
    expect(didYouMean('acme', slugs)).toBe('');
    expect(didYouMean('no-such-partner', slugs)).toBe('');
  });
});
