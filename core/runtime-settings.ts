/**
 * The stage settings the code reads at run time, one entry each: the environment variable every
 * function gets and the default the local runtime uses. A stage's values are in `stageSettings`
 * (`lib/stage-config.ts`, where the type asks for each); the stack puts them in every function's
 * environment, `npm start` the defaults, and the operator CLI a deployed stage's own, all from
 * this table; `serviceConfig()` parses each by its name (`serviceConfig().auditRetentionDays`).
 * Values are positive integers (a count, or a duration with its unit in the name). Side-effect
 * free: the stack, the local runtime, the CLI and the functions import it.
 */
export const RUNTIME_SETTINGS = {
  /** How long audit events are kept, in days (the table's TTL removes older ones). */
  auditRetentionDays: { variable: 'AUDIT_RETENTION_DAYS', default: 400 },
} as const satisfies Record<string, { readonly variable: string; readonly default: number }>;

type RuntimeSettingName = keyof typeof RUNTIME_SETTINGS;
export type RuntimeSettings = { readonly [Name in RuntimeSettingName]: number };

const NAMES = Object.keys(RUNTIME_SETTINGS) as RuntimeSettingName[];

export const DEFAULT_RUNTIME_SETTINGS = Object.fromEntries(
  NAMES.map((name) => [name, RUNTIME_SETTINGS[name].default]),
) as RuntimeSettings;

/** The runtime settings of a configuration that holds more (a stage's). */
export function runtimeSettingsOf(config: RuntimeSettings): RuntimeSettings {
  return Object.fromEntries(NAMES.map((name) => [name, config[name]])) as RuntimeSettings;
}

/** Each setting as the variable its code reads. */
export function runtimeEnvironment(
  settings: RuntimeSettings = DEFAULT_RUNTIME_SETTINGS,
): Record<string, string> {
  return Object.fromEntries(NAMES.map((name) => [RUNTIME_SETTINGS[name].variable, String(settings[name])]));
}

/** Each setting from the variable it is read from, or its default when the variable is absent. */
export function readRuntimeSettings(read: (variable: string, fallback: number) => number): RuntimeSettings {
  return Object.fromEntries(
    NAMES.map((name) => [name, read(RUNTIME_SETTINGS[name].variable, RUNTIME_SETTINGS[name].default)]),
  ) as RuntimeSettings;
}
