'use client';

/** A filter that picks one of a few values, or "any". */
export function ChoiceFilter({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: string | undefined;
  /** Values, or [value, label] pairs. */
  choices: readonly (string | readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select aria-label={label} value={value ?? ''} onChange={(event) => onChange(event.target.value)}>
        <option value="">any</option>
        {choices.map((choice) => {
          const [choiceValue, choiceLabel] = typeof choice === 'string' ? [choice, choice] : choice;
          return (
            <option key={choiceValue} value={choiceValue}>
              {choiceLabel}
            </option>
          );
        })}
      </select>
    </label>
  );
}
