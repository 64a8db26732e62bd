import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';

/**
 * A verl-shaped rollout dump for benchmarks: GSM8K-style prompts under the code_interpreter system prompt, and
 * multi-turn responses with <think> blocks, <tool_call>s with Python code and tool responses, sized uniformly
 * between `minBytes` and `maxBytes`. Deterministic for a seed, so runs compare.
 */
export interface SyntheticDumpOptions {
  dir: string;
  steps: number;
  samplesPerStep: number;
  /** Samples per prompt in a step (GRPO's n). */
  samplesPerPrompt?: number;
  minBytes?: number;
  maxBytes?: number;
  seed?: number;
}

const SYSTEM =
  'You are a math expert. You are given a question and you need to solve it step by step. Reasoning step by ' +
  'step before any tool call. You should use the `calc_gsm8k_reward` tool after step by step solving the ' +
  'question, before generate final answer at least once and refine your answer if necessary. Put your final ' +
  'answer in the format of `#### <answer>`.\n\n# Tools\n\nYou may call one or more functions to assist with the ' +
  'user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "code_interpreter", "description": "A tool for executing code.", ' +
  '"parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "The code to ' +
  'execute.", "enum": null}}, "required": ["code"]}, "strict": false}}\n</tools>\n\nFor each function call, ' +
  'return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

const NAMES = ['John', 'Maria', 'Wei', 'Aisha', 'Tom', 'Priya', 'Lukas', 'Sofia', 'Kenji', 'Fatima'];
const THINGS = ['apples', 'tickets', 'books', 'marbles', 'cupcakes', 'stamps', 'bottles', 'pencils', 'coins'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ter', 'van', 'qu', 'ex', 'dor', 'sel', 'pha', 'ri', 'gon', 'tu', 'bel'];

/** mulberry32: a tiny seeded PRNG. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function writeSyntheticDump(
  options: SyntheticDumpOptions,
): Promise<{ files: string[]; bytes: number }> {
  const next = random(options.seed ?? 42);
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  // A vocabulary of a few thousand made-up words gives the index a realistic number of distinct terms.
  const vocabulary = Array.from({ length: 4000 }, () =>
    Array.from({ length: 2 + int(3) }, () => pick(SYLLABLES)).join(''),
  );
  const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 2.5)]!;
  const sentence = () =>
    `${Array.from({ length: 6 + int(12) }, () => (next() < 0.3 ? pick(['the', 'so', 'we', 'is', 'of', 'and', 'to']) : word())).join(' ')}.`;
  const minBytes = options.minBytes ?? 2_000;
  const maxBytes = options.maxBytes ?? 20_000;
  const samplesPerPrompt = options.samplesPerPrompt ?? 5;
  await mkdir(options.dir, { recursive: true });
  const files: string[] = [];
  let bytes = 0;

  for (let step = 1; step <= options.steps; step++) {
    const path = join(options.dir, `${step}.jsonl`);
    const out = createWriteStream(path);
    let prompt = '';
    let answer = 0;
    for (let index = 0; index < options.samplesPerStep; index++) {
      if (index % samplesPerPrompt === 0) {
        const [a, b] = [10 + int(990), 2 + int(20)];
        answer = a * b;
        prompt = `${pick(NAMES)} buys ${b} boxes of ${pick(THINGS)} with ${a} in each box. How many ${pick(THINGS)} does ${pick(NAMES)} have in total? Let's think step by step and output the final answer after \`####\`.`;
      }
      const target = minBytes + int(maxBytes - minBytes);
      const correct = next() < 0.2 + (0.6 * step) / options.steps;
      const turns: string[] = [];
      let length = 0;
      let call = 0;
      while (length < target) {
        const think = Array.from({ length: 3 + int(8) }, sentence).join(' ');
        const code = `values = [${Array.from({ length: 3 }, () => int(1000)).join(', ')}]\ntotal_${call} = sum(values) * ${int(50)}\nprint(total_${call})`;
        const toolCall = JSON.stringify({ name: 'code_interpreter', arguments: { code } });
        const result =
          next() < 0.1
            ? 'Traceback (most recent call last):\n  File "<string>", line 2\nZeroDivisionError: division by zero'
            : String(int(100000));
        const turn = `assistant\n<think>\n${think}\n</think>\n<tool_call>\n${toolCall}\n</tool_call>\ntool\n${result}\n`;
        turns.push(turn);
        length += turn.length;
        call += 1;
      }
      const final = correct ? answer : answer + 1 + int(100);
      turns.push(`assistant\n<think>\n${sentence()}\n</think>\n\n#### ${final}`);
      const line = {
        input: `system\n${SYSTEM}\nuser\n${prompt}\nassistant\n`,
        output: turns.join('\n'),
        gts: String(answer),
        score: correct ? 1.0 : 0.0,
        step,
        acc: correct,
        pred: String(final),
        // Per prompt, without drawing from the generator, so the rest of the dump is what it was.
        data_source: answer % 3 === 0 ? 'math' : 'gsm8k',
        request_id: `${step}-${index}-${int(1e9).toString(16)}`,
      };
      const text = `${JSON.stringify(line)}\n`;
      bytes += Buffer.byteLength(text);
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    files.push(path);
  }
  return { files, bytes };
}
