import type { MachineDescription } from './machine';

/** One budget of the issue, checked against a measured figure. */
export interface BudgetCheck {
  readonly name: string;
  readonly budget: string;
  readonly measured: string;
  readonly pass: boolean;
}

export interface Table {
  readonly caption?: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** What a section hands back: tables for people, data for machines. */
export interface SectionResult {
  readonly id: string;
  readonly title: string;
  /** How it was measured, in a few sentences. */
  readonly method: string;
  readonly tables: readonly Table[];
  readonly budgets: readonly BudgetCheck[];
  readonly notes: readonly string[];
  readonly data: unknown;
  readonly seconds?: number;
  readonly error?: string;
  /** Charts the bench drew from this section's figures, under bench/charts/ (bench/lib/charts.ts). */
  readonly charts?: readonly { readonly title: string; readonly file: string }[];
}

export interface BenchResults {
  readonly machine: MachineDescription;
  readonly totalSeconds: number;
  /** Load averages when the run ended. */
  readonly loadAverageAtEnd: readonly number[];
  readonly preparation: Record<string, number>;
  readonly sections: readonly SectionResult[];
}

function cell(value: string): string {
  return value.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** Numbers right, text left: a column is numeric when each of its cells starts like a number. */
function isNumericColumn(table: Table, index: number): boolean {
  return index > 0 && table.rows.every((row) => /^(?:[-−$≈~]?\d|n\/a|—)/.test((row[index] ?? '').trim()));
}

function renderTable(table: Table): string {
  const lines: string[] = [];
  if (table.caption) lines.push(`*${table.caption}*`, '');
  lines.push(`| ${table.columns.map(cell).join(' | ')} |`);
  lines.push(
    `|${table.columns.map((_, index) => (isNumericColumn(table, index) ? '---:' : '---')).join('|')}|`,
  );
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function passMark(pass: boolean): string {
  return pass ? '**PASS**' : '**FAIL**';
}

export function renderMarkdown(results: BenchResults): string {
  const { machine } = results;
  const allBudgets = results.sections.flatMap((section) =>
    section.budgets.map((budget) => ({ section: section.title, ...budget })),
  );
  const out: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (`bench/run.ts`); the summary figures and each budget’s PASS/FAIL are in `bench/results.json`, every raw figure in `.local/bench/results.full.json` (not committed).',
    'Each figure is the median over repeated runs with (min–max); timings that matter are also a ratio',
    'against a baseline measured in the same run, because absolute times drift on a shared machine.',
    '',
    '| Machine | |',
    '|---|---|',
    `| OS | ${machine.os} (${machine.kernel}) |`,
    `| CPU | ${machine.cpuModel}, ${machine.cores} cores |`,
    `| Memory | ${machine.memoryGiB} GiB |`,
    `| Node.js | ${machine.node} |`,
    `| Java (DynamoDB Local) | ${machine.java} |`,
    `| Date | ${machine.date} |`,
    `| Load average (1/5/15 min) at start, at end | ${machine.loadAverage.join(' / ')}, ${results.loadAverageAtEnd.join(' / ')} |`,
    `| Total run time | ${results.totalSeconds.toFixed(0)} s (preparation: ${
      Object.entries(results.preparation)
        .map(([name, seconds]) => `${name} ${seconds.toFixed(0)} s`)
        .join(', ') || 'none'
    }) |`,
    '',
    '## Budgets',
    '',
    '| Section | Budget | Measured | Result |',
    '|---|---|---|---|',
    ...allBudgets.map(
      (budget) =>
        `| ${cell(budget.section)} | ${cell(`${budget.name}: ${budget.budget}`)} | ${cell(budget.measured)} | ${passMark(budget.pass)} |`,
    ),
    ...results.sections
      .filter((section) => section.error)
      .map((section) => `| ${cell(section.title)} | section ran | ${cell(section.error ?? '')} | **FAIL** |`),
  ];
  for (const section of results.sections) {
    out.push('', `## ${section.title}`, '', section.method);
    if (section.seconds !== undefined) out.push('', `Section time: ${section.seconds.toFixed(0)} s.`);
    if (section.error) out.push('', `**The section failed:** ${section.error}`);
    for (const chart of section.charts ?? []) out.push('', `![${chart.title}](charts/${chart.file})`);
    for (const table of section.tables) out.push('', renderTable(table));
    if (section.budgets.length > 0) {
      out.push('');
      for (const budget of section.budgets)
        out.push(`- ${passMark(budget.pass)} ${budget.name} (${budget.budget}): ${budget.measured}`);
    }
    if (section.notes.length > 0) {
      out.push('');
      for (const note of section.notes) out.push(`- ${note}`);
    }
  }
  return `${out.join('\n')}\n`;
}
