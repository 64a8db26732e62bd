import { describe, expect, it } from 'vitest';
import { describeUnsupportedMediaType, isJsonContentType } from './json-content-type';

describe('isJsonContentType', () => {
  it('accepts application/json with or without parameters, in any case', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=utf-8')).toBe(true);
  });

  it('refuses what a web page may send cross-site, and no content type at all', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      expect(isJsonContentType(type), type).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
    expect(isJsonContentType('')).toBe(false);
  });

  it('says what was expected and what came', () => {
    expect(describeUnsupportedMediaType('text/plain')).toBe(
      'expected a JSON body with content-type application/json, got content-type "text/plain"',
    );
    expect(describeUnsupportedMediaType(undefined)).toMatch(/got content-type none$/);
  });
});
