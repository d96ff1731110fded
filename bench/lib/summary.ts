import type { MachineDescription } from './machine';
import type { BenchResults, SectionResult, Table } from './report';

/**
 * bench/results.json: the figures a reader compares between runs, small and stable enough to
 * diff. Derived from the tables of results.md alone (so an older results file converts too):
 * per section, a few columns of each table as numbers (medians, without their min–max), and
 * each budget's PASS/FAIL. Measured figures keep 2 significant digits, which is about what
 * survives from one run to the next on a shared machine; deterministic ones (counts, capacity
 * units, prices, sizes) are kept as shown. Keys come in a fixed order: sections in run order,
 * rows in table order, figures in the order below. Everything else (ranges, raw runs, machine
 * load, timings of the run itself) is in results.md and .local/bench/results.full.json.
 */

/**
 * - `measured`: the median a cell starts with, to 2 significant digits;
 * - `exact`: the number a cell starts with, as shown (`$0.063` → 0.063);
 * - `kib`: a size (`208 B`, `360.4 KiB`, `2.70 MiB`) in KiB, to one decimal;
 * - `label`: the cell's text up to its first colon (`not-acceptable: This response…`);
 * - `text`: the cell as shown.
 * `—`, `n/a` and empty cells are null.
 */
type FigureKind = 'measured' | 'exact' | 'kib' | 'label' | 'text';
type Figure = number | string | null;

interface TableSummary {
  /** The group's name in the section. */
  readonly name: string;
  /** The table's position in the section. */
  readonly table: number;
  /** The row's name, from its cells. */
  readonly row: (cell: (column: string) => string) => string;
  /** Figure name → the column it is read from, and how. */
  readonly figures: Readonly<Record<string, readonly [column: string, kind: FigureKind]>>;
}

const byColumn =
  (column: string) =>
  (cell: (column: string) => string): string =>
    cell(column);

const limiterRuns = (name: string, table: number): TableSummary => ({
  name,
  table,
  row: (cell) => `${cell('Instances')} ${cell('Instances') === '1' ? 'instance' : 'instances'}`,
  figures: {
    admittedPerBurst: ['admitted per burst (100 / 200 requests)', 'text'],
    refused: ['refused', 'exact'],
    errors: ['errors', 'exact'],
    p50Ms: ['p50 ms', 'measured'],
    p99Ms: ['p99 ms (median of the rounds’ p99)', 'measured'],
    p99VsOneInstance: ['p99 ÷ 1-instance p99', 'measured'],
    writeUnitsPerAdmission: ['write units per admission', 'exact'],
    failedWritesPerAdmission: ['failed conditional writes per admission', 'measured'],
    allWriteUnitsPerAdmission: ['all write units per admission (failed ones billed too)', 'measured'],
  },
});

