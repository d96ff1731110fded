import type { ComponentChildren, VNode } from 'preact';
import type { SubmittedKnowledgeBase } from '../../core/contract/service-events';
import { canonicalJson } from '../../core/domain/canonical-json';
import type { Product, ProductId } from '../../core/domain/catalog';
import { withUnixLineBreaks } from '../../core/domain/text';
import type { KnowledgeBase } from '../data/knowledge-base';
import { saveAnswers } from '../data/knowledge-base';
import type { Partner } from '../data/partners';
import type { PartnerFace } from './activation-layout';
import type { HostSession } from './host-session';
import type { HostLocale, Messages } from './messages';

/*
 * What a step of the onboarding wizard is written with: the shape of an entry of `WIZARD_STEPS`
 * (wizard-steps.tsx), the parts its form and page are drawn with, and the readers of what it stored.
 */

/**
 * What to fix in a refused form: the message, and the id of the field it is about (the page marks
 * that field and links to it from the summary), when it is about one.
 */
export interface FormError {
  readonly message: string;
  readonly field?: string;
}

/** Reading a step's form: what to save, or what to fix. */
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FormError[] };

export const about = (field: string, message: string): FormError => ({ message, field });

/**
 * A field as stored: trimmed, line breaks as line feeds. One-line fields (a name, a question, a
 * title) then follow the one-line rule; text of several lines (instructions, answers,
 * descriptions) keeps line feeds and tabs and refuses every other control and text-direction
 * character (docs/design/README.md, "Text fields").
 */
export const text = (value: string | null | undefined) => withUnixLineBreaks(value ?? '').trim();
/** Every value of a field a form repeats (one per row), as stored. */
export const all = (form: URLSearchParams, name: string) => form.getAll(name).map(text);

/** What every step of the onboarding wizard works on: the host's provisioned property. */
export interface WizardContext {
  readonly partner: Partner;
  readonly face: PartnerFace;
  readonly locale: HostLocale;
  readonly session: HostSession & { provisioned: { hostUserId: number; propertyId: number } };
  readonly csrf: string;
  /** The stored property name, or the contact's name until the host names the property. */
  readonly propertyName: string;
  readonly knowledgeBase: KnowledgeBase;
  /** The products active on the property, and the catalog that names them. */
  readonly products: readonly ProductId[];
  readonly catalog: readonly Product[];
  /** The steps of this host's wizard, in order (`wizardStepsFor`). */
  readonly steps: readonly AnyWizardStep[];
  /** API Gateway's id of this page request (audit events name it). */
  readonly requestId?: string;
}

/** What a step's page is drawn with. */
export interface StepPage {
  readonly id: string;
  readonly context: WizardContext;
  /** Why the posted form was refused (none on a page shown from what is stored). */
  readonly errors: readonly FormError[];
  /** The rows a step of rows shows at least: one more than the host had, after "Add another". */
  readonly rows?: number;
}

/** A refused form keeps what the host typed (`typed`), so the step shows it again with the errors. */
type StepInput<Typed, Value> = { ok: true; value: Value } | { ok: false; errors: FormError[]; typed?: Typed };

/** Saves a step's answers under its attribute, and the property's new name when the step renames it. */
type StoreAnswers<Saved> = (answers: Saved, propertyName?: string) => Promise<void>;

/** A step of rows (questions, offers): the field every row has once, and the most rows it takes. */
interface StepRows {
  readonly field: string;
  readonly max: number;
}

/** What a step is, the same as declared and as run: its name, who needs it, its titles, its rows. */
interface StepBasics<Id extends string> {
  /** The step's name in the address (`onboarding?step=…`) and in its form. */
  readonly id: Id;
  /** Why the host is asked this: the step table of docs/design/host-pages.md (`npm run docs`) shows it. */
  readonly purpose: string;
  /**
   * The products that need this step: a host sees it when they activated any of them. Without
   * the list, the step closes the wizard: it is shown when any other step is.
   */
  readonly products?: readonly ProductId[];
  title(messages: Messages): string;
  /** The step's name in the progress indicator. */
  stage(messages: Messages): string;
  /**
   * A step of rows, whose "Add another" saves and shows the step again with one more row: the
   * field each row has once (it counts the rows a form posted) and the most rows the step takes.
   */
  readonly rows?: StepRows;
}

/**
 * One step of the wizard as its entry in `WIZARD_STEPS` declares it. `Typed` is what its form
 * shows again when refused, `Value` what its parser reads, `Saved` its answers as stored and read
 * back. The page, the review and the closing page get the step's own answers (`saved`), read
 * through its own reader. Its text fields and their limits are its row of `TEXT_FIELDS`, beside
 * the table. (Methods, not function properties, so steps of different types share one type.)
 */
