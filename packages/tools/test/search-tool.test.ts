import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLocalLimiter } from '@fusebox/rate-limiter';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadToolsFromYaml } from '../src/registry';
import { SearchTool } from '../src/search-tool';
import { toolSchemaJson } from '../src/tool-schema';

const REFERENCE = fileURLToPath(new URL('./python/search_reference.py', import.meta.url));

/** verl's example `search_tool_config.yaml`, with the service URL filled in by each test. */
const VERL_SEARCH_CONFIG = (url: string) => `tools:
  - class_name: "verl.tools.search_tool.SearchTool"
    config:
      retrieval_service_url: "${url}"
      num_workers: 120
      rate_limit: 120
      timeout: 30
    tool_schema:
      type: "function"
      function:
        name: "search"
        description: "Searches the web for relevant information based on the given query."
        parameters:
          type: "object"
          properties:
            query_list:
              type: "array"
              item:
                type: "string"
              description: "A list of fully-formed semantic queries. The tool will return search results for each query."
          required: ["query_list"]
`;

type Document = { document: { id: string; contents: string }; score: number };
const doc = (id: string, contents: string): Document => ({ document: { id, contents }, score: 1.5 });

/**
 * Search-R1's retrieval service, the tool's one external boundary, on loopback: each request gets the next
 * scripted answer (status, body, headers), and is recorded.
 */