const SUMMARIES: Readonly<Record<string, readonly TableSummary[]>> = {
  throughput: [
    {
      name: 'load',
      table: 0,
      row: byColumn('Endpoint'),
      figures: {
        requestsPerSecond: ['req/s', 'measured'],
        p50Ms: ['p50 ms', 'measured'],
        p99Ms: ['p99 ms', 'measured'],
        vsBareServer: ['req/s ratio (server ÷ bare)', 'measured'],
      },
    },
    {
      name: 'cpuMsPerRequest',
      table: 1,
      row: byColumn('Endpoint'),
      figures: {
        localServer: ['local server CPU per request', 'measured'],
        dynamoDbLocal: ['DynamoDB Local CPU per request', 'measured'],
      },
    },
  ],
  bundles: [
    {
      name: 'bundles',
      table: 0,
      row: byColumn('Bundle'),
      figures: {
        sizeKiB: ['index.mjs', 'kib'],
        loadMs: ['load, source maps on', 'measured'],
        loadMsWithoutSourceMaps: ['load, source maps off', 'measured'],
        addedToBareDocumentClientMs: ['Δ vs bare DocumentClient (maps on)', 'measured'],
        schemaCompilationsAtLoad: ['Function() at import', 'exact'],
      },
    },
    {
      name: 'budget',
      table: 1,
      row: byColumn('Bundle'),
      figures: {
        addedMainThreadCpuMs: ['Δ main-thread CPU (judged)', 'measured'],
        modelledInitMs: ['modelled INIT ms', 'measured'],
      },
    },
  ],
  'warm-handlers': [
    {
      name: 'handlers',
      table: 0,
      row: byColumn('Handler'),
      figures: {
        p50Ms: ['p50', 'measured'],
        p99Ms: ['p99', 'measured'],
        vsBaseline: ['× baseline (p50)', 'measured'],
      },
    },
  ],
  'dynamo-cost': [
    {
      name: 'perCall',
      table: 0,
      row: byColumn('Call'),
      figures: {
        result: ['result', 'text'],
        requests: ['requests', 'exact'],
        itemsRead: ['items read', 'exact'],
        readUnits: ['read units', 'exact'],
        writeUnits: ['write units', 'exact'],
        dollarsPerMillion: ['$ per million calls', 'exact'],
      },
    },
    {
      name: 'dollarsPerMillionRequests',
      table: 1,
      row: byColumn('Request'),
      figures: { keyCached: ['key cached', 'exact'], keyNotCached: ['key not cached', 'exact'] },
    },
    {
      name: 'itemSizes',
      table: 2,
      row: byColumn('Item'),
      figures: { bytes: ['size', 'exact'], readUnitsPerGetItem: ['read units per GetItem', 'exact'] },
    },
  ],
  scaling: [
    {
      name: 'pricingSignals',
      table: 0,
      row: (cell) => `${cell('reservations')} reservations, lookback ${cell('lookback_days')}`,
      figures: {
        requests: ['requests', 'exact'],
        itemsRead: ['items read', 'exact'],
        readUnits: ['read units', 'exact'],
        latencyMs: ['latency ms', 'measured'],
        vsSmallProperty: ['latency ratio', 'measured'],
      },
    },
    {
      name: 'properties',
      table: 1,
      row: (cell) => `${cell('properties')} properties, ${cell('client sends')}`,
      figures: {
        status: ['status', 'exact'],
        encoding: ['encoding', 'text'],
        payloadKiB: ['Lambda payload (% of 6 MB)', 'kib'],
        readUnits: ['read units', 'exact'],
        inProcessMs: ['in-process ms', 'measured'],
        httpMs: ['HTTP ms', 'measured'],
      },
    },
    {
      name: 'propertiesMocked',
      table: 2,
      row: (cell) => `${cell('properties')} properties, ${cell('client sends')}`,
      figures: {
        status: ['status', 'exact'],
        outcome: ['encoding / problem', 'label'],
        payloadKiB: ['Lambda payload', 'kib'],
        handlerMs: ['handler ms', 'measured'],
      },
    },
  ],
  activation: [
    {
      name: 'provisioning',
      table: 0,
      row: byColumn('Scenario'),
      figures: {
        p50Ms: ['p50', 'measured'],
        p99Ms: ['p99 (the slowest)', 'measured'],
        failures: ['failures', 'exact'],
        activationsPerSecond: ['activations/s', 'measured'],
        p50VsOneHost: ['p50 ÷ 1-host p50', 'measured'],
      },
    },
  ],
  limiter: [
    limiterRuns('paced', 0),
    limiterRuns('backToBack', 1),
    limiterRuns('backToBackKeyPerInstance', 2),
  ],
  cost: [
    {
      name: 'productionDollarsPerMillionCalls',
      table: 0,
      row: byColumn('Component'),
      figures: {
        usage: ['GET /usage', 'exact'],
        properties: ['GET /properties', 'exact'],
        pricingSignals: ['GET /properties/{id}/pricing-signals', 'exact'],
        equalMix: ['equal mix', 'exact'],
      },
    },
    {
      name: 'stages',
      table: 2,
      row: byColumn('Stage'),
      figures: {
        dollarsPerMillionCalls: ['$ per million calls', 'exact'],
        fixedDollarsPerMonth: ['fixed $ per month', 'exact'],
      },
    },
  ],
  pagination: [
    {
      name: 'pages',
      table: 0,
      row: (cell) => `${cell('properties')} ${cell('page')}`,
      figures: {
        p50Ms: ['p50 ms', 'measured'],
        ratioToSmallList: ['ratio to the page at 1,000 (paired)', 'measured'],
        itemsRead: ['items read', 'exact'],
        requests: ['DynamoDB requests', 'exact'],
      },
    },
  ],
};

type Row = Readonly<Record<string, Figure>>;

interface SectionSummary {
  readonly [group: string]: Readonly<Record<string, Row>> | Readonly<Record<string, string>> | string;
}

export interface BenchSummary {
  readonly machine: Omit<MachineDescription, 'loadAverage'>;
  readonly budgets: { readonly pass: number; readonly fail: number };
  readonly sections: Readonly<Record<string, SectionSummary>>;
}

