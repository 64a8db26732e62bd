import { describe, expect, it } from 'vitest';
import { browserSearch, parseBrowserParams, parseField, sampleFilter } from '~/rollouts/browser-params';

describe('the rollout browser’s URL state', () => {
  it('round-trips every filter, so a link restores the same view', () => {
    const search =
      'step=12&line=7&sort=score_desc&min=0.5&max=1&f=acc%3Dtrue&f=len%3A100%3A&q=%22print(x&raw=1';
    const params = parseBrowserParams(new URLSearchParams(search));
    expect(params).toEqual({
      step: 12,
      line: 7,
      sort: 'score_desc',
      scoreMin: 0.5,
      scoreMax: 1,
      fields: [
        { name: 'acc', equals: 'true' },
        { name: 'len', min: 100 },
      ],
      q: '"print(x',
      raw: true,
    });
    expect(parseBrowserParams(new URLSearchParams(browserSearch(params)))).toEqual(params);
  });

  it('round-trips bounds on the response length and tool calls, and drops ones the API would refuse', () => {
    const params = parseBrowserParams(
      new URLSearchParams('sort=tool_calls_asc&len_min=100&len_max=5000&calls_min=0&calls_max=-1'),
    );
    expect(params).toMatchObject({ sort: 'tool_calls_asc', charsMin: 100, charsMax: 5000, toolCallsMin: 0 });
    expect(params.toolCallsMax).toBeUndefined();
    expect(parseBrowserParams(new URLSearchParams(browserSearch(params)))).toEqual(params);
    expect(parseBrowserParams(new URLSearchParams('len_min=1.5')).charsMin).toBeUndefined();
    expect(sampleFilter(params)).toEqual({
      sort: 'tool_calls_asc',
      charsMin: 100,
      charsMax: 5000,
      toolCallsMin: 0,
      fields: [],
    });
  });

  it('falls back to defaults for anything malformed instead of failing the page', () => {
    expect(parseBrowserParams(new URLSearchParams('step=abc&sort=sideways&min=x&f=nonsense'))).toEqual({
      step: null,
      line: null,
      sort: 'line',
      fields: [],
      q: '',
      raw: false,
    });
    expect(parseField('score::')).toBeNull();
  });

  it('leaves defaults out of links', () => {
    expect(browserSearch({ step: 3, line: null, sort: 'line', fields: [], q: '', raw: false })).toBe(
      'step=3',
    );
  });
});
