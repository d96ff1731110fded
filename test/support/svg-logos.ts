/**
 * SVG logos for the logo tests: a plain one, and the bypasses of the old deny-list that a
 * security review found (issue 26). Each bypass still draws the logo's rectangle, so what it
 * would run or fetch is all that sets it apart from a plain logo.
 */

const SVG_NS = 'xmlns="http://www.w3.org/2000/svg"';
const RECTANGLE = '<rect width="40" height="10" fill="#0b5394"/>';

/** Where a bypass would send the browser: any request to this host is a leak. */
export const OUTSIDE = 'https://outside.example';

/** What a bypass's script sets on the window of the document it runs in. */
export const SCRIPT_MARKER = '__logoScriptRan';

/** A plain 40 × 10 logo. */
export const PLAIN_SVG_LOGO = `<svg ${SVG_NS} viewBox="0 0 40 10">${RECTANGLE}</svg>`;

/**
 * The bypasses, each a whole SVG file. `readable: false` is not well-formed XML, so no SVG
 * reader takes it; the others are valid SVG that browsers open as documents.
 */
export const SVG_BYPASSES: readonly { name: string; svg: string; readable: boolean }[] = [
  {
    name: '<svg:script>',
    svg: `<svg ${SVG_NS} xmlns:svg="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><svg:script>window.${SCRIPT_MARKER} = 1</svg:script>${RECTANGLE}</svg>`,
    readable: true,
  },
  {
    name: 'XHTML <h:script>',
    svg: `<svg ${SVG_NS} xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 40 10"><h:script>window.${SCRIPT_MARKER} = 1</h:script>${RECTANGLE}</svg>`,
    readable: true,
  },
  {
    name: '<set attributeName="href"> outside',
    svg: `<svg ${SVG_NS} viewBox="0 0 40 10">${RECTANGLE}<image width="40" height="10"><set attributeName="href" to="${OUTSIDE}/set.png"/></image></svg>`,
    readable: true,
  },
  {
    name: '<animate attributeName="href"> outside',
    svg: `<svg ${SVG_NS} viewBox="0 0 40 10">${RECTANGLE}<image width="40" height="10"><animate attributeName="href" values="${OUTSIDE}/animate.png" dur="1s" fill="freeze"/></image></svg>`,
    readable: true,
  },
  {
    name: 'CSS-escaped url( in <style>',
    svg: `<svg ${SVG_NS} viewBox="0 0 40 10"><style>svg { background: \\75 rl(${OUTSIDE}/sheet.png) }</style>${RECTANGLE}</svg>`,
    readable: true,
  },
  {
    name: 'CSS-escaped url( in style="…"',
    svg: `<svg ${SVG_NS} viewBox="0 0 40 10" style="background-image: \\000075rl(${OUTSIDE}/attribute.png)">${RECTANGLE}</svg>`,
    readable: true,
  },
  {
    name: '<rect/onload=…>',
    svg: `<svg ${SVG_NS} viewBox="0 0 40 10"><rect/onload="window.${SCRIPT_MARKER} = 1" width="40" height="10" fill="#0b5394"/></svg>`,
    readable: false,
  },
];
