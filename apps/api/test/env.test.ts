import { describe, expect, it } from 'vitest';
import { InvalidEnvironmentError } from '@fusebox/input';
import { readEnv } from '../src/env';

describe('readEnv', () => {
  it('fills every default: no DATABASE_URL means the embedded database in .fusebox', () => {
    const env = readEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env).toMatchObject({
      FUSEBOX_DATA_DIR: '.fusebox',
      HOST: '127.0.0.1',
      PORT: 8080,
      DASHBOARD_PORT: 3000,
      FUSEBOX_MAX_CONCURRENCY: 64,
      FUSEBOX_LOG_LEVEL: 'info',
    });
  });

  it('admits executions by budget by default, not by cores, and names a bad budget setting', () => {
    expect(readEnv({})).toMatchObject({
      FUSEBOX_EXECUTOR_CONCURRENCY: 256,
      FUSEBOX_EXECUTOR_QUEUE_TIMEOUT_S: 60,
      FUSEBOX_EXECUTOR_RUN_MEMORY_MB: 64,
      FUSEBOX_EXECUTOR_PROCESS_BUDGET: 8192,
      FUSEBOX_EXECUTOR_CPU_SHARES: 8192,
      FUSEBOX_EXECUTOR_RUN_CPU_CORES: 0,
    });
    expect(readEnv({}).FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB).toBeUndefined();
    expect(readEnv({ FUSEBOX_EXECUTOR_RUN_CPU_CORES: '0.5' }).FUSEBOX_EXECUTOR_RUN_CPU_CORES).toBe(0.5);
    expect(() => readEnv({ FUSEBOX_EXECUTOR_CPU_SHARES: '1' })).toThrow(/FUSEBOX_EXECUTOR_CPU_SHARES="1"/);
    expect(() => readEnv({ FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB: 'lots' })).toThrow(
      /FUSEBOX_EXECUTOR_MEMORY_BUDGET_MB="lots"/,
    );
  });

  it('limits open files per sandboxed process to 4096 by default, and names a bad limit', () => {
    expect(readEnv({}).FUSEBOX_EXECUTOR_MAX_OPEN_FILES).toBe(4096);
    expect(readEnv({ FUSEBOX_EXECUTOR_MAX_OPEN_FILES: '256' }).FUSEBOX_EXECUTOR_MAX_OPEN_FILES).toBe(256);
    expect(() => readEnv({ FUSEBOX_EXECUTOR_MAX_OPEN_FILES: '10' })).toThrow(
      /FUSEBOX_EXECUTOR_MAX_OPEN_FILES="10".*from 64 to 1048576/,
    );
  });

  it('reads the Python zygote settings, on by default, and names a bad one', () => {
    expect(readEnv({})).toMatchObject({ FUSEBOX_PYTHON_ZYGOTE: 'on', FUSEBOX_PYTHON_ZYGOTE_MAX_RUNS: 1000 });
    expect(readEnv({ FUSEBOX_PYTHON_ZYGOTE: 'off' }).FUSEBOX_PYTHON_ZYGOTE).toBe('off');
    expect(
      readEnv({ FUSEBOX_PYTHON_ZYGOTE: 'on', FUSEBOX_PYTHON_ZYGOTE_MODULES: 'math,numpy.linalg' }),
    ).toMatchObject({ FUSEBOX_PYTHON_ZYGOTE: 'on', FUSEBOX_PYTHON_ZYGOTE_MODULES: ['math', 'numpy.linalg'] });
    expect(() => readEnv({ FUSEBOX_PYTHON_ZYGOTE: 'yes' })).toThrow(
      /FUSEBOX_PYTHON_ZYGOTE="yes": expected 'on' or 'off'/,
    );
    expect(() => readEnv({ FUSEBOX_PYTHON_ZYGOTE_MODULES: 'math, os;rm' })).toThrow(
      /FUSEBOX_PYTHON_ZYGOTE_MODULES="math, os;rm": expected Python module names separated by commas/,
    );
  });

  it('treats empty strings as unset', () => {
    const env = readEnv({ PORT: '', FUSEBOX_API_TOKEN: '', DATABASE_URL: '' });
    expect(env.PORT).toBe(8080);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.FUSEBOX_API_TOKEN).toBeUndefined();
  });

  it('names every bad variable with its value', () => {
    const attempt = () =>
      readEnv({ PORT: '99999', FUSEBOX_MAX_CONCURRENCY: '0', SANDBOX_FUSION_URL: 'nope' });
    expect(attempt).toThrow(InvalidEnvironmentError);
    expect(attempt).toThrow(/PORT="99999"/);
    expect(attempt).toThrow(/FUSEBOX_MAX_CONCURRENCY="0": expected a positive integer/);
    expect(attempt).toThrow(/SANDBOX_FUSION_URL="nope"/);
  });
});
