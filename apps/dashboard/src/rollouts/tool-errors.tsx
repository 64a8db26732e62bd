/** " (2 failed)" after a sample's tool calls: its tool responses that showed the model a traceback or a time limit. */
export function ToolErrors({ count }: { count: number }) {
  return (
    <span className="tool-errors" aria-label="tool errors">
      {' '}
      ({count} failed)
    </span>
  );
}