interface StepDeclaration<Typed, Value, Saved, Id extends string> extends StepBasics<Id> {
  /**
   * Where the step keeps its answers: an attribute of the property's knowledge base item of its
   * own (lambdas/data/knowledge-base.ts), and how what is stored there reads back (`stored` is
   * undefined until the step is first saved, and whatever an older version of the step wrote).
   */
  readonly answers?: { readonly attribute: string; read(stored: unknown): Saved };
  /** Reads the posted form: what to save, or what to fix (each `FormError` naming its field). */
  parse(form: URLSearchParams, context: WizardContext): FormResult<Value>;
  /** What a refused form shows again: its fields as typed. */
  typed?(form: URLSearchParams): Typed;
  /** The step's page below its heading: from its saved answers, or from `typed` when its form was refused. */
  render(page: StepPage, saved: Saved, typed?: Typed): VNode;
  /** Writes what `parse` read: `store` saves the step's answers (and the property's new name). */
  save(value: Value, store: StoreAnswers<Saved>, context: WizardContext, nowIso: string): Promise<void>;
  /**
   * What the step's answers are in the knowledge base the platform is sent when the host submits
   * the wizard (`KnowledgeBaseSubmitted`, core/contract/service-events.ts): the fields it fills.
   */
  submitted?(saved: Saved, context: WizardContext): Partial<SubmittedKnowledgeBase>;
  /** What the review page shows of this step; `number` is the step's place in the wizard (1 = first). */
  readonly review?: {
    summary(saved: Saved, context: WizardContext, number: number): VNode;
    /** What is missing before the host can finish, if anything. */
    missing?(saved: Saved, context: WizardContext, number: number): string | undefined;
    /** What a product going live knows from this step, for the closing page ("2 answers"). */
    known?(saved: Saved, context: WizardContext): string;
  };
}

/** One step of the wizard as the onboarding page runs it: its answers read from the context. */
export interface WizardStep<Typed, Value, Id extends string = string> extends StepBasics<Id> {
  /** The knowledge base's attribute the step's answers are stored under. */
  readonly attribute?: string;
  parse(form: URLSearchParams, context: WizardContext): StepInput<Typed, Value>;
  render(page: StepPage, typed?: Typed): VNode;
  save(value: Value, context: WizardContext, nowIso: string): Promise<void>;
  submitted?(context: WizardContext): Partial<SubmittedKnowledgeBase>;
  readonly review?: {
    summary(context: WizardContext, number: number): VNode;
    missing?(context: WizardContext, number: number): string | undefined;
    known?(context: WizardContext): string;
  };
}

export type AnyWizardStep = WizardStep<unknown, unknown>;

/** The property the host's session provisioned, as the partner sponsors it (what a save is conditioned on). */
export function sponsoredProperty(context: WizardContext) {
  return { partnerId: context.session.partnerId, propertyId: context.session.provisioned.propertyId };
}

/**
 * A step of the table from its declaration (keeping its own types, with its literal id): its page,
 * review and closing words get its answers as its reader reads them from the knowledge base, its
 * save stores them under its attribute, and a refused form keeps what was typed.
 */
export function wizardStep<Typed, Value, Saved, const Id extends string>(
  step: StepDeclaration<Typed, Value, Saved, Id>,
): WizardStep<Typed, Value, Id> {
  const { answers, review } = step;
  // A step without answers (the review) has nothing stored to read.
  const saved = (context: WizardContext) =>
    (answers ? answers.read(context.knowledgeBase.answers[answers.attribute]) : undefined) as Saved;
  const store =
    (context: WizardContext, nowIso: string): StoreAnswers<Saved> =>
    async (value, propertyName) => {
      if (!answers) throw new Error(`The wizard step "${step.id}" declares no answers to store`);
      // Saved again as it is stored (Continue on an unchanged step): nothing changed, and nothing is
      // written, so the closing page does not report a change the platform was not sent.
      const unchanged =
        sameStoredValue(context.knowledgeBase.answers[answers.attribute], value) &&
        (propertyName === undefined || propertyName === context.propertyName);
      if (unchanged) return;
      return saveAnswers(
        sponsoredProperty(context),
        { attribute: answers.attribute, value },
        nowIso,
        propertyName,
      );
    };
  return {
    id: step.id,
    purpose: step.purpose,
    ...(step.products ? { products: step.products } : {}),
    title: (messages) => step.title(messages),
    stage: (messages) => step.stage(messages),
    ...(step.rows ? { rows: step.rows } : {}),
    ...(answers ? { attribute: answers.attribute } : {}),
    parse: (form, context) => {
      const parsed = step.parse(form, context);
      return parsed.ok || !step.typed ? parsed : { ...parsed, typed: step.typed(form) };
    },
    render: (page, typed) => step.render(page, saved(page.context), typed),
    save: (value, context, nowIso) => step.save(value, store(context, nowIso), context, nowIso),
    ...(step.submitted ? { submitted: (context) => step.submitted?.(saved(context), context) ?? {} } : {}),
    ...(review
      ? {
          review: {
            summary: (context, number) => review.summary(saved(context), context, number),
            ...(review.missing
              ? { missing: (context, number) => review.missing?.(saved(context), context, number) }
              : {}),
            ...(review.known ? { known: (context) => review.known?.(saved(context), context) ?? '' } : {}),
          },
        }
      : {}),
  };
}

