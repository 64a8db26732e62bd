'use client';

import { type SearchQuery, matchRanges } from '@fusebox/rollouts/query';
import { useMemo, useState } from 'react';
import { CodeBlock } from '~/components/code-block';
import { HighlightedText } from '~/components/highlighted-text';
import { formatChars } from '~/components/format';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '~/trpc/client';
import { type Block, type ChatTurn, type ToolCall, parseConversation } from './chat-turns';
import { ToolRun, callFailed } from './tool-run';
import type { ToolCallRuns } from './types';

/** Tool calls of one sample joined to their executions: the API's limit per request. */
const MAX_JOINED_CALLS = 100;

function ThinkBlock({ text, closed, query }: { text: string; closed: boolean; query: SearchQuery | null }) {
  // Thinking is long and mostly skimmed: folded by default, unless the search matched inside it.
  const hasMatch = useMemo(() => (query ? matchRanges(text, query).length > 0 : false), [text, query]);
  const [open, setOpen] = useState(hasMatch);
  return (
    <div className={`think ${open ? 'open' : ''}`}>
      <button type="button" className="think-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} Thinking · {formatChars(text.length)} chars{closed ? '' : ' · never closed'}
      </button>
      {open ? (
        <pre className="text think-text">
          <HighlightedText text={text} query={query} />
        </pre>
      ) : null}
    </div>
  );
}

function ToolCallCard({
  call,
  response,
  runs,
  query,
}: {
  call: ToolCall;
  response: string | null;
  runs: ToolCallRuns | undefined;
  query: SearchQuery | null;
}) {
  const { code: _code, ...otherArguments } = call.arguments ?? {};
  const language = typeof otherArguments.language === 'string' ? otherArguments.language : 'python';
  const hasOthers = Object.keys(otherArguments).length > 0;
  return (
    <section
      className={`tool-call ${callFailed(runs, response) ? 'failed' : ''}`}
      aria-label={`tool call ${call.name ?? '(unreadable)'}`}
    >
      <header>
        <span className="badge">tool call</span> <strong>{call.name ?? 'unreadable call'}</strong>
        {call.problem ? <span className="problem-note"> · {call.problem}</span> : null}
      </header>
      {call.code !== null ? <ToolRun runs={runs} response={response} /> : null}
      {call.code !== null ? <CodeBlock code={call.code} language={language} label="tool call code" /> : null}
      {call.arguments === null ? (
        <pre className="text">{call.raw}</pre>
      ) : hasOthers || call.code === null ? (
        <CodeBlock
          code={JSON.stringify(call.code === null ? call.arguments : otherArguments, null, 2)}
          language="json"
          label="tool call arguments"
        />
      ) : null}
      <div className="tool-response" aria-label="tool response">
        <span className="badge">response</span>
        {response === null ? (
          <span className="muted"> none in this sample</span>
        ) : (
          <pre className="text">
            <HighlightedText text={response} query={query} />
          </pre>
        )}
      </div>
    </section>
  );
}

/** The sandbox runs joined to each tool call with code, by block; undefined until they have loaded. */
type RunsByBlock = ReadonlyMap<Block, ToolCallRuns>;

function BlockView({ block, runs, query }: { block: Block; runs: RunsByBlock; query: SearchQuery | null }) {
  if (block.kind === 'think') return <ThinkBlock text={block.text} closed={block.closed} query={query} />;
  if (block.kind === 'call')
    return <ToolCallCard call={block.call} response={block.response} runs={runs.get(block)} query={query} />;
  return (
    <pre className="text">
      <HighlightedText text={block.text} query={query} />
    </pre>
  );
}

function TurnView({ turn, runs, query }: { turn: ChatTurn; runs: RunsByBlock; query: SearchQuery | null }) {
  // The system prompt is the same in nearly every sample: folded unless the search matched inside it.
  const hasMatch = useMemo(
    () => (query ? matchRanges(turn.text, query).length > 0 : false),
    [turn.text, query],
  );
  const [open, setOpen] = useState(turn.role !== 'system' || hasMatch);
  return (
    <article className={`turn ${turn.role} ${open ? '' : 'folded'}`} aria-label={`${turn.role} turn`}>
      <header>
        <span className={`role ${turn.role}`}>{turn.role}</span>
        <span className="muted">
          {turn.part === 'input' ? 'prompt' : 'response'} · {formatChars(turn.text.length)} chars
        </span>
        {turn.role === 'system' ? (
          <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'hide' : 'show'}
          </button>
        ) : null}
      </header>
      {open
        ? turn.blocks.map((block, index) => <BlockView key={index} block={block} runs={runs} query={query} />)
        : null}
    </article>
  );
}

/**
 * The executions behind the conversation's tool calls that carry code, joined on the server by their code,
 * those the sample's own rollout sent (`requestId`) first.
 */
function useToolCallRuns(turns: readonly ChatTurn[], requestId: string | null): RunsByBlock {
  const trpc = useTRPC();
  const calls = useMemo(
    () =>
      turns
        .flatMap((turn) => turn.blocks)
        .filter((block) => block.kind === 'call' && block.call.code !== null && block.call.code !== '')
        .slice(0, MAX_JOINED_CALLS) as Extract<Block, { kind: 'call' }>[],
    [turns],
  );
  const found = useQuery({
    ...trpc.executions.forToolCalls.queryOptions({
      calls: calls.map((block) => ({ code: block.call.code!, response: block.response })),
      requestId,
    }),
    enabled: calls.length > 0,
  });
  return useMemo(
    () => new Map(found.data ? calls.map((block, index) => [block as Block, found.data[index]!]) : []),
    [calls, found.data],
  );
}

/** A sample as a conversation, or as the raw text of its input and output. */
export function ChatView({
  input,
  output,
  requestId,
  raw,
  query,
}: {
  input: string;
  output: string;
  /** The sample's `request_id`, which the runs its rollout sent through `@fusebox/tools` carry. */
  requestId: string | null;
  raw: boolean;
  query: SearchQuery | null;
}) {
  const turns = useMemo(() => (raw ? [] : parseConversation(input, output)), [input, output, raw]);
  const runs = useToolCallRuns(turns, requestId);
  if (raw) {
    return (
      <div className="raw">
        <h3>input</h3>
        <pre className="text">
          <HighlightedText text={input} query={query} />
        </pre>
        <h3>output</h3>
        <pre className="text">
          <HighlightedText text={output} query={query} />
        </pre>
      </div>
    );
  }
  return (
    <div className="chat">
      {turns.map((turn, index) => (
        <TurnView key={index} turn={turn} runs={runs} query={query} />
      ))}
    </div>
  );
}
