/**
 * Plain SVG charts the bench draws from its own figures (no dependency): the limiter's latency and
 * write units against instances, the cold start each bundle adds, and what a call costs by
 * component. `renderCharts` turns a run's sections into files under bench/charts/ and tells each
 * section which charts are its own; a section that did not run leaves its chart as it was.
 *
 * Readability: a title and a subtitle saying what was measured, labelled axes with units, a legend,
 * text at 12–15 px, the Okabe–Ito palette (distinguishable with the common colour-vision
 * deficiencies) and markers as well as colours on lines, on a white background.
 */
import type { SectionResult } from './report';

export interface Chart {
  /** File name under bench/charts/. */
  readonly file: string;
  readonly title: string;
  readonly svg: string;
}

const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#8C6D1F', '#000000'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;
const FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'";
const INK = '#1a1a1a';
const GRID = '#d9d9d9';

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function label(
  x: number,
  y: number,
  text: string,
  options: { size?: number; anchor?: string; weight?: string; fill?: string; rotate?: boolean } = {},
): string {
  const transform = options.rotate ? ` transform='rotate(-90 ${x} ${y})'` : '';
  return `<text x='${x.toFixed(1)}' y='${y.toFixed(1)}' ${FONT} font-size='${options.size ?? 12}' text-anchor='${options.anchor ?? 'start'}' font-weight='${options.weight ?? 'normal'}' fill='${options.fill ?? INK}'${transform}>${escapeXml(text)}</text>`;
}

