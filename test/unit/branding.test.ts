import { describe, expect, it } from 'vitest';
import {
  brandingOf,
  checkAccentColor,
  checkLogo,
  checkWebsite,
  contrastRatio,
  MAX_LOGO_BYTES,
} from '../../core/domain/branding';

const svg = (inside: string, attributes = '') =>
  new TextEncoder().encode(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"${attributes}>${inside}</svg>`,
  );

/** The first bytes of a PNG of this size: signature and IHDR chunk. */
function png(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return bytes;
}

/** The first bytes of an extended WebP of this canvas size (a VP8X chunk). */
function webp(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(30);
  bytes.set(new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8X'));
  for (const [at, value] of [
    [24, width - 1],
    [27, height - 1],
  ] as const)
    bytes.set([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff], at);
  return bytes;
}

describe('partner branding rules', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    expect(contrastRatio('#ffffff', '#767676')).toBeCloseTo(4.54, 2);
  });

  it('takes an accent only when white text on it meets WCAG AA (4.5:1)', () => {
    expect(checkAccentColor('#0B5394')).toEqual({ ok: true, value: '#0b5394' });
    expect(checkAccentColor('#767676')).toEqual({ ok: true, value: '#767676' });
    const light = checkAccentColor('#777777');
    expect(light.ok).toBe(false);
    if (!light.ok) expect(light.problem).toMatch(/too light: white text on it has a contrast of 4\.48:1/);
    for (const bad of ['red', '#fff', '#12345g', '#1234567', '0b5394', '#0b5394;}body{display:none'])
      expect(checkAccentColor(bad).ok, bad).toBe(false);
    // The default accent of the pages meets the same rule.
    expect(checkAccentColor('#1f6feb').ok).toBe(true);
  });

  it('takes a website only over https, without credentials, on one line', () => {
    expect(checkWebsite('https://www.example.com/hosts')).toEqual({
      ok: true,
      value: 'https://www.example.com/hosts',
    });
    for (const bad of [
      'http://www.example.com',
      'javascript:alert(1)',
      'https://user:pass@example.com',
      'www.example.com',
      `https://example.com/${'a'.repeat(300)}`,
      'data:text/html,hi',
    ])
      expect(checkWebsite(bad).ok, bad).toBe(false);
  });

  it('knows a logo by its bytes and refuses what is not a PNG, WebP or SVG', () => {
    expect(checkLogo(png(480, 120))).toEqual({ ok: true, contentType: 'image/png' });
    expect(checkLogo(webp(480, 120))).toEqual({ ok: true, contentType: 'image/webp' });
    expect(checkLogo(svg('<rect width="10" height="10" fill="#0b5394"/>'))).toEqual({
      ok: true,
      contentType: 'image/svg+xml',
    });
    expect(
      checkLogo(
        new TextEncoder().encode(
          `<?xml version="1.0"?>\n<!-- logo -->\n${new TextDecoder().decode(svg('<circle r="4"/>'))}`,
        ),
      ),
    ).toEqual({ ok: true, contentType: 'image/svg+xml' });
    for (const [bytes, problem] of [
      [new Uint8Array(0), 'empty'],
      [new Uint8Array(MAX_LOGO_BYTES + 1), 'at most'],
      [new TextEncoder().encode('GIF89a....'), 'not a PNG, WebP or SVG'],
      [new TextEncoder().encode('<html><svg></svg></html>'), 'not a PNG, WebP or SVG'],
      [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'header cannot be read'],
      // A few kilobytes that decode to 144 million pixels in every host's browser.
      [png(12_000, 12_000), 'is 12000×12000 px; a logo takes at most 1600×1600'],
      [webp(480, 16_000), 'is 480×16000 px'],
    ] as const)
      expect(checkLogo(bytes), problem).toMatchObject({
        ok: false,
        problem: expect.stringContaining(problem),
      });
    expect(checkLogo(svg('<use href="#a"/><rect id="a" fill="url(#g)"/>')).ok).toBe(true);
  });

  it('only recognises an SVG, whatever it holds: it is drawn as a PNG, never stored as it is', () => {
    for (const inside of ['<script>alert(1)</script>', '<foreignObject><div/></foreignObject>'])
      expect(checkLogo(svg(inside))).toEqual({ ok: true, contentType: 'image/svg+xml' });
  });

  it('reads stored branding defensively: a part that breaks its rule is dropped', () => {
    expect(brandingOf(undefined)).toBeUndefined();
    expect(
      brandingOf({
        accentColor: '#eeeeee',
        website: 'http://x.example',
        logo: { contentType: 'text/html', sha256: 'a' },
      }),
    ).toBeUndefined();
    expect(
      brandingOf({
        accentColor: '#0b5394',
        website: 'https://x.example/',
        logo: { contentType: 'image/png', sha256: 'a' },
      }),
    ).toEqual({
      accentColor: '#0b5394',
      website: 'https://x.example/',
      logo: { contentType: 'image/png', sha256: 'a' },
    });
  });
});
