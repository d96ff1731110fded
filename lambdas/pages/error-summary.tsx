import type { HostLocale } from './messages';
import type { FormError } from './wizard-step';

/**
 * What to fix, above the form (GOV.UK's error summary): it takes the focus when the page loads
 * (`autofocus`, so no script is needed), and each message about a field links to that field.
 * Every host form that can be refused shows it: the marketplace and each wizard step.
 */
export function ErrorSummary(props: { errors: readonly FormError[]; locale: HostLocale }) {
  if (props.errors.length === 0) return null;
  return (
    <div class="notice error" role="alert" id="form-errors" tabindex={-1} autofocus>
      <p>{props.locale.messages.pleaseCheck}</p>
      <ul>
        {props.errors.map((error) => (
          <li>{error.field ? <a href={`#${error.field}`}>{error.message}</a> : error.message}</li>
        ))}
      </ul>
    </div>
  );
}
