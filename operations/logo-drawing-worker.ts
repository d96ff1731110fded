import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { LOGO_BOX, MAX_LOGO_BYTES } from '../core/domain/branding';

/*
 * Draws one SVG logo in a worker thread of its own (`drawSvgLogo` in logo-drawing.ts), so that a
 * drawing that takes too long is stopped by ending the thread: resvg runs to the end once started.
 * resvg is compiled to WebAssembly: it has no file system and no network, so an SVG can make it
 * read nothing from the operator's machine and fetch nothing (the native build reads the files an
 * `<image>` names).
 */

/** What the drawing came to; logo-drawing.ts words it for the operator. */
export type DrawingOutcome =
  | { readonly kind: 'drawn'; readonly png: Uint8Array }
  | { readonly kind: 'unreadable'; readonly message: string }
  | { readonly kind: 'undrawable'; readonly message: string }
  | { readonly kind: 'invisible'; readonly width: number; readonly height: number }
  | { readonly kind: 'too-large'; readonly bytes: number; readonly width: number; readonly height: number };

/**
 * Pixels per CSS pixel of the logo box a drawn logo gets, sharpest first: phones show 3, most
 * laptops 2. A drawing whose PNG is over `MAX_LOGO_BYTES` at one is drawn at the next.
 */
const PIXEL_DENSITIES = [3, 2] as const;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function draw(text: string): DrawingOutcome {
  let size: { width: number; height: number };
  try {
    const parsed = new Resvg(text);
    size = { width: parsed.width, height: parsed.height };
    parsed.free();
  } catch (error) {
    return { kind: 'unreadable', message: messageOf(error) };
  }
  const fit = Math.min(LOGO_BOX.width / size.width, LOGO_BOX.height / size.height);
  if (!Number.isFinite(fit) || fit <= 0 || Math.min(size.width, size.height) * fit < 1)
    return { kind: 'invisible', ...size };
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
      return { kind: 'undrawable', message: messageOf(error) };
    }
    if (png.length <= MAX_LOGO_BYTES) return { kind: 'drawn', png };
  }
  return { kind: 'too-large', ...leastSharp };
}

await initWasm(await readFile(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm')));
parentPort?.postMessage(draw(String(workerData)));
