import { readFile, writeFile } from 'node:fs/promises';
import { EVENT_EXAMPLES } from '../asyncapi/examples';
import { acceptedLine } from '../cli/commands/events';
import { LANGUAGES } from '../core/domain/languages';
import type { Scope } from '../core/domain/scopes';
import { BASE_SCOPES, SCOPE_SOURCE, SCOPES } from '../core/domain/scopes';
import { partnerApiRoutes } from '../core/routes';
import { FIREWALL_BODY_LIMIT_BYTES, firewallThrottledPage } from '../lambdas/pages/firewall-page';
import type { AnyWizardStep } from '../lambdas/pages/wizard-step';
import { textFieldsOf, WIZARD_STEPS } from '../lambdas/pages/wizard-steps';
import { stageSettings } from '../lib/stage-config';

/**
 * `npm run docs` rewrites the generated blocks of the Markdown docs from the code they describe;
 * `npm run docs -- --check` (`lint:docs`, run by `npm run check`) fails when one is stale. A block
 * sits between `<!-- name:start … -->` and `<!-- name:end -->` lines, indented like its start line
 * (a block inside a list item keeps the item's indent); the rest of the file is written by hand.
 */
interface GeneratedBlock {
  readonly file: string;
  readonly name: string;
  /** The block's Markdown, without its markers and indent. */
  readonly text: () => string;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The wizard's step table (docs/design/host-pages.md), from `WIZARD_STEPS` and `TEXT_FIELDS`. */
function wizardStepTable(): string {
  const code = (name: string) => `\`${name}\``;
  return [
    '| Step | Needed by | Why | Text fields (longest text) | Saved as |',
    '|---|---|---|---|---|',
    ...WIZARD_STEPS.map((step: AnyWizardStep) => {
      const neededBy = step.products ? step.products.map(code).join(', ') : '(no list)';
      const fields = [
        ...Object.entries(textFieldsOf(step)).map(
          ([field, max]) => `${code(field)} (${max.toLocaleString('en')})`,
        ),
        ...(step.rows ? [`${step.rows.max} rows at most`] : []),
      ];
      const saved = step.attribute ? code(step.attribute) : '–';
      return `| ${code(step.id)} | ${neededBy} | ${cell(step.purpose)} | ${fields.join(', ') || '–'} | ${saved} |`;
    }),
  ].join('\n');
}

/** The partner routes with their scope and summary (docs/partners.md), from `partnerApiRoutes`. */
function partnerRouteTable(): string {
  return [
    '| Route | Scope | Answers |',
    '|---|---|---|',
    ...partnerApiRoutes.map(
      (route) => `| \`${route.method} ${route.path}\` | \`${route.scope}\` | ${cell(route.summary)} |`,
    ),
  ].join('\n');
}

/** A sentence's first letter in lower case, as it reads after a colon (acronyms inside keep their case). */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The partner routes as the README's opening list names them, from `partnerApiRoutes`. */
function partnerRouteList(): string {
  return partnerApiRoutes
    .map((route) => `- \`${route.method} ${route.path}\`: ${lowerFirst(route.summary)}`)
    .join('\n');
}

/** `events publish` of the examples file and the line it answers (docs/operators.md), from `EVENT_EXAMPLES`. */
function publishExamples(): string {
  const examples = Object.values(EVENT_EXAMPLES);
  return [
    '```sh',
    'npm run admin -- events publish --file docs/examples/events.jsonl      # one event a line, as the platform sends it',
    `# ${acceptedLine(examples.length, examples)}`,
    '```',
  ].join('\n');
}

/** The routes that require `scope`, as the docs name them. */
const routesNeeding = (scope: Scope) =>
  partnerApiRoutes
    .filter((route) => route.scope === scope)
    .map((route) => `\`${route.method} ${route.path}\``);

/** Words joined as prose: `a`, `a and b`, `a, b and c`. */
const prose = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/** The scopes, who gets each and the routes that need it (docs/design/api-keys.md), from `SCOPES`. */
function scopeTable(): string {
  return [
    '| Scope | Given to | Needed by (route table, `core/routes.ts`) |',
    '|---|---|---|',
    ...SCOPES.map((scope) => {
      const given = BASE_SCOPES.includes(scope)
        ? 'every key: it is a base scope of every agreement (`BASE_SCOPES`)'
        : `keys of partners whose agreement grants it: ${SCOPE_SOURCE[scope]}`;
      return `| \`${scope}\` | ${cell(given)} | ${routesNeeding(scope).join(', ') || '(no route yet)'} |`;
    }),
  ].join('\n');
}

/** Where each scope comes from and what answers 403 without it (docs/partners.md), from `SCOPES`. */
function scopeSentences(): string {
  const code = (scope: Scope) => `\`${scope}\``;
  const others = SCOPES.filter((scope) => !BASE_SCOPES.includes(scope)).map((scope) => {
    const routes = routesNeeding(scope);
    const without =
      routes.length === 0
        ? 'no route needs it yet'
        : `without it ${prose(routes)} ${routes.length === 1 ? 'answers' : 'answer'} 403`;
    return `${code(scope)} comes with ${SCOPE_SOURCE[scope]}; ${without}.`;
  });
  return [`Every key has ${prose(BASE_SCOPES.map(code))}.`, ...others].join(' ');
}

/** The host languages by their English names (README, docs/design/host-pages.md), from `LANGUAGES`. */
function hostLanguages(): string {
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  const code = (language: string) => `\`${language}\``;
  return `${prose(LANGUAGES.map((language) => `${names.of(language)} (${code(language)})`))}.`;
}

/**
 * The web firewall's 429 page's size (docs/design/host-pages.md): the largest of the deployed
 * stages' bodies as `firewallThrottledPage` draws them, which the stack puts in the web ACL and
 * `test/browser/firewall-page.test.ts` holds to `FIREWALL_BODY_LIMIT_BYTES`.
 */
function firewallPageSize(): string {
  const bytes = Math.max(
    ...Object.values(stageSettings).map((settings) =>
      Buffer.byteLength(firewallThrottledPage(settings.firewall.pages.windowSeconds).body),
    ),
  );
  const kilobytes = (bytes / 1024).toFixed(1);
  return `The page is ${bytes.toLocaleString('en')} bytes (${kilobytes} KB), within the ${FIREWALL_BODY_LIMIT_BYTES / 1024} KB this project allows a web ACL's custom response body (\`test/browser/firewall-page.test.ts\`; the CloudFormation property itself takes 10,240 characters).`;
}

const BLOCKS: readonly GeneratedBlock[] = [
  { file: 'docs/design/host-pages.md', name: 'steps', text: wizardStepTable },
  { file: 'docs/design/host-pages.md', name: 'languages', text: hostLanguages },
  { file: 'docs/design/host-pages.md', name: 'firewall-page-size', text: firewallPageSize },
  { file: 'README.md', name: 'languages', text: hostLanguages },
  { file: 'docs/partners.md', name: 'routes', text: partnerRouteTable },
  { file: 'docs/partners.md', name: 'scopes', text: scopeSentences },
  { file: 'docs/design/api-keys.md', name: 'scopes', text: scopeTable },
  { file: 'README.md', name: 'routes', text: partnerRouteList },
  { file: 'docs/operators.md', name: 'publish-examples', text: publishExamples },
];

/** The file with the block written from its source, or why it cannot be. */
function rewrite(contents: string, block: GeneratedBlock): string | Error {
  const pattern = new RegExp(
    `^([ \\t]*)(<!-- ${block.name}:start[^\\n]*-->)\\n[\\s\\S]*?^[ \\t]*<!-- ${block.name}:end -->$`,
    'm',
  );
  const found = pattern.exec(contents);
  if (!found)
    return new Error(
      `${block.file} has no block "${block.name}" (<!-- ${block.name}:start --> … <!-- ${block.name}:end --> lines)`,
    );
  const [whole, indent = '', start] = found;
  const body = block
    .text()
    .split('\n')
    .map((line) => (line ? `${indent}${line}` : line));
  const written = [`${indent}${start}`, '', ...body, '', `${indent}<!-- ${block.name}:end -->`].join('\n');
  return contents.slice(0, found.index) + written + contents.slice(found.index + whole.length);
}

const check = process.argv.includes('--check');
const stale: string[] = [];
const files = new Map<string, string>();
for (const block of BLOCKS) {
  const before = files.get(block.file) ?? (await readFile(block.file, 'utf8'));
  const after = rewrite(before, block);
  if (after instanceof Error) {
    console.error(after.message);
    process.exit(1);
  }
  if (after !== before) stale.push(`${block.file} (${block.name})`);
  files.set(block.file, after);
}

if (check) {
  if (stale.length > 0) {
    console.error(
      `Out of date with the code they are generated from: ${stale.join(', ')}. Run npm run docs and commit.`,
    );
    process.exit(1);
  }
  console.log(`The generated blocks of ${[...files.keys()].join(', ')} are up to date.`);
} else {
  for (const [file, contents] of files) await writeFile(file, contents);
  console.log(
    stale.length > 0 ? `Wrote ${stale.join(', ')}.` : `${[...files.keys()].join(', ')}: already up to date.`,
  );
}
