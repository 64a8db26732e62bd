import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './serve-process';

describe('the fusebox CLI', () => {
  it('lists its commands with --help and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toContain('db migrate');
  });

  it('shows a command’s own options with --help', async () => {
    const result = await runCli(['serve', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--no-dashboard');
  });

  it('prints its version, the one in its package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({
        code: 0,
        stdout: `fusebox ${version}\n`,
      });
    }
  });

  it('setup refuses a language it cannot install, naming it and why, before installing anything', async () => {
    const unknown = await runCli(['setup', '--languages', 'python,cobol']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown language "cobol" in --languages');
    const unavailable = await runCli(['setup', '--languages', 'julia']);
    expect(unavailable.code).toBe(2);
    expect(unavailable.stderr).toContain(
      'julia cannot be installed here: no Debian 12 or npm package provides Julia',
    );
  });

  it('prints usage and exits 2 for an unknown command', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toContain('usage: fusebox');
  });

  it('prints the command’s usage and exits 2 for an unknown flag', async () => {
    const result = await runCli(['serve', '--colour=blue']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--colour'");
    expect(result.stderr).toContain('usage: fusebox serve');
  });

  it('names the flag or command a misspelled one was likely meant to be, and lists a group alone', async () => {
    const flag = await runCli(['serve', '--no-dashbord']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--no-dashbord'");
    expect(flag.stderr).toContain('did you mean --no-dashboard?');
    const command = await runCli(['rollout', 'import', 'dir']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "rollout import dir"; did you mean "rollouts"?');
    const group = await runCli(['rollouts']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('"rollouts" names no command; rollouts has: fusebox rollouts import');
    const far = await runCli(['frobnicate']);
    expect(far.stderr).not.toContain('did you mean');
  });

  it('names each malformed environment variable and exits 2', async () => {
    const result = await runCli(['serve'], { PORT: 'abc', DATABASE_URL: 'not-a-url' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PORT="abc": expected a port number');
    expect(result.stderr).toContain('DATABASE_URL="not-a-url": expected a postgresql:// URL');
  });

  it('fails with one clear line, without retrying for long, when Postgres is unreachable', async () => {
    const result = await runCli(['serve', '--no-dashboard'], {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:9/fusebox',
    });
    expect(result.code).toBe(1);
    // A bound on hangs, not a speed target: the CLI alone takes seconds to start on a loaded two-core machine.
    expect(result.ms).toBeLessThan(60_000);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('cannot reach Postgres at postgresql://postgres@127.0.0.1:9/fusebox');
    expect(lines[0]).toContain('pg_ctlcluster');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
