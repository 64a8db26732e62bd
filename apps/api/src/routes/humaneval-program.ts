/**
 * The imports SandboxFusion puts before every HumanEval Python program (its IMPORT_HELPER), so a completion
 * that uses `math` or `List` without importing them is judged as it is there.
 */
const PYTHON_IMPORTS = [
  'import math',
  'import re',
  'import sys',
  'import copy',
  'import datetime',
  'import itertools',
  'import collections',
  'import heapq',
  'import statistics',
  'import functools',
  'import hashlib',
  'import numpy',
  'import numpy as np',
  'import string',
  'from typing import *',
  'from collections import *',
].join('\n');

/**
 * HumanEval's stop sequence as SandboxFusion sets it for Python (`\n(?!\s|\n)(?=.|\n)`): a line that starts in
 * column 0 ends the function's body, so whatever a base model writes after it (a test, another function, a
 * `print`) is cut.
 */
const BODY_END = /\n(?=\S)/;

/**
 * The program a HumanEval completion is judged as, joined as SandboxFusion's /submit joins it, before the test
 * and `check(entry_point)`. By default the completion continues the prompt (a base model's output: the body of
 * the function whose signature and docstring the prompt holds), cut at the first line in column 0. With
 * `config.extra.is_freeform` (a chat model's answer) it is the code extracted from the completion, on its own.
 *
 * @example
 * humanEvalProgram('def add(a, b):\n    """Sum."""\n', '    return a + b\nprint(1)', undefined).completion;
 * // '    return a + b'
 */
export function humanEvalProgram(
  prompt: string,
  completion: string,
  extracted: string | undefined,
): { completion: string; program: string } {
  if (extracted !== undefined) return { completion: extracted, program: `${PYTHON_IMPORTS}\n${extracted}` };
  const end = BODY_END.exec(completion);
  const body = end === null ? completion : completion.slice(0, end.index);
  return { completion: body, program: `${PYTHON_IMPORTS}\n${prompt}\n${body}` };
}

/** SandboxFusion's instruction after a HumanEval prompt in chat form, in its two locales. */
const FREEFORM_INSTRUCTIONS = {
  en: 'Please complete the above code according to the requirements in the docstring. Write the complete code and wrap it in markdown syntax. The code should not contain `Main` function.',
  zh: '请按照docstring的要求补全如上代码，写出完整的代码，代码要用markdown语法包裹。代码不要包含`Main`函数',
};

/**
 * A HumanEval prompt as SandboxFusion words it for a chat model (`config.extra.is_freeform`): the signature and
 * docstring fenced, then an instruction to answer with the whole function, fenced (Chinese for locale `zh`).
 *
 * @example
 * humanEvalFreeformPrompt('def add(a, b):\n    """Sum."""\n', null).startsWith('```python\n'); // true
 */
export function humanEvalFreeformPrompt(prompt: string, locale: string | null): string {
  return `\`\`\`python\n${prompt}\n\`\`\`\n\n${FREEFORM_INSTRUCTIONS[locale === 'zh' ? 'zh' : 'en']}`;
}
