'use client';

import { useState } from 'react';

/**
 * Copies text to the clipboard and says so. The text is built on click, so a 200 KB sample is not serialised
 * at every render.
 */
export function CopyButton({ label, text }: { label: string; text: () => string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      onClick={() => {
        navigator.clipboard.writeText(text()).then(
          () => setState('copied'),
          // Browsers refuse the clipboard outside a secure context (plain http to a remote host).
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy refused by the browser' : label}
    </button>
  );
}
