'use client';

import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import cpp from 'highlight.js/lib/languages/cpp';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import { useMemo } from 'react';

hljs.registerLanguage('python', python);
hljs.registerLanguage('bash', bash);
hljs.registerLanguage('cpp', cpp);
hljs.registerLanguage('go', go);
hljs.registerLanguage('java', java);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('rust', rust);
hljs.registerLanguage('sql', sql);

/** SandboxFusion's language names that highlight.js knows by another name. */
const ALIASES: Record<string, string> = {
  nodejs: 'javascript',
  pytest: 'python',
  python_gpu: 'python',
  go_test: 'go',
  jest: 'javascript',
  junit: 'java',
  cuda: 'cpp',
};

/** Beyond this, code is shown plain: highlighting megabytes would freeze the tab for little gain. */
const MAX_HIGHLIGHTED_CHARS = 50_000;

/** Code with syntax highlighting (highlight.js, which escapes the text it is given). */
export function CodeBlock({ code, language, label }: { code: string; language: string; label?: string }) {
  const name = ALIASES[language] ?? language;
  const html = useMemo(() => {
    if (code.length > MAX_HIGHLIGHTED_CHARS || !hljs.getLanguage(name)) return null;
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  }, [code, name]);
  return (
    <pre className="code" aria-label={label ?? `${language} code`} data-language={language}>
      {html === null ? (
        <code>{code}</code>
      ) : (
        <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </pre>
  );
}
