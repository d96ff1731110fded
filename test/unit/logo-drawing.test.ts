import { describe, expect, it } from 'vitest';
import { LOGO_BOX, MAX_LOGO_BYTES } from '../../core/domain/branding';
import { drawSvgLogo, rasterProblem } from '../../operations/logo-drawing';
import { PLAIN_SVG_LOGO, SVG_BYPASSES } from '../support/svg-logos';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const bytesOf = (svg: string) => new TextEncoder().encode(svg);

/** A PNG's size from its header, or undefined when the bytes are not a PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (!PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)) return undefined;
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: header.getUint32(16), height: header.getUint32(20) };
}

async function drawn(svg: string) {
  const result = await drawSvgLogo(bytesOf(svg));
  if (!result.ok) throw new Error(`refused: ${result.problem}`);
  return result.png;
}

describe('an SVG logo drawn as a PNG', () => {
  it('fits the pages’ logo box at three pixels per CSS pixel, the wide side or the tall side', async () => {
    // Prepare
    const wide = PLAIN_SVG_LOGO;
    const tall =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><circle cx="5" cy="10" r="5"/></svg>';

    // Act
    const [wideDrawing, tallDrawing] = await Promise.all([drawn(wide), drawn(tall)]);

    // Assess
    expect(pngSize(wideDrawing)).toEqual({ width: LOGO_BOX.width * 3, height: LOGO_BOX.height * 3 });
    expect(pngSize(tallDrawing)).toEqual({ width: (LOGO_BOX.height / 2) * 3, height: LOGO_BOX.height * 3 });
  });

  it('takes the SVG logos the branding tests take', async () => {
    // Prepare
    const inside = (drawing: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${drawing}</svg>`;
    const logos = [
      inside('<rect width="10" height="10" fill="#0b5394"/>'),
      `<?xml version="1.0"?>\n<!-- logo -->\n${inside('<circle r="4"/>')}`,
      inside('<use href="#a"/><rect id="a" fill="url(#g)"/>'),
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><rect width="40" height="10" fill="#0b5394"/></svg>',
    ];

    // Act
    const results = await Promise.all(logos.map((logo) => drawSvgLogo(bytesOf(logo))));

    // Assess
    for (const [index, result] of results.entries()) expect(result.ok, logos[index]).toBe(true);
  });

  it.each(SVG_BYPASSES.filter((bypass) => bypass.readable))(
    'stores $name as pixels only',
    async ({ svg }) => {
      // Act
      const png = await drawn(svg);

      // Assess: a PNG, and no part of the markup survives in it.
      expect(pngSize(png)).toEqual({ width: LOGO_BOX.width * 3, height: LOGO_BOX.height * 3 });
      const text = Buffer.from(png).toString('latin1');
      for (const markup of ['<svg', 'script', 'outside.example']) expect(text).not.toContain(markup);
    },
  );

  it('refuses what it cannot read as SVG, such as an event handler after a slash', async () => {
    // Prepare
    const unreadable = SVG_BYPASSES.filter((bypass) => !bypass.readable);

    // Act
    const results = await Promise.all(unreadable.map(({ svg }) => drawSvgLogo(bytesOf(svg))));

    // Assess
    expect(unreadable).not.toHaveLength(0);
    for (const result of results)
      expect(result).toMatchObject({ ok: false, problem: expect.stringContaining('the SVG cannot be read') });
  });

  it('refuses a logo it would draw without part of it: text (no fonts), an image from an address', async () => {
    // Prepare
    const withText =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><text x="0" y="8">Acme</text></svg>';
    const withImage =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><image href="https://tracker.example/p.png" width="40" height="10"/></svg>';

    // Act
    const [text, image] = await Promise.all([
      drawSvgLogo(bytesOf(withText)),
      drawSvgLogo(bytesOf(withImage)),
    ]);

    // Assess
    expect(text).toMatchObject({
      ok: false,
      problem: expect.stringContaining('convert the text to outlines'),
    });
    expect(image).toMatchObject({
      ok: false,
      problem: expect.stringContaining('shows an image from https://tracker.example/p.png'),
    });
  });

  it('refuses what it could not draw in bounded time or whole: filters, linked images, no size', async () => {
    // Prepare: a 170-byte morphology took the renderer 26 s; a linked image would be left out.
    const svgOf = (inside: string, box = 'viewBox="0 0 160 40"') =>
      bytesOf(`<svg xmlns="http://www.w3.org/2000/svg" ${box}>${inside}</svg>`);
    const cases = {
      morphology: svgOf(
        '<filter id="m"><feMorphology radius="100000"/></filter><rect width="160" height="40" filter="url(#m)"/>',
      ),
      turbulence: svgOf(
        '<filter id="t"><feTurbulence numOctaves="1000000"/></filter><rect width="9" height="9" filter="url(#t)"/>',
      ),
      relative: svgOf('<image href="logo.png" width="10" height="10"/>'),
      file: svgOf('<image xlink:href="file:///etc/passwd" width="10" height="10"/>'),
      zeroSize: svgOf('<rect width="1" height="1"/>', 'width="1e9" height="1"'),
    };

    // Act
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(cases).map(async ([name, svg]) => [name, await drawSvgLogo(svg)] as const),
      ),
    );

    // Assess
    expect(results.morphology).toMatchObject({ ok: false, problem: expect.stringContaining('has filters') });
    expect(results.turbulence).toMatchObject({ ok: false, problem: expect.stringContaining('has filters') });
    expect(results.relative).toMatchObject({
      ok: false,
      problem: expect.stringContaining('image from logo.png'),
    });
    expect(results.file).toMatchObject({
      ok: false,
      problem: expect.stringContaining('image from file:///etc/passwd'),
    });
    expect(results.zeroSize).toMatchObject({ ok: false, problem: expect.stringContaining('does not fit') });
  });

  it('draws a busy logo less sharp to fit, and refuses one that never fits', async () => {
    // Prepare: hundreds of thin lines in many colours, which PNG compresses badly.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const at = (size: number) => (random() * size).toFixed(1);
    const noise = (height: number) => {
      const lines = Array.from(
        { length: 200 },
        () =>
          `<path d="M${at(40)} ${at(height)}L${at(40)} ${at(height)}" stroke="#${Math.floor(
            random() * 0xffffff,
          )
            .toString(16)
            .padStart(6, '0')}" stroke-width=".3"/>`,
      );
      return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 ${height}">${lines.join('')}</svg>`;
    };

    // Act
    const [square, wide] = await Promise.all([
      drawSvgLogo(bytesOf(noise(40))),
      drawSvgLogo(bytesOf(noise(10))),
    ]);

    // Assess
    if (!square.ok) throw new Error(square.problem);
    expect(square.png.length).toBeLessThanOrEqual(MAX_LOGO_BYTES);
    expect(pngSize(square.png)).toEqual({ width: LOGO_BOX.height * 2, height: LOGO_BOX.height * 2 });
    expect(wide).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^drawn as a PNG of 320×80 px, .* a logo takes at most 24,576/),
    });
  });

  it('refuses a drawing embedded in the logo that is not a picture, and keeps an embedded PNG', async () => {
    // Prepare: the security review's 451-byte logo, an SVG with a filter inside an SVG's image.
    const inner =
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40"><filter id="m"><feMorphology radius="100000"/></filter><rect width="160" height="40" filter="url(#m)"/></svg>';
    const outer = (href: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 40"><image href="${href}" width="160" height="40"/></svg>`;
    const png = await drawn(PLAIN_SVG_LOGO);
    const cases = {
      base64: outer(`data:image/svg+xml;base64,${Buffer.from(inner).toString('base64')}`),
      escaped: outer(`data:image/svg+xml,${encodeURIComponent(inner)}`),
      mislabelled: outer(`data:image/png;base64,${Buffer.from(inner).toString('base64')}`),
      png: outer(`data:image/png;base64,${Buffer.from(png).toString('base64')}`),
    };

    // Act
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(cases).map(async ([name, svg]) => [name, await drawSvgLogo(bytesOf(svg))] as const),
      ),
    );

    // Assess
    for (const name of ['base64', 'escaped', 'mislabelled'])
      expect(results[name], name).toMatchObject({
        ok: false,
        problem: expect.stringContaining('embeds an image that is not a PNG, JPEG, GIF or WebP'),
      });
    expect(results.png).toMatchObject({ ok: true });
  });

  it('stops a drawing that takes longer than it may, and says so', async () => {
    // A plain logo draws in well under a second; given a millisecond, its thread is ended.
    const result = await drawSvgLogo(bytesOf(PLAIN_SVG_LOGO), { timeoutMs: 1 });

    expect(result).toMatchObject({
      ok: false,
      problem: expect.stringContaining('took more than 0.001 s to draw'),
    });
  });
});

describe('a PNG or WebP logo, read whole before it is stored', () => {
  it('takes a whole PNG, and refuses one cut off anywhere or with a damaged byte', async () => {
    // Prepare
    const png = await drawn(PLAIN_SVG_LOGO);
    const damaged = png.slice();
    const middle = Math.floor(png.length / 2);
    damaged[middle] = (damaged[middle] ?? 0) ^ 0xff;

    // Act / Assess
    expect(rasterProblem(png, 'image/png')).toBeUndefined();
    for (const length of [33, 45, Math.floor(png.length / 2), png.length - 12, png.length - 1])
      expect(rasterProblem(png.subarray(0, length), 'image/png'), `cut at ${length}`).toContain(
        'cut off or damaged',
      );
    expect(rasterProblem(damaged, 'image/png')).toContain('cut off or damaged');
  });

  it('refuses a WebP whose header gives another length than the file has', () => {
    const webp = new Uint8Array(40);
    webp.set(new TextEncoder().encode('RIFF'), 0);
    webp.set(new TextEncoder().encode('WEBPVP8X'), 8);
    new DataView(webp.buffer).setUint32(4, 32, true);

    expect(rasterProblem(webp, 'image/webp')).toBeUndefined();
    expect(rasterProblem(webp.subarray(0, 30), 'image/webp')).toContain('cut off or damaged');
  });
});
