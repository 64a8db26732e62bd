import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import type { Executor } from '@fusebox/local-sandbox/executor';
import { LANGUAGES } from '@fusebox/sandbox-client/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env';
import { languagesResponseSchema } from '../src/routes/languages';
import { createServerExecutor } from '../src/sandbox-executor';
import { buildServer } from '../src/server';

describe('GET /v1/languages', () => {
  let database: TestDatabase;
  let opened: Database;
  let executor: Executor;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    const env = readEnv({ ...database.env, FUSEBOX_EXECUTOR_CONCURRENCY: '1' });
    executor = await createServerExecutor(env);
    app = await buildServer(
      { env, prisma: opened.prisma, startedAt: new Date(), executor },
      { logger: false },
    );
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await executor?.close();
    await opened?.close();
    await database?.drop();
  });

  it('lists every language with its version, and each unavailable one answers /run_code with its reason', async () => {
    const response = await fetch(`${base}/v1/languages`);
    expect(response.status).toBe(200);
    const { languages } = languagesResponseSchema.parse(await response.json());
    expect(languages.map((entry) => entry.language)).toEqual([...LANGUAGES]);
    const bash = languages.find((entry) => entry.language === 'bash');
    expect(bash?.available).toBe(true);
    expect(bash?.version).toContain('GNU bash');
    const julia = languages.find((entry) => entry.language === 'julia');
    expect(julia).toMatchObject({ available: false, version: null });

    const run = await fetch(`${base}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'println(1)', language: 'julia' }),
    });
    // As SandboxFusion answers its own sandbox errors: HTTP 200, status SandboxError, the reason in `message`.
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({
      status: 'SandboxError',
      message: julia?.reason,
      run_result: null,
    });
  });

  const runCode = async (body: object) => {
    const response = await fetch(`${base}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ compile_timeout: 120, run_timeout: 60, ...body }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as {
      status: string;
      message: string;
      compile_result: { status: string; return_code: number | null; stderr: string } | null;
      run_result: { stdout: string; stderr: string } | null;
    };
  };
  const available = async (language: string) => {
    const response = await fetch(`${base}/v1/languages`);
    const { languages } = languagesResponseSchema.parse(await response.json());
    return languages.find((entry) => entry.language === language)?.available === true;
  };

  // verl sends memory_limit_MB=1024 with every call; a default JVM reserves more address space than that.
  const JVM_PROGRAMS = {
    java: 'public class Main { public static void main(String[] a) { int[] big = new int[10_000_000]; big[1] = 42; System.out.println("hello " + big[1]); } }',
    junit:
      'import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\nclass HelloTest {\n  @Test\n  void hello() { System.out.println("hello " + 42); assertEquals(42, 21 * 2); }\n}\n',
    scala: 'object Hello {\n  def main(args: Array[String]): Unit = println("hello " + 42)\n}',
    kotlin_script: 'println("hello " + 42)',
  };
  it.each(Object.entries(JVM_PROGRAMS))(
    '%s runs under memory_limit_MB 1024 and 512, and says what limit its JVM needs under 256',
    async (language, code) => {
      if (!(await available(language))) return;
      for (const memory_limit_MB of [1024, 512]) {
        const answer = await runCode({ code, language, memory_limit_MB });
        expect(answer.status, JSON.stringify(answer)).toBe('Success');
        expect(answer.run_result?.stdout).toContain('hello 42');
      }
      const tooSmall = await runCode({ code, language, memory_limit_MB: 256 });
      expect(tooSmall).toMatchObject({ status: 'SandboxError', compile_result: null, run_result: null });
      expect(tooSmall.message).toMatch(
        new RegExp(`^${language} cannot start under memory_limit_MB=256: .*needs memory_limit_MB >= \\d+`),
      );
    },
    240_000,
  );

  it('java under a limit still fails as Java does when the program outgrows its heap', async () => {
    if (!(await available('java'))) return;
    const answer = await runCode({
      code: 'public class Main { public static void main(String[] a) { long[] big = new long[200_000_000]; System.out.println(big.length); } }',
      language: 'java',
      memory_limit_MB: 1024,
    });
    expect(answer.status).toBe('Failed');
    expect(answer.run_result?.stderr).toContain('java.lang.OutOfMemoryError: Java heap space');
  }, 120_000);

  it('scala without an object answers SandboxFusion\'s SandboxError "Object name not found."', async () => {
    const answer = await runCode({ code: 'println("no object")', language: 'scala' });
    if (!(await available('scala'))) return;
    expect(answer).toMatchObject({
      status: 'SandboxError',
      message: 'Object name not found.',
      compile_result: { status: 'Error', return_code: 1, stderr: 'Object name not found.' },
      run_result: null,
    });
  });

  it('puts the .jar files sent in `files` on the class path of java and junit, as SandboxFusion does', async () => {
    if (!(await available('java'))) return;
    // A library the program imports, built here as a client would ship it.
    const dir = mkdtempSync(join(tmpdir(), 'fusebox-jar-'));
    try {
      const source = join(dir, 'greet', 'Greeter.java');
      execFileSync('mkdir', ['-p', join(dir, 'greet')]);
      writeFileSync(
        source,
        'package greet;\npublic class Greeter { public static String hello(int n) { return "hello " + n; } }\n',
      );
      execFileSync('javac', ['-d', join(dir, 'classes'), source]);
      execFileSync('jar', ['cf', join(dir, 'greet.jar'), '-C', join(dir, 'classes'), '.']);
      const files = { 'lib/greet.jar': readFileSync(join(dir, 'greet.jar')).toString('base64') };
      const java = await runCode({
        language: 'java',
        code: 'import greet.Greeter;\npublic class Main { public static void main(String[] a) { System.out.println(Greeter.hello(42)); } }',
        files,
        memory_limit_MB: 1024,
      });
      expect(java.status, JSON.stringify(java)).toBe('Success');
      expect(java.run_result?.stdout).toBe('hello 42\n');
      const without = await runCode({
        language: 'java',
        code: 'import greet.Greeter;\npublic class Main { public static void main(String[] a) { System.out.println(Greeter.hello(42)); } }',
      });
      expect(without.compile_result?.stderr).toContain('package greet does not exist');
      if (!(await available('junit'))) return;
      const junit = await runCode({
        language: 'junit',
        code: 'import greet.Greeter;\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\nclass GreeterTest {\n  @Test\n  void greets() { assertEquals("hello 42", Greeter.hello(42)); }\n}\n',
        files,
      });
      expect(junit.status, JSON.stringify(junit)).toBe('Success');
      expect(junit.run_result?.stdout).toMatch(/1 tests successful/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
