import { describe, expect, it } from 'vitest';
import { baseSearch, navigating, settle } from '../src/components/pending-search';

const search = (text: string) => new URLSearchParams(text);

describe('baseSearch', () => {
  it('builds on the last navigation while the page still shows what it showed then', () => {
    navigating('/runs', search('min=2'), 'pred=28');
    expect(baseSearch('/runs', search('min=2')).toString()).toBe('pred=28');
  });

  it('builds on what is shown once the navigation arrived, and forgets it', () => {
    navigating('/runs', search('min=2'), '');
    expect(baseSearch('/runs', search('')).toString()).toBe('');
    expect(baseSearch('/runs', search('min=2')).toString()).toBe('min=2');
  });

  it('forgets a navigation that arrived, so that going back to where it started does not bring it back', () => {
    navigating('/executions', search(''), 'language=python');
    settle('/executions', search('language=python'));
    // Back, or the "All executions" link: the page shows '' again, as it did when the navigation started.
    settle('/executions', search(''));
    expect(baseSearch('/executions', search('')).toString()).toBe('');
  });

  it('builds on what is shown after Back, a link or another page', () => {
    navigating('/runs', search('min=2'), '');
    expect(baseSearch('/runs', search('min=5')).toString()).toBe('min=5');
    navigating('/runs', search('min=2'), '');
    expect(baseSearch('/executions', search('min=2')).toString()).toBe('min=2');
  });
});
