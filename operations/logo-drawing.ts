import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { crc32, inflateSync } from 'node:zlib';
import { LOGO_BOX, MAX_LOGO_BYTES } from '../core/domain/branding';
import { quoted } from '../core/domain/text';
import type { DrawingOutcome } from './logo-drawing-worker';

/** The longest a drawing may take; a logo takes well under a second. */
const DRAWING_TIMEOUT_MS = 10_000;

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
  return imageAddresses(svg).find((address) => !/^(?:data:|#)/i.test(address));
}

/**
 * Whether an embedded (`data:`) image is a PNG, JPEG, GIF or WebP, from its bytes: anything else
 * (an SVG above all, whose filters the check above never saw, as resvg draws it as a document of
 * its own) is refused.
 */
function isEmbeddedRaster(address: string): boolean {
  const comma = address.indexOf(',');
  if (comma === -1) return false;
  const meta = address.slice(5, comma);
  const payload = address.slice(comma + 1);
  let bytes: Buffer;
  try {
    bytes = /;\s*base64\s*$/i.test(meta)
      ? Buffer.from(payload.replace(/\s+/g, ''), 'base64')
      : Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    return false;
  }
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  return (
    ascii(0, 8) === '\x89PNG\r\n\x1a\n' ||
    (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) ||
    ascii(0, 4) === 'GIF8' ||
    (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP')
  );
}

/** The `href`s of the drawing's images (and filters' images). */
function imageAddresses(svg: string): string[] {
  const images = /<(?:[A-Za-z_][\w.-]*:)?(?:image|feImage)\b[^>]*>/g;
  return [...svg.matchAll(images)].flatMap(([element]) =>
    [...element.matchAll(/\b(?:xlink:)?href\s*=\s*["']\s*([^"']*)["']/g)].map(([, address]) => address ?? ''),
  );
}

/**
 * The drawing, in a worker thread of its own (logo-drawing-worker.ts) that is ended after
 * `timeoutMs`: resvg cannot be stopped once it has started, so a drawing that takes longer ends
 * with its thread.
 */
async function drawInWorker(text: string, timeoutMs: number): Promise<DrawingOutcome | 'timed-out'> {
  const worker = new Worker(new URL('./logo-drawing-worker.ts', import.meta.url), {
    workerData: text,
    // The operator CLI runs its TypeScript through tsx; so does the drawing's thread.
    execArgv: ['--import', 'tsx'],
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void worker.terminate();
  }, timeoutMs);
  try {
    const [outcome] = (await Promise.race([once(worker, 'message'), once(worker, 'exit')])) as [unknown];
    if (typeof outcome === 'object' && outcome !== null) return outcome as DrawingOutcome;
    if (timedOut) return 'timed-out';
    throw new Error(`the drawing's thread ended without a drawing (exit code ${String(outcome)})`);
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

/**
 * An SVG logo drawn as a PNG that fits the pages' logo box (docs/design/host-pages.md): what is
 * stored and served is pixels, which hold no script and load nothing, whatever the SVG held.
 */
export async function drawSvgLogo(
  svg: Uint8Array,
  { timeoutMs = DRAWING_TIMEOUT_MS }: { readonly timeoutMs?: number } = {},
): Promise<{ ok: true; png: Uint8Array } | { ok: false; problem: string }> {
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
  if (imageAddresses(text).some((address) => /^data:/i.test(address) && !isEmbeddedRaster(address)))
    return {
      ok: false,
      problem:
        'the SVG embeds an image that is not a PNG, JPEG, GIF or WebP (another SVG drawing, say), which is not checked and can take the drawing minutes; embed the picture as a PNG, or give a PNG or WebP.',
    };
  const outcome = await drawInWorker(text, timeoutMs);
  if (outcome === 'timed-out')
    return {
      ok: false,
      problem: `the SVG took more than ${timeoutMs / 1000} s to draw (a logo takes well under one); simplify the drawing, or give a PNG or WebP.`,
    };
  switch (outcome.kind) {
    case 'drawn':
      return { ok: true, png: outcome.png };
    case 'unreadable':
      return { ok: false, problem: `the SVG cannot be read: ${outcome.message}.` };
    case 'undrawable':
      return { ok: false, problem: `the SVG cannot be drawn: ${outcome.message}.` };
    case 'invisible':
      return {
        ok: false,
        problem: `the SVG is ${outcome.width}×${outcome.height}, which does not fit a logo's ${LOGO_BOX.width}×${LOGO_BOX.height} box as a visible drawing; give it a sensible width and height (or viewBox).`,
      };
    case 'too-large':
      return {
        ok: false,
        problem: `drawn as a PNG of ${outcome.width}×${outcome.height} px, the SVG takes ${outcome.bytes.toLocaleString('en-US')} bytes; a logo takes at most ${MAX_LOGO_BYTES.toLocaleString('en-US')}. Simplify the drawing (fewer gradients and filters), or give a PNG or WebP.`,
      };
  }
}

/** Channels per pixel of each PNG colour type (greyscale, RGB, palette, grey + alpha, RGBA). */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** The seven passes of Adam7 interlacing: first column and row, column and row steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Bytes a PNG's image data inflates to: each row of each pass, with its filter byte. */
function pngDataBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (columns: number, count: number) =>
    columns === 0 || count === 0 ? 0 : count * (1 + Math.ceil((columns * bitsPerPixel) / 8));
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce(
    (sum, [column, row, columnStep, rowStep]) =>
      sum + rows(Math.ceil((width - column) / columnStep), Math.ceil((height - row) / rowStep)),
    0,
  );
}

/**
 * Why a PNG or WebP logo would not show whole, or undefined when it would: a PNG is read chunk by
 * chunk (each checksum), its image data inflated and measured against its header, and it must end
 * with IEND, so a file cut off or damaged anywhere is refused before it is stored; a WebP's RIFF
 * header must give the file's own length.
 */
export function rasterProblem(
  bytes: Uint8Array,
  contentType: 'image/png' | 'image/webp',
): string | undefined {
  const cut = 'the file is cut off or damaged (it would show broken on the pages); export it again.';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (contentType === 'image/webp')
    return bytes.length >= 12 && view.getUint32(4, true) + 8 === bytes.length ? undefined : cut;
  const data: Uint8Array[] = [];
  let header: { width: number; height: number; bitsPerPixel: number; interlaced: boolean } | undefined;
  for (let at = 8; ; ) {
    if (at + 12 > bytes.length) return cut;
    const length = view.getUint32(at);
    const end = at + 12 + length;
    if (end > bytes.length) return cut;
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length)) return cut;
    const content = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      const channels = PNG_CHANNELS[content[9] ?? -1];
      if (length !== 13 || channels === undefined) return cut;
      header = {
        width: view.getUint32(at + 8),
        height: view.getUint32(at + 12),
        bitsPerPixel: channels * (content[8] ?? 0),
        interlaced: content[12] === 1,
      };
    } else if (!header) return cut;
    if (type === 'IDAT') data.push(content);
    if (type === 'IEND') break;
    at = end;
  }
  if (!header || data.length === 0) return cut;
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(data));
  } catch {
    return cut;
  }
  return inflated.length === pngDataBytes(header.width, header.height, header.bitsPerPixel, header.interlaced)
    ? undefined
    : cut;
}
