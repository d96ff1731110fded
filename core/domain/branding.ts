import { isOneLine } from './text';

/**
 * How a partner appears on its hosts' pages: a logo, an accent colour and a way back to its
 * website. Operators set it (`partners brand`); the rules below hold whatever is stored, so a page
 * never puts an unchecked value into its style sheet or a link (docs/design/host-pages.md).
 */
export interface PartnerBranding {
  /** `#rrggbb`; white text on it meets WCAG AA (4.5:1). */
  readonly accentColor?: string;
  /** An https address: error pages link back to it. */
  readonly website?: string;
  /** The logo's type and digest; its bytes are an item of their own (`lambdas/data/partner-logos.ts`). */
  readonly logo?: { readonly contentType: LogoType; readonly sha256: string };
}

/**
 * The types of a stored logo. `partners brand` stores PNG and WebP only (an SVG is drawn as a PNG);
 * an SVG stored before that is still read, and pages show it as an image, where it runs nothing.
 */
export const LOGO_TYPES = ['image/png', 'image/webp', 'image/svg+xml'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/**
 * The largest logo, as given and as stored: every page inlines it as a data: URL (a third more as
 * base64), so it stays a small part of a page of about 10 KB; a logo is shown at most 40 px high.
 */
export const MAX_LOGO_BYTES = 24 * 1024;

/** The box a logo is shown in on host pages, in CSS pixels: the pages' style sheet sizes it so. */
export const LOGO_BOX = { width: 160, height: 40 } as const;
const MAX_WEBSITE_LENGTH = 200;

/** WCAG 2.x AA for normal text. */
const MIN_CONTRAST = 4.5;
/** The colour of text on the accent (buttons, the current step). */
const TEXT_ON_ACCENT = '#ffffff';

const HEX_COLOUR = /^#[0-9a-f]{6}$/;

function relativeLuminance(hex: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The WCAG contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(first: string, second: string): number {
  const [light, dark] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/** An accent colour as stored (`#rrggbb`, lower case), or why it is refused. */
export function checkAccentColor(
  value: string,
): { ok: true; value: string } | { ok: false; problem: string } {
  const colour = value.trim().toLowerCase();
  if (!HEX_COLOUR.test(colour))
    return { ok: false, problem: `must be a colour as #RRGGBB (six hexadecimal digits); got "${value}".` };
  const ratio = contrastRatio(colour, TEXT_ON_ACCENT);
  if (ratio < MIN_CONTRAST)
    return {
      ok: false,
      problem: `${colour} is too light: white text on it has a contrast of ${ratio.toFixed(2)}:1, and WCAG AA needs at least ${MIN_CONTRAST}:1. Choose a darker shade.`,
    };
  return { ok: true, value: colour };
}

/** A partner website as stored (an https URL without credentials), or why it is refused. */
export function checkWebsite(value: string): { ok: true; value: string } | { ok: false; problem: string } {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: `must be an address such as https://www.example.com; got "${value}".` };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: `must start with https://; got "${value}".` };
  if (url.username || url.password)
    return { ok: false, problem: 'must not contain a user name or password.' };
  if (!isOneLine(text) || url.href.length > MAX_WEBSITE_LENGTH)
    return { ok: false, problem: `must be one line of at most ${MAX_WEBSITE_LENGTH} characters.` };
  return { ok: true, value: url.href };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The type of a logo file from its bytes (never its name), or why it is refused. An SVG is only
 * recognised here: it is never stored as it is, but drawn as a PNG first (`partners brand`), so
 * what pages serve can hold no script and load nothing (docs/design/host-pages.md).
 */
/** Largest width or height of a PNG or WebP logo, in pixels. */
const MAX_LOGO_PIXELS = 1_600;

const u24le = (bytes: Uint8Array, at: number) =>
  (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16);

/** A PNG's width and height from its IHDR chunk, which must come first. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 24 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** A WebP's canvas size from its first chunk: VP8X (extended), VP8L (lossless) or VP8 (lossy). */
function webpSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X') return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  if (chunk === 'VP8L' && bytes[20] === 0x2f) {
    const bits = u24le(bytes, 21) | ((bytes[24] ?? 0) << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a)
    return { width: u24le(bytes, 26) & 0x3fff, height: u24le(bytes, 28) & 0x3fff };
  return undefined;
}

export function checkLogo(
  bytes: Uint8Array,
): { ok: true; contentType: LogoType } | { ok: false; problem: string } {
  if (bytes.length === 0) return { ok: false, problem: 'the file is empty.' };
  if (bytes.length > MAX_LOGO_BYTES)
    return {
      ok: false,
      problem: `the file has ${bytes.length.toLocaleString('en-US')} bytes; a logo takes at most ${MAX_LOGO_BYTES.toLocaleString('en-US')}. Export it smaller (an SVG, or a PNG or WebP at most 96 px high).`,
    };
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  const raster = PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)
    ? { contentType: 'image/png' as const, size: pngSize(bytes) }
    : ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP'
      ? { contentType: 'image/webp' as const, size: webpSize(bytes) }
      : undefined;
  if (raster) {
    // A few kilobytes can decode to hundreds of megabytes in every host's browser.
    if (!raster.size) return { ok: false, problem: 'its image header cannot be read.' };
    if (raster.size.width > MAX_LOGO_PIXELS || raster.size.height > MAX_LOGO_PIXELS)
      return {
        ok: false,
        problem: `it is ${raster.size.width}×${raster.size.height} px; a logo takes at most ${MAX_LOGO_PIXELS}×${MAX_LOGO_PIXELS} (pages show it within ${LOGO_BOX.width}×${LOGO_BOX.height} CSS px, ${LOGO_BOX.width * 3}×${LOGO_BOX.height * 3} px on the sharpest screens).`,
      };
    return { ok: true, contentType: raster.contentType };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: 'it is not a PNG, WebP or SVG file.' };
  }
  // An SVG document: optional BOM, XML declaration, comments and doctype, then the <svg> root.
  const root = text
    .replace(/^\uFEFF/, '')
    .replace(/^\s*<\?xml[^>]*\?>/, '')
    .replace(/^(\s*<!--[\s\S]*?-->)*/, '')
    .replace(/^\s*<!DOCTYPE svg[^>[]*>/i, '')
    .replace(/^(\s*<!--[\s\S]*?-->)*/, '')
    .trimStart();
  if (!/^<svg[\s>]/.test(root) || !/<\/svg>\s*$/.test(root))
    return { ok: false, problem: 'it is not a PNG, WebP or SVG file.' };
  return { ok: true, contentType: 'image/svg+xml' };
}

/** The stored branding, each part only if it still passes its check. */
export function brandingOf(value: unknown): PartnerBranding | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  const accent = typeof stored.accentColor === 'string' ? checkAccentColor(stored.accentColor) : undefined;
  const website = typeof stored.website === 'string' ? checkWebsite(stored.website) : undefined;
  const logo = stored.logo as Record<string, unknown> | undefined;
  const branding: PartnerBranding = {
    ...(accent?.ok ? { accentColor: accent.value } : {}),
    ...(website?.ok ? { website: website.value } : {}),
    ...(typeof logo?.sha256 === 'string' && (LOGO_TYPES as readonly unknown[]).includes(logo.contentType)
      ? { logo: { contentType: logo.contentType as LogoType, sha256: logo.sha256 } }
      : {}),
  };
  return Object.keys(branding).length > 0 ? branding : undefined;
}