/** Whether a step's answers, as it would save them, are what is stored already. */
const sameStoredValue = (stored: unknown, value: unknown) =>
  stored !== undefined && canonicalJson(stored) === canonicalJson(value);

/** What a stored record's attributes are: the reader of `storedRecord` and `storedList` checks each. */
type StoredShape = Readonly<Record<string, 'string' | 'number'>>;
export type StoredOf<Shape extends StoredShape> = {
  readonly [Name in keyof Shape]: Shape[Name] extends 'number' ? number : string;
};

/** A stored record of this shape, or undefined when what is stored is not one (nothing saved yet). */
export function storedRecord<Shape extends StoredShape>(
  stored: unknown,
  shape: Shape,
): StoredOf<Shape> | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const record = stored as Record<string, unknown>;
  return Object.entries(shape).every(([name, type]) => typeof record[name] === type)
    ? (Object.fromEntries(Object.keys(shape).map((name) => [name, record[name]])) as StoredOf<Shape>)
    : undefined;
}

/** The stored records of this shape in a stored list (none when nothing is saved yet). */
export function storedList<Shape extends StoredShape>(stored: unknown, shape: Shape): StoredOf<Shape>[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((item: unknown): StoredOf<Shape>[] => {
    const record = storedRecord(item, shape);
    return record ? [record] : [];
  });
}

/** The submit value of a step form's Back button. */
export const BACK = 'back';
/** The submit value of "Add another" on a step of rows: save, then the same step with one more row. */
export const ADD_ROW = 'add';

export function StepForm(props: {
  page: StepPage;
  submit: string;
  add?: string;
  children: ComponentChildren;
}) {
  const { page } = props;
  const m = page.context.locale.messages;
  const first = page.context.steps[0]?.id === page.id;
  return (
    <form
      method="post"
      action="onboarding"
      novalidate
      class={props.add ? 'rows' : undefined}
      aria-describedby={page.errors.length > 0 ? 'form-errors' : undefined}
    >
      <input type="hidden" name="csrf" value={page.context.csrf} />
      <input type="hidden" name="step" value={page.id} />
      {/*
       * Enter in a field continues: implicit submission clicks the form's first submit button in
       * tree order (HTML's "default button"), this hidden one, so the buttons that are seen can come
       * in the order they are seen (Add another, then Back, then Continue), for the keyboard too.
       */}
      <button type="submit" hidden>
        {props.submit}
      </button>
      {props.children}
      {props.add ? (
        <button type="submit" class="secondary add-row" name="go" value={ADD_ROW}>
          {props.add}
        </button>
      ) : null}
      <div class="actions">
        {first ? null : (
          <button type="submit" class="secondary" name="go" value={BACK}>
            {m.backButton}
          </button>
        )}
        <button type="submit" class="primary">
          {props.submit}
        </button>
      </div>
    </form>
  );
}

/** Rows shown when nothing is saved yet: room for a first and a second answer. */
const MIN_ROWS = 2;

/**
 * The rows of a step of rows, and the one that takes the focus. A refused form shows the rows as
 * typed, no more and no fewer (a failed save never grows the page). Otherwise the saved rows and
 * one empty row (at least MIN_ROWS), or the rows "Add another" asked for; the first row after the
 * saved ones then takes the focus.
 */
export function rowsOf<T>(
  page: StepPage,
  saved: readonly T[],
  typed: readonly T[] | undefined,
  blank: T,
  max: number,
) {
  if (typed) return { rows: typed.length > 0 ? typed.slice(0, max) : [blank], focus: undefined };
  const count = Math.min(Math.max(max, saved.length), Math.max(MIN_ROWS, saved.length + 1, page.rows ?? 0));
  const rows = [...saved, ...Array.from({ length: Math.max(0, count - saved.length) }, () => blank)];
  return { rows, focus: page.rows !== undefined && saved.length < rows.length ? saved.length : undefined };
}

/**
 * A field's state on a refused form: `aria-invalid` and its message under the label when the
 * form's errors name it, linked from the field (`aria-describedby`, with any hint it has).
 */
export function fieldState(page: StepPage, id: string, hint?: string) {
  const error = page.errors.find((candidate) => candidate.field === id);
  const describedBy = [hint, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return {
    attributes: {
      'aria-invalid': error ? ('true' as const) : undefined,
      'aria-describedby': describedBy || undefined,
    },
    message: error ? (
      <p class="error-text" id={`${id}-error`}>
        {error.message}
      </p>
    ) : null,
  };
}
