import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeVerlDump } from '../src/dump/write-verl-dump';
import { scriptedGenerate } from '../src/generate/scripted';
import { Gsm8kTool } from '../src/gsm8k-tool';
import { runEpisode } from '../src/rollout/run-episode';
import { renderToolsSystemPrompt } from '../src/tools-system-prompt';
import { toolCall } from '@fusebox/testing/tool-call';

const dir = await mkdtemp(join(tmpdir(), 'fusebox-dump-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const tool = new Gsm8kTool();
const episode = (answer: string) =>
  runEpisode(
    {
      requestId: `id-${answer}`,
      messages: [
        { role: 'system', content: 'Solve it.' },
        { role: 'user', content: 'Combien font 6 × 7 ?' },
      ],
      toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '42' } } },
      groundTruth: '42',
      extra: { data_source: 'openai/gsm8k' },
    },
    {
      generate: scriptedGenerate([toolCall('calc_gsm8k_reward', { answer }), `#### ${answer}`]),
      tools: [tool],
      limits: { maxAssistantTurns: 3 },
    },
  );

describe('writeVerlDump', () => {
  it("writes {step}.jsonl as verl's trainer does, readable line by line", async () => {
    const trajectories = [await episode('42'), await episode('41')];
    const file = await writeVerlDump(join(dir, 'nested'), 7, trajectories);
    expect(file).toBe(join(dir, 'nested', '7.jsonl'));
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    // Python's json.dumps style: ", " and ": ", non-ASCII kept as is
    expect(lines[0]?.startsWith('{"input": "system\\nSolve it.\\n\\n# Tools')).toBe(true);
    expect(lines[0]).toContain('6 × 7');
    const first = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(first)).toEqual([
      'input',
      'output',
      'gts',
      'score',
      'step',
      'data_source',
      'request_id',
    ]);
    expect(first).toMatchObject({
      gts: '42',
      score: 1,
      step: 7,
      request_id: 'id-42',
      data_source: 'openai/gsm8k',
    });
    expect((JSON.parse(lines[1] ?? '') as { score: number }).score).toBe(0);
  });

  it('renders input and output as decoded chat text: role lines, tools block, generation prompt', async () => {
    const [trajectory] = [await episode('42')];
    await writeVerlDump(dir, 1, [trajectory]);
    const line = JSON.parse((await readFile(join(dir, '1.jsonl'), 'utf8')).trimEnd()) as {
      input: string;
      output: string;
    };
    expect(line.input).toBe(
      `system\nSolve it.\n\n${renderToolsSystemPrompt([tool])}\nuser\nCombien font 6 × 7 ?\nassistant\n`,
    );
    expect(line.output).toBe(
      `assistant\n${toolCall('calc_gsm8k_reward', { answer: '42' })}\ntool\nCurrent parsed answer='42' reward=1.0\nassistant\n#### 42`,
    );
  });

  it('validates its arguments', async () => {
    await expect(writeVerlDump(dir, -1, [])).rejects.toThrow(TypeError);
    await expect(writeVerlDump('', 1, [])).rejects.toThrow(TypeError);
  });
});