interface Answer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}
const requests: { body: unknown; headers: IncomingMessage['headers'] }[] = [];
let answers: Answer[] = [];
/** Requests being answered now, and the most there were at once. */
let inFlight = 0;
let peakInFlight = 0;
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  let raw = '';
  request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  request.on('end', () => {
    requests.push({ body: JSON.parse(raw) as unknown, headers: request.headers });
    const answer = answers.shift() ?? { status: 500, body: { detail: 'nothing scripted' } };
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    }, answer.delayMs ?? 0);
  });
});
let url: string;
const opened: SearchTool[] = [];

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/retrieve`;
});
afterAll(async () => {
  await Promise.all(opened.map((tool) => tool.close()));
  server.close();
});

function searchTool(config: Record<string, unknown> = {}, options = {}) {
  const tool = new SearchTool({ retrieval_service_url: url, ...config }, undefined, options);
  opened.push(tool);
  return tool;
}

async function search(tool: SearchTool, parameters: Record<string, unknown>) {
  const { instanceId } = await tool.create();
  const result = await tool.execute(instanceId, parameters);
  await tool.release(instanceId);
  return result;
}

describe('SearchTool, as verl’s verl.tools.search_tool.SearchTool', () => {
  it("loads verl's config file and shows the model verl's schema", async () => {
    const [tool] = await loadToolsFromYaml(VERL_SEARCH_CONFIG(url));
    opened.push(tool as SearchTool);
    expect(tool).toBeInstanceOf(SearchTool);
    expect((tool as SearchTool).settings).toMatchObject({ topk: 3, num_workers: 120, rate_limit: 120 });
    expect(toolSchemaJson(tool!.schema)).toBe(
      '{"type": "function", "function": {"name": "search", "description": "Searches the web for relevant information based on the given query.", "parameters": {"type": "object", "properties": {"query_list": {"type": "array", "description": "A list of fully-formed semantic queries. The tool will return search results for each query.", "enum": null}}, "required": ["query_list"]}, "strict": false}}',
    );
  });

  it("sends Search-R1's request and answers with verl's text, byte for byte, on edge cases", async () => {
    const cases: Document[][][] = [
      [
        [
          doc('1', '"Paris"\nParis is the capital of France.'),
          doc('2', '"Seine"\nA river.\nIt flows north.'),
        ],
      ],
      [[doc('1', '"Hamlet"\nA play.')], [], [doc('7', 'no newline at all')]],
      [
        [doc('1', '  "Padded"  \n\ttext with tabs\t\n\n')],
        [doc('2', '"Ünïcödé — 東京"\nquotes " and \\ backslash')],
      ],
      [[doc('3', '"Control"\nbell \u0007 and escape \u001b, line\u2028separator')]],
      [[doc('4', '\u00a0"nbsp-led title"\ntext\u3000')]],
      [],
    ];
    const expected = JSON.parse(
      execFileSync('/usr/bin/python3', [REFERENCE], { input: JSON.stringify(cases), encoding: 'utf8' }),
    ) as string[];
    const tool = searchTool({ topk: 2 });
    for (const [index, result] of cases.entries()) {
      answers = [{ body: { result } }];
      const queries = result.length === 0 ? ['q'] : result.map((_, query) => `query ${query}`);
      const { response, reward, metrics } = await search(tool, { query_list: queries });
      expect(response.text).toBe(expected[index]);
      expect(reward).toBe(0);
      expect(metrics).toMatchObject({
        query_count: queries.length,
        status: result.length === 0 ? 'no_results' : 'success',
        total_results: result.reduce((sum, documents) => sum + documents.length, 0),
        api_request_error: null,
      });
      expect(requests.at(-1)?.body).toEqual({ queries, topk: 2, return_scores: true });
    }
  });

  it('answers a missing, empty or non-list query_list as verl does, without a request', async () => {
    const tool = searchTool();
    const before = requests.length;
    for (const parameters of [{}, { query_list: [] }, { query_list: 'paris' }]) {
      const { response, metrics } = await search(tool, parameters);
      expect(response.text).toBe(
        '{"result": "Error: \'query_list\' is missing, empty, or not a list in parameters."}',
      );
      expect(metrics).toEqual({});
    }
    expect(requests).toHaveLength(before);
  });

  it("tells the model the service's reason for a refusal, and does not retry it", async () => {
    const tool = searchTool();
    answers = [{ status: 404, body: { detail: 'no corpus named "wiki"; imported: hotpot', code: 'X' } }];
    const before = requests.length;
    const { response, metrics } = await search(tool, { query_list: ['paris'] });
    expect(requests).toHaveLength(before + 1);
    expect(JSON.parse(response.text!)).toEqual({
      result: `Search error: HTTP 404 from ${url}: no corpus named "wiki"; imported: hotpot`,
    });
    expect(metrics).toMatchObject({ status: 'api_error', total_results: 0 });
    expect(metrics.api_request_error).toContain('HTTP 404');
  });

  it('retries an overloaded service (429 with Retry-After, 503) and then answers', async () => {
    const tool = searchTool({ max_retries: 2 });
    answers = [
      { status: 429, body: { detail: 'no search permit came in time' }, headers: { 'retry-after': '1' } },
      { status: 503, body: 'down' },
      { body: { result: [[doc('1', '"Paris"\nCapital.')]] } },
    ];
    const before = requests.length;
    const { response, metrics } = await search(tool, { query_list: ['paris'] });
    expect(requests).toHaveLength(before + 3);
    expect(response.text).toBe('{"result": "Doc 1 (Title: \\"Paris\\")\\nCapital."}');
    expect(metrics.status).toBe('success');
  });

  it('gives up after max_retries, saying what the last attempt met', async () => {
    const tool = searchTool({ max_retries: 1 });
    answers = [
      { status: 502, body: 'bad gateway' },
      { status: 502, body: '' },
    ];
    const { response } = await search(tool, { query_list: ['paris'] });
    expect(JSON.parse(response.text!)).toEqual({
      result: `Search error: HTTP 502 from ${url}: (empty body)`,
    });
  });

  it('times an attempt out after default_timeout seconds', async () => {
    const tool = searchTool({ max_retries: 0, default_timeout: 0.2 });
    answers = [{ body: { result: [] }, delayMs: 2_000 }];
    const { response, metrics } = await search(tool, { query_list: ['slow'] });
    expect(JSON.parse(response.text!)).toEqual({ result: `Search error: no answer from ${url} in 0.2 s` });
    expect(metrics.status).toBe('api_error');
    // The service still answers the abandoned request; later tests count requests in flight.
    await vi.waitFor(() => expect(inFlight).toBe(0), { timeout: 10_000 });
  });

  it('reports an unreachable service and an answer that is not the retrieval shape', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/retrieve`;
    closed.close();
    const down = searchTool({ retrieval_service_url: downUrl, max_retries: 0 });
    const unreachable = await search(down, { query_list: ['paris'] });
    expect(JSON.parse(unreachable.response.text!)).toEqual({
      result: `Search error: cannot reach ${downUrl}: ECONNREFUSED`,
    });

    const tool = searchTool();
    answers = [{ body: { result: [[{ id: '1', contents: 'documents without scores' }]] } }];
    const { response, metrics } = await search(tool, { query_list: ['paris'] });
    expect(metrics.status).toBe('processing_error');
    expect((JSON.parse(response.text!) as { result: string }).result).toMatch(
      /^Error processing search results: /,
    );
  });

  it('sends the given headers, and holds a permit of the global limiter for each search', async () => {
    const limiter = createLocalLimiter({ limit: 1, key: 'test.search' });
    const tool = searchTool({}, { headers: { authorization: 'Bearer secret' }, limiter });
    answers = [
      { body: { result: [[]] }, delayMs: 100 },
      { body: { result: [[]] }, delayMs: 100 },
      { body: { result: [[]] }, delayMs: 100 },
    ];
    peakInFlight = 0;
    const results = await Promise.all(['a', 'b', 'c'].map((query) => search(tool, { query_list: [query] })));
    expect(results.map(({ response }) => response.text)).toEqual(Array(3).fill('{"result": ""}'));
    expect(peakInFlight).toBe(1);
    expect(requests.at(-1)?.headers.authorization).toBe('Bearer secret');
    await limiter.close();

    const unlimited = searchTool({ enable_global_rate_limit: false, num_workers: 3 });
    answers = [0, 1, 2].map(() => ({ body: { result: [[]] }, delayMs: 300 }));
    peakInFlight = 0;
    await Promise.all(['a', 'b', 'c'].map((query) => search(unlimited, { query_list: [query] })));
    expect(peakInFlight).toBe(3);
  });

  it('refuses a config without a usable retrieval_service_url, naming the key', () => {
    expect(() => new SearchTool({})).toThrow('config.retrieval_service_url: missing required key');
    expect(() => new SearchTool({ retrieval_service_url: 'ftp://x/retrieve' })).toThrow(
      'config.retrieval_service_url: expected the http(s) URL of /retrieve',
    );
  });
});
