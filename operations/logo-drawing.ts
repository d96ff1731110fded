import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { LOGO_BOX, MAX_LOGO_BYTES } from '../core/domain/branding';
import { quoted } from '../core/domain/text';

/**
 * Pixels per CSS pixel of the logo box a drawn logo gets, sharpest first: phones show 3, most
 * laptops 2. A drawing whose PNG is over `MAX_LOGO_BYTES` at one is drawn at the next.
 */
const PIXEL_DENSITIES = [3, 2] as const;

/**
 * Text is drawn here without fonts (the renderer has none), so it would vanish from the logo.
 * This only spares the operator a logo without its words; nothing the page serves depends on it.
 */
const TEXT_ELEMENT = /<(?:[A-Za-z_][\w.-]*:)?text[\s/>]/;

/**
 * Filters: a few bytes of them (a morphology radius of 100,000, a chain of blurs) take the
 * renderer minutes of CPU, with no way to bound it. A logo needs none; they are refused.
 */
const FILTER_ELEMENT = /<(?:[A-Za-z_][\w.-]*:)?(?:filter|fe[A-Z]\w*)[\s/>]/;

/**
 * What an `<image>` or `<feImage>` names, when it is not embedded (`data:`) or a part of the
 * drawing (`#id`): such an image would be left out of the drawing (nothing is read or fetched).
 */
function linkedImage(svg: string): string | undefined {
  const images = /<(?:[A-Za-z_][\w.-]*:)?(?:image|feImage)\b[^>]*>/g;
  for (const [element] of svg.matchAll(images)) {
    for (const [, address] of element.matchAll(/\b(?:xlink:)?href\s*=\s*["']\s*([^"']*)["']/g))
      if (address !== undefined && !/^(?:data:|#)/i.test(address)) return address;
  }
  return undefined;
}

let renderer: Promise<void> | undefined;

/**
 * resvg compiled to WebAssembly, loaded on first use and kept for the process. As WebAssembly it
 * has no file system and no network: an SVG can make it read nothing from the operator's machine
 * and fetch nothing (the native build reads the files an `<image>` names).
 */
function loadRenderer(): Promise<void> {
  renderer ??= readFile(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm')).then(
    (wasm) => initWasm(wasm),
  );
  return renderer;
}

const problemOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * An SVG logo drawn as a PNG that fits the pages' logo box (docs/design/host-pages.md): what is
 * stored and served is pixels, which hold no script and load nothing, whatever the SVG held.
 */
export async function drawSvgLogo(
  svg: Uint8Array,
): Promise<{ ok: true; png: Uint8Array } | { ok: false; problem: string }> {
  await loadRenderer();
  const text = new TextDecoder().decode(svg);
  if (TEXT_ELEMENT.test(text))
    return {
      ok: false,
      problem:
        'the SVG has text, which would be drawn without its font; convert the text to outlines (paths) and try again, or give a PNG or WebP.',
    };
  if (FILTER_ELEMENT.test(text))
    return {
      ok: false,
      problem:
        'the SVG has filters (shadows, blurs), which can take the drawing minutes; flatten them into the shapes, or give a PNG or WebP.',
    };
  const linked = linkedImage(text);
  if (linked !== undefined)
    return {
      ok: false,
      problem: `the SVG shows an image from ${quoted(linked, 80)}, which is never read or fetched; embed the image in the file, or give a PNG or WebP.`,
    };
  let size: { width: number; height: number };
  try {
    const parsed = new Resvg(text);
    size = { width: parsed.width, height: parsed.height };
    parsed.free();
  } catch (error) {
    return { ok: false, problem: `the SVG cannot be read: ${problemOf(error)}.` };
  }
  const fit = Math.min(LOGO_BOX.width / size.width, LOGO_BOX.height / size.height);
  if (!Number.isFinite(fit) || fit <= 0 || Math.min(size.width, size.height) * fit < 1)
    return {
      ok: false,
      problem: `the SVG is ${size.width}×${size.height}, which does not fit a logo's ${LOGO_BOX.width}×${LOGO_BOX.height} box as a visible drawing; give it a sensible width and height (or viewBox).`,
    };
  let leastSharp = { bytes: 0, width: 0, height: 0 };
  for (const density of PIXEL_DENSITIES) {
    let png: Uint8Array;
    try {
      const drawing = new Resvg(text, { fitTo: { mode: 'zoom', value: fit * density } });
      const image = drawing.render();
      png = image.asPng();
      leastSharp = { bytes: png.length, width: image.width, height: image.height };
      image.free();
      drawing.free();
    } catch (error) {
      return { ok: false, problem: `the SVG cannot be drawn: ${problemOf(error)}.` };
    }
    if (png.length <= MAX_LOGO_BYTES) return { ok: true, png };
  }
  return {
    ok: false,
    problem: `drawn as a PNG of ${leastSharp.width}×${leastSharp.height} px, the SVG takes ${leastSharp.bytes.toLocaleString('en-US')} bytes; a logo takes at most ${MAX_LOGO_BYTES.toLocaleString('en-US')}. Simplify the drawing (fewer gradients and filters), or give a PNG or WebP.`,
  };
}
