/** The stages: `local` is `npm start` on one machine; the others are deployed stacks. */
export const STAGES = ['local', 'sandbox', 'production'] as const;
export type Stage = (typeof STAGES)[number];

export const DEPLOYED_STAGES = ['sandbox', 'production'] as const satisfies readonly Stage[];
export type DeployedStage = (typeof DEPLOYED_STAGES)[number];

export function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}

export function isDeployedStage(value: string): value is DeployedStage {
  return (DEPLOYED_STAGES as readonly string[]).includes(value);
}
