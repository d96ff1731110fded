/**
 * The wizard's text fields, which the message catalogues name (`FIELD_NAMES`: a too-long answer's
 * error names its field). Each step declares its own, with their limits, in `TEXT_FIELDS` beside
 * the step table (wizard-steps.tsx); this module only passes their names on, as a type, so a
 * catalogue loads nothing for it.
 */
export type { TextField } from './wizard-steps';
