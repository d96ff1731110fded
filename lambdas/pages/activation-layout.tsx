import type { ComponentChildren } from 'preact';
import { Layout } from './html';

/** The activation flow as the host sees it above every page: products, then set-up, then live. */
export const ACTIVATION_FLOW = [
  { id: 'products', label: 'Choose products' },
  { id: 'setup', label: 'Set up your assistant' },
  { id: 'live', label: 'Live' },
] as const;

/** A stage of the activation flow (the marketplace, the wizard's steps, its last page). */
export type ActivationStage = (typeof ACTIVATION_FLOW)[number]['id'];

/** The activation pages' frame: the partner's name and where the host is in the flow. */
export function ActivationLayout(props: {
  title: string;
  nonce: string;
  partnerName: string;
  stage: ActivationStage;
  children: ComponentChildren;
}) {
  const current = ACTIVATION_FLOW.findIndex((stage) => stage.id === props.stage);
  return (
    <Layout title={`${props.title} · ${props.partnerName}`} nonce={props.nonce}>
      <p class="muted">Sponsored by {props.partnerName}</p>
      <nav aria-label="Progress">
        <ol class="steps">
          {ACTIVATION_FLOW.map((stage, index) => (
            <li aria-current={index === current ? 'step' : undefined}>
              {index + 1}. {stage.label}
            </li>
          ))}
        </ol>
      </nav>
      {props.children}
    </Layout>
  );
}