function frame(width: number, height: number, title: string, subtitle: string, body: string): string {
  return [
    `<svg xmlns='http://www.w3.org/2000/svg' width='${width}' height='${height}' viewBox='0 0 ${width} ${height}' role='img' aria-label='${escapeXml(title)}'>`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width='${width}' height='${height}' fill='#ffffff'/>`,
    label(20, 30, title, { size: 17, weight: 'bold' }),
    label(20, 50, subtitle, { size: 12, fill: '#444444' }),
    body,
    '</svg>',
    '',
  ].join('\n');
}

/** Round numbers for an axis from 0 to at least `max`. */
function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step =
    [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
  const values: number[] = [];
  for (let value = 0; value <= max + step * 0.999; value += step) values.push(Number(value.toPrecision(6)));
  return values;
}

/** One decimal, a true minus sign, and no "-0.0". */
const signed = (value: number) => {
  const text = Math.abs(value).toFixed(1);
  return value < 0 && text !== '0.0' ? `−${text}` : text;
};

const tickText = (value: number) =>
  Math.abs(value) >= 1000 ? value.toLocaleString('en-US') : String(Number(value.toPrecision(4)));

function marker(kind: (typeof MARKERS)[number], x: number, y: number, color: string): string {
  const size = 4.5;
  if (kind === 'square')
    return `<rect x='${x - size}' y='${y - size}' width='${size * 2}' height='${size * 2}' fill='${color}'/>`;
  if (kind === 'triangle')
    return `<polygon points='${x},${y - size - 1} ${x - size - 1},${y + size} ${x + size + 1},${y + size}' fill='${color}'/>`;
  if (kind === 'diamond')
    return `<polygon points='${x},${y - size - 1} ${x + size + 1},${y} ${x},${y + size + 1} ${x - size - 1},${y}' fill='${color}'/>`;
  return `<circle cx='${x}' cy='${y}' r='${size}' fill='${color}'/>`;
}

interface Series {
  readonly name: string;
  readonly values: readonly (number | undefined)[];
}

/** One panel of lines over categories (x evenly spaced), at (left, top) of the given size. */
function linePanel(input: {
  left: number;
  top: number;
  width: number;
  height: number;
  heading: string;
  categories: readonly string[];
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  reference?: { value: number; text: string };
}): string {
  const { left, top, width, height } = input;
  const plotLeft = left + 58;
  const plotTop = top + 28;
  const plotWidth = width - 70;
  const plotHeight = height - 80;
  const max = Math.max(
    ...input.series.flatMap((series) =>
      series.values.filter((value): value is number => value !== undefined),
    ),
    input.reference?.value ?? 0,
  );
  const axis = ticks(max * 1.05);
  const top_ = axis.at(-1) ?? 1;
  const xAt = (index: number) =>
    plotLeft +
    (input.categories.length === 1 ? plotWidth / 2 : (index / (input.categories.length - 1)) * plotWidth);
  const yAt = (value: number) => plotTop + plotHeight - (value / top_) * plotHeight;
  const out: string[] = [label(left + 4, top + 14, input.heading, { size: 14, weight: 'bold' })];
  for (const value of axis) {
    out.push(
      `<line x1='${plotLeft}' x2='${plotLeft + plotWidth}' y1='${yAt(value)}' y2='${yAt(value)}' stroke='${GRID}'/>`,
      label(plotLeft - 8, yAt(value) + 4, tickText(value), { anchor: 'end' }),
    );
  }
  input.categories.forEach((category, index) => {
    out.push(label(xAt(index), plotTop + plotHeight + 18, category, { anchor: 'middle' }));
  });
  out.push(
    `<line x1='${plotLeft}' x2='${plotLeft + plotWidth}' y1='${plotTop + plotHeight}' y2='${plotTop + plotHeight}' stroke='${INK}'/>`,
    `<line x1='${plotLeft}' x2='${plotLeft}' y1='${plotTop}' y2='${plotTop + plotHeight}' stroke='${INK}'/>`,
    label(plotLeft + plotWidth / 2, plotTop + plotHeight + 38, input.xLabel, { anchor: 'middle', size: 13 }),
    label(left + 14, plotTop + plotHeight / 2, input.yLabel, { anchor: 'middle', size: 13, rotate: true }),
  );
  if (input.reference) {
    const y = yAt(input.reference.value);
    out.push(
      `<line x1='${plotLeft}' x2='${plotLeft + plotWidth}' y1='${y}' y2='${y}' stroke='${INK}' stroke-dasharray='6 4' stroke-width='1.5'/>`,
      // Under the line, at the left: the series run at or above a reference such as one write per admission.
      label(plotLeft + 6, y + 16, input.reference.text, { anchor: 'start', size: 12 }),
    );
  }
  input.series.forEach((series, index) => {
    const color = PALETTE[index % PALETTE.length] ?? INK;
    const points = series.values.flatMap((value, at) =>
      value === undefined ? [] : [[xAt(at), yAt(value)] as const],
    );
    out.push(
      `<polyline fill='none' stroke='${color}' stroke-width='2.5' points='${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}'/>`,
      ...points.map(([x, y]) => marker(MARKERS[index % MARKERS.length] ?? 'circle', x, y, color)),
    );
  });
  return out.join('\n');
}

function legend(
  left: number,
  top: number,
  names: readonly string[],
  markers = true,
  columns = 1,
  columnWidth = 300,
): string {
  return names
    .map((name, index) => {
      const x = left + (index % columns) * columnWidth;
      const y = top + Math.floor(index / columns) * 20;
      const color = PALETTE[index % PALETTE.length] ?? INK;
      const swatch = markers
        ? `<line x1='${x}' x2='${x + 24}' y1='${y - 4}' y2='${y - 4}' stroke='${color}' stroke-width='2.5'/>${marker(MARKERS[index % MARKERS.length] ?? 'circle', x + 12, y - 4, color)}`
        : `<rect x='${x}' y='${y - 12}' width='16' height='12' fill='${color}'/>`;
      return `${swatch}${label(x + (markers ? 32 : 22), y, name)}`;
    })
    .join('\n');
}

interface LimiterRow {
  readonly instances: number;
  readonly p99Ms: number;
  readonly admitted: number;
  readonly writes: { readonly admittedUnits: number; readonly failedUnits: number };
}

/** (a) The limiter: p99 and billed write units per admission against instances, per arrival shape. */
export function limiterChart(section: SectionResult): Chart | undefined {
  const modes = (section.data as { modes?: { mode: string; rows: LimiterRow[] }[] } | null)?.modes;
  if (!Array.isArray(modes) || modes.length === 0) return undefined;
  const names: Record<string, string> = {
    paced: 'paced (100 requests/s in all)',
    'back-to-back': 'back to back, one key',
    uncontended: 'baseline: back to back, a key per instance',
  };
  const instances = [...new Set(modes.flatMap((mode) => mode.rows.map((row) => row.instances)))].sort(
    (a, b) => a - b,
  );
  const series = (pick: (row: LimiterRow) => number) =>
    modes.map((mode) => ({
      name: names[mode.mode] ?? mode.mode,
      values: instances.map((count) => {
        const row = mode.rows.find((item) => item.instances === count);
        return row ? pick(row) : undefined;
      }),
    }));
  const width = 980;
  const panelWidth = 450;
  const body = [
    linePanel({
      left: 20,
      top: 70,
      width: panelWidth,
      height: 330,
      heading: 'p99 latency of one limiter call',
      categories: instances.map(String),
      xLabel: 'independent instances (processes)',
      yLabel: 'p99, ms (median of the rounds)',
      series: series((row) => row.p99Ms),
    }),
    linePanel({
      left: 20 + panelWidth + 40,
      top: 70,
      width: panelWidth,
      height: 330,
      heading: 'write units billed per admission',
      categories: instances.map(String),
      xLabel: 'independent instances (processes)',
      yLabel: 'write units (failed conditional writes too)',
      series: series((row) => (row.writes.admittedUnits + row.writes.failedUnits) / row.admitted),
      reference: { value: 1, text: 'one write per admission' },
    }),
    legend(
      60,
      425,
      modes.map((mode) => names[mode.mode] ?? mode.mode),
      true,
      3,
      290,
    ),
  ].join('\n');
  return {
    file: 'limiter.svg',
    title: 'The exact rate limiter under contention',
    svg: frame(
      width,
      450,
      'The exact rate limiter under contention',
      'Bursts of 100 and 200 requests on fresh keys, DynamoDB Local on 2 cores (bench section 7)',
      body,
    ),
  };
}

interface BundleRow {
  readonly name: string;
  readonly kind: string;
  /** The budget's figure: median paired delta of the main thread's CPU time of the import. */
  readonly addedMs: number;
  readonly threadCpuDeltaConfidenceInterval?: readonly [number, number];
}

/**
 * (b) The cold start each bundle adds to a bare DocumentClient handler, with its 95 % interval and
 * the budget. The axis starts at minus the budget: a bundle far below (one without the AWS SDK, such
 * as the OpenAPI document's) is drawn to the edge with an arrow, its value in the right-hand column.
 */
export function coldStartChart(section: SectionResult): Chart | undefined {
  const data = section.data as { bundles?: BundleRow[]; budgetMs?: number } | null;
  const rows = (data?.bundles ?? []).filter((row) => row.kind === 'function');
  if (rows.length === 0) return undefined;
  const short = (name: string) => {
    const route = name.replace(/: .*$/, '').replace('/partner-api/v1', '');
    return route.length > 44 ? `${route.replace(/ \(.*$/, '').slice(0, 43)}…` : route;
  };
  const medianOf = (row: BundleRow) => row.addedMs;
  const intervalOf = (row: BundleRow): readonly [number, number] =>
    row.threadCpuDeltaConfidenceInterval ?? [medianOf(row), medianOf(row)];
  const budget = data?.budgetMs;
  const max = Math.max(...rows.map((row) => intervalOf(row)[1]), budget ?? 0) * 1.05;
  const positive = ticks(max);
  const step = (positive[1] ?? 1) - (positive[0] ?? 0);
  const floor = -Math.max(step, budget ?? step);
  const lowest = Math.max(floor, Math.min(0, ...rows.map((row) => intervalOf(row)[0])));
  const negative: number[] = [];
  for (let value = -step; value >= lowest - step * 0.999; value -= step)
    negative.unshift(Number(value.toPrecision(6)));
  const axis = [...negative, ...positive];
  const low = axis[0] ?? 0;
  const high = axis.at(-1) ?? 1;
  const clip = (value: number) => Math.min(high, Math.max(low, value));
  const labelWidth = 320;
  const plotLeft = 20 + labelWidth;
  const plotWidth = 480;
  const valueColumn = plotLeft + plotWidth + 16;
  const rowHeight = 30;
  const plotTop = 84;
  const plotHeight = rows.length * rowHeight;
  const xAt = (value: number) => plotLeft + ((clip(value) - low) / (high - low)) * plotWidth;
  const out: string[] = [
    label(valueColumn, plotTop - 10, 'median (95 % interval)', { size: 12, weight: 'bold' }),
  ];
  for (const value of axis)
    out.push(
      `<line x1='${xAt(value)}' x2='${xAt(value)}' y1='${plotTop}' y2='${plotTop + plotHeight}' stroke='${value === 0 ? INK : GRID}'/>`,
      label(xAt(value), plotTop + plotHeight + 18, tickText(value), { anchor: 'middle' }),
    );
  rows.forEach((row, index) => {
    const y = plotTop + index * rowHeight;
    const value = medianOf(row);
    const [lowEnd, highEnd] = intervalOf(row);
    const color = budget !== undefined && value > budget ? PALETTE[3] : PALETTE[0];
    const middle = y + rowHeight / 2;
    out.push(
      label(plotLeft - 10, middle + 4, short(row.name), { anchor: 'end' }),
      `<rect x='${Math.min(xAt(0), xAt(value))}' y='${y + 7}' width='${Math.abs(xAt(value) - xAt(0))}' height='${rowHeight - 14}' fill='${color}'/>`,
      `<line x1='${xAt(lowEnd)}' x2='${xAt(highEnd)}' y1='${middle}' y2='${middle}' stroke='${INK}' stroke-width='1.5'/>`,
      ...[lowEnd, highEnd]
        .filter((end) => end === clip(end))
        .map(
          (end) =>
            `<line x1='${xAt(end)}' x2='${xAt(end)}' y1='${y + 9}' y2='${y + rowHeight - 9}' stroke='${INK}' stroke-width='1.5'/>`,
        ),
      ...(value < low
        ? [
            `<polygon points='${xAt(low) - 2},${middle} ${xAt(low) + 8},${middle - 6} ${xAt(low) + 8},${middle + 6}' fill='${INK}'/>`,
          ]
        : []),
      label(valueColumn, middle + 4, `${signed(value)} ms (${signed(lowEnd)} to ${signed(highEnd)})`, {
        size: 12,
        fill: color === PALETTE[3] ? PALETTE[3] : INK,
        weight: color === PALETTE[3] ? 'bold' : 'normal',
      }),
    );
  });
  if (budget !== undefined)
    out.push(
      `<line x1='${xAt(budget)}' x2='${xAt(budget)}' y1='${plotTop - 8}' y2='${plotTop + plotHeight}' stroke='${INK}' stroke-dasharray='6 4' stroke-width='1.5'/>`,
      label(xAt(budget), plotTop - 12, `budget ${budget} ms`, { size: 12, anchor: 'middle' }),
    );
  out.push(
    label(
      xAt((low + high) / 2),
      plotTop + plotHeight + 40,
      'ms added to a bare DynamoDB DocumentClient handler’s import',
      { anchor: 'middle', size: 13 },
    ),
    `<rect x='${plotLeft}' y='${plotTop + plotHeight + 56}' width='16' height='12' fill='${PALETTE[0]}'/>`,
    label(plotLeft + 22, plotTop + plotHeight + 67, 'within the budget'),
    `<rect x='${plotLeft + 150}' y='${plotTop + plotHeight + 56}' width='16' height='12' fill='${PALETTE[3]}'/>`,
    label(plotLeft + 172, plotTop + plotHeight + 67, 'over the budget'),
    `<line x1='${plotLeft + 290}' x2='${plotLeft + 320}' y1='${plotTop + plotHeight + 62}' y2='${plotTop + plotHeight + 62}' stroke='${INK}' stroke-width='1.5'/>`,
    label(plotLeft + 326, plotTop + plotHeight + 67, '95 % interval of the median'),
  );
  return {
    file: 'cold-start.svg',
    title: 'Cold start added per bundle',
    svg: frame(
      valueColumn + 200,
      plotTop + plotHeight + 85,
      'Cold start our code adds, per Lambda bundle',
      'CPU time of the import in a fresh Node process as Lambda loads an ESM handler, source maps on, paired with a bare DocumentClient handler (bench section 2)',
      out.join('\n'),
    ),
  };
}

/** Components of the cost table, grouped by service for the chart. */
const COST_GROUPS: readonly { readonly name: string; readonly components: readonly string[] }[] = [
  { name: 'API Gateway', components: ['API Gateway requests'] },
  { name: 'WAF', components: ['WAF requests'] },
  {
    name: 'Lambda (requests, duration, INIT)',
    components: ['Lambda requests', 'Lambda duration', 'Lambda INIT (cold starts)'],
  },
  { name: 'DynamoDB', components: ['DynamoDB reads', 'DynamoDB writes'] },
  {
    name: 'CloudWatch Logs',
    components: [
      'Logs: access log',
      'Logs: function lines',
      'Logs: Lambda platform lines',
      'Logs: storage for the retention',
    ],
  },
  { name: 'X-Ray', components: ['X-Ray traces'] },
  { name: 'data transfer out', components: ['Data transfer out'] },
];

interface StageCostData {
  readonly stage: string;
  readonly routes: readonly {
    readonly label: string;
    readonly components: Record<string, number>;
    readonly total: number;
  }[];
  readonly mix: Record<string, number>;
  readonly mixTotal: number;
}

/** (c) Dollars per million calls by service, per route and for their mix, per stage, with the budget. */
export function costChart(section: SectionResult): Chart | undefined {
  const data = section.data as {
    stages?: StageCostData[];
    budgetDollarsPerMillion?: number;
    referenceCallsPerMonth?: number;
  } | null;
  const stages = data?.stages ?? [];
  if (stages.length === 0) return undefined;
  const bars = stages.flatMap((stage) => [
    ...stage.routes.map((route) => ({
      label: `${stage.stage}: ${route.label}`,
      components: route.components,
      total: route.total,
    })),
    { label: `${stage.stage}: equal mix`, components: stage.mix, total: stage.mixTotal },
  ]);
  const budget = data?.budgetDollarsPerMillion;
  const labelWidth = 360;
  const plotLeft = 20 + labelWidth;
  const plotWidth = 520;
  const rowHeight = 30;
  const plotTop = 80;
  const plotHeight = bars.length * rowHeight;
  const axis = ticks(Math.max(...bars.map((bar) => bar.total), budget ?? 0) * 1.05);
  const high = axis.at(-1) ?? 1;
  const xAt = (value: number) => plotLeft + (value / high) * plotWidth;
  const out: string[] = [];
  for (const value of axis)
    out.push(
      `<line x1='${xAt(value)}' x2='${xAt(value)}' y1='${plotTop}' y2='${plotTop + plotHeight}' stroke='${value === 0 ? INK : GRID}'/>`,
      label(xAt(value), plotTop + plotHeight + 18, `$${tickText(value)}`, { anchor: 'middle' }),
    );
  bars.forEach((bar, index) => {
    const y = plotTop + index * rowHeight;
    let start = 0;
    out.push(
      label(plotLeft - 10, y + rowHeight / 2 + 4, bar.label.slice(0, 52), {
        anchor: 'end',
        weight: bar.label.endsWith('mix') ? 'bold' : 'normal',
      }),
    );
    COST_GROUPS.forEach((group, groupIndex) => {
      const value = group.components.reduce((sum, component) => sum + (bar.components[component] ?? 0), 0);
      if (value <= 0) return;
      out.push(
        `<rect x='${xAt(start)}' y='${y + 6}' width='${Math.max(0.5, xAt(start + value) - xAt(start))}' height='${rowHeight - 12}' fill='${PALETTE[groupIndex % PALETTE.length]}' stroke='#ffffff' stroke-width='0.5'/>`,
      );
      start += value;
    });
    out.push(label(xAt(bar.total) + 6, y + rowHeight / 2 + 4, `$${bar.total.toFixed(2)}`, { size: 11 }));
  });
  if (budget !== undefined)
    out.push(
      `<line x1='${xAt(budget)}' x2='${xAt(budget)}' y1='${plotTop - 8}' y2='${plotTop + plotHeight}' stroke='${INK}' stroke-dasharray='6 4' stroke-width='1.5'/>`,
      label(xAt(budget) + 4, plotTop - 10, `production budget $${budget.toFixed(2)}`, { size: 12 }),
    );
  out.push(
    label(xAt(high / 2), plotTop + plotHeight + 40, 'US dollars per million calls (list prices, us-east-1)', {
      anchor: 'middle',
      size: 13,
    }),
    legend(
      60,
      plotTop + plotHeight + 66,
      COST_GROUPS.map((group) => group.name),
      false,
      3,
      280,
    ),
  );
  const volume = data?.referenceCallsPerMonth ?? 1_000_000;
  return {
    file: 'cost.svg',
    title: 'What a call costs, by component',
    svg: frame(
      plotLeft + plotWidth + 80,
      plotTop + plotHeight + 66 + Math.ceil(COST_GROUPS.length / 3) * 20 + 10,
      'What a partner API call costs, by component',
      `Per million calls at ${(volume / 1e6).toLocaleString('en-US')} million a month, each stage’s settings as synthesized (bench section 10)`,
      out.join('\n'),
    ),
  };
}

/** Which chart each section draws. */
export const CHARTS: Readonly<Record<string, (section: SectionResult) => Chart | undefined>> = {
  limiter: limiterChart,
  bundles: coldStartChart,
  cost: costChart,
};