/** What the summary reads: a run's results, with or without the raw `data` of its sections. */
export type SummarySource = Pick<BenchResults, 'machine'> & {
  readonly sections: readonly Omit<SectionResult, 'data'>[];
};

const EMPTY = /^(?:—|n\/a|)$/;

function leadingNumber(text: string): number | null {
  const match = /^[-−]?\$?[\d,]*\.?\d+/.exec(text);
  return match ? Number(match[0].replace('−', '-').replace('$', '').replaceAll(',', '')) : null;
}

const KIB_PER_UNIT: Readonly<Record<string, number>> = { B: 1 / 1024, KiB: 1, MiB: 1024, GiB: 1024 * 1024 };

function figure(text: string, kind: FigureKind, where: string): Figure {
  const cell = text.trim();
  if (EMPTY.test(cell)) return null;
  if (kind === 'text') return cell;
  if (kind === 'label') return cell.split(':')[0] ?? cell;
  if (kind === 'kib') {
    const size = /^([\d,.]+)(?:\s*\([^)]*\))?\s*(B|KiB|MiB|GiB)\b/.exec(cell);
    const unit = KIB_PER_UNIT[size?.[2] ?? ''];
    if (!size?.[1] || unit === undefined) throw new Error(`${where}: "${cell}" is not a size`);
    return Math.round(Number(size[1].replaceAll(',', '')) * unit * 10) / 10;
  }
  const value = leadingNumber(cell);
  if (value === null) throw new Error(`${where}: "${cell}" does not start with a number`);
  return kind === 'measured' ? Number(value.toPrecision(2)) : value;
}

function summarizeTable(section: string, table: Table | undefined, spec: TableSummary) {
  const where = `${section}, table ${spec.table} (${spec.name})`;
  if (!table) throw new Error(`${where}: no such table`);
  const indexOf = (column: string) => {
    const index = table.columns.indexOf(column);
    if (index < 0) throw new Error(`${where}: no column "${column}" (bench/lib/summary.ts names it)`);
    return index;
  };
  const rows = table.rows.map((cells): [string, Row] => {
    const cell = (column: string) => cells[indexOf(column)] ?? '';
    const name = spec.row(cell);
    const figures = Object.entries(spec.figures).map(([figureName, [column, kind]]) => [
      figureName,
      figure(cell(column), kind, `${where}, ${name}, ${column}`),
    ]);
    return [name, Object.fromEntries(figures)];
  });
  const names = rows.map(([name]) => name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new Error(`${where}: two rows named "${repeated}"`);
  return Object.fromEntries(rows);
}

/** The summary of a run; throws when a table no longer has a column this file reads. */
export function summarize(results: SummarySource): BenchSummary {
  const { loadAverage: _loadAverage, ...machine } = results.machine;
  const budgets = results.sections.flatMap((section) => section.budgets);
  const failedSections = results.sections.filter((section) => section.error).length;
  const sections = results.sections.map((section): [string, SectionSummary] => {
    if (section.error) return [section.id, { error: section.error }];
    const groups = (SUMMARIES[section.id] ?? []).map((spec) => [
      spec.name,
      summarizeTable(section.id, section.tables[spec.table], spec),
    ]);
    const verdicts = section.budgets.map((budget) => [budget.name, budget.pass ? 'PASS' : 'FAIL']);
    return [section.id, Object.fromEntries([...groups, ['budgets', Object.fromEntries(verdicts)]])];
  });
  return {
    machine,
    budgets: {
      pass: budgets.filter((budget) => budget.pass).length,
      fail: budgets.filter((budget) => !budget.pass).length + failedSections,
    },
    sections: Object.fromEntries(sections),
  };
}

/** JSON with one line per row of figures (and per budget), so a run's diff is one line per change. */
export function renderSummary(summary: BenchSummary): string {
  const inline = (value: unknown): string =>
    value !== null && typeof value === 'object'
      ? `{ ${Object.entries(value)
          .map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`)
          .join(', ')} }`
      : JSON.stringify(value);
  const render = (value: unknown, depth: number): string => {
    if (value === null || typeof value !== 'object' || depth >= 4) return inline(value);
    const indent = '  '.repeat(depth + 1);
    const entries = Object.entries(value).map(
      ([key, item]) => `${indent}${JSON.stringify(key)}: ${render(item, depth + 1)}`,
    );
    return entries.length === 0 ? '{}' : `{\n${entries.join(',\n')}\n${'  '.repeat(depth)}}`;
  };
  return `${render(summary, 0)}\n`;
}
