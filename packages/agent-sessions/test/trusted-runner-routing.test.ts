import { describe, expect, it } from 'vitest';
import { judgedByTrustedRunner } from '../src/trusted-test';

describe('which assert tests the trusted runner judges', () => {
  it('takes every Python test, and pytest tests whose functions it can call as pytest would', () => {
    expect(judgedByTrustedRunner('python', 'assert f(1) == 2')).toBe(true);
    expect(
      judgedByTrustedRunner('pytest', 'def test_a():\n    assert f(1) == 2\n\ndef test_b( ):\n    pass'),
    ).toBe(true);
  });

  it('leaves to pytest what needs pytest: fixtures, marks, classes, its helpers, no test function', () => {
    for (const code of [
      'def test_a(tmp_path):\n    assert f(tmp_path)',
      '@pytest.mark.parametrize("x", [1])\ndef test_a(x):\n    assert f(x)',
      'class TestF:\n    def test_a(self):\n        assert f(1) == 2',
      'import pytest\ndef test_a():\n    assert f(0.1) == pytest.approx(0.3)',
      'async def test_a():\n    assert await f()',
      'assert f(1) == 2',
    ])
      expect(judgedByTrustedRunner('pytest', code), code).toBe(false);
    expect(judgedByTrustedRunner('nodejs', 'assert(f(1) === 2)')).toBe(false);
  });
});
