import { seededRandom } from '../../core/seeded-random';
/** A figure measured over repeated runs: the median, with the extremes beside it. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: values.length > 0 ? Math.min(...values) : Number.NaN,
    max: values.length > 0 ? Math.max(...values) : Number.NaN,
    runs: values.length,
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/** Element-wise ratios of paired runs (same round), summarized. */
export function pairedRatios(values: readonly number[], baselines: readonly number[]): Summary {
  return summarize(values.map((value, index) => value / (baselines[index] ?? Number.NaN)));
}

/** Element-wise differences of paired runs (same round), summarized. */
export function pairedDeltas(values: readonly number[], baselines: readonly number[]): Summary {
  return summarize(values.map((value, index) => value - (baselines[index] ?? Number.NaN)));
}

/** "12.3 (11.9–13.0)": median with min and max, to `digits` decimals. */
export function formatSummary(summary: Summary, digits = 1): string {
  const f = (value: number) => formatNumber(value, digits);
  if (summary.runs <= 1 || summary.min === summary.max) return f(summary.median);
  return `${f(summary.median)} (${f(summary.min)}–${f(summary.max)})`;
}

export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${formatNumber(bytes / (1024 * 1024), 2)} MiB`;
  if (bytes >= 1024) return `${formatNumber(bytes / 1024, 1)} KiB`;
  return `${formatNumber(bytes, 0)} B`;
}

/** 95% bootstrap confidence interval of the median (percentile method). */
export function medianConfidenceInterval(values: readonly number[], iterations = 2_000): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const random = seededRandom(values.length * 7_919);
  const medians: number[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const sample = Array.from(
      { length: values.length },
      () => values[Math.floor(random() * values.length)] ?? 0,
    );
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  return [percentile(medians, 2.5), percentile(medians, 97.5)];
}
