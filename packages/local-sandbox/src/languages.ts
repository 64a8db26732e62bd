import type { Language } from '@fusebox/sandbox-client/protocol';
import { randomName } from './random-name';

/** How one language runs: where the code goes, and the commands of its compile and run steps. */
export interface LanguageRunner {
  kind: 'runner';
  /** The file the code is written to, relative to the working directory. */
  sourceFile(): string;
  /** Commands that must exist in the sandbox; the first missing one is named in the `command not found` answer. */
  requires: readonly string[];
  compile?(source: string): string[];
  /** The run step; `code` is the submitted code, for languages whose command depends on it. */
  run(source: string, code: string): string[];
  /** Rewrites the code before it is written (PHP needs its opening tag). */
  prepare?(code: string): string;
}

/**
 * A language whose SandboxFusion runner needs assets this executor does not ship (a .NET SDK, jest's
 * node_modules, a GPU): it always answers the way SandboxFusion does when the toolchain is missing.
 */
export interface UnsupportedLanguage {
  kind: 'unsupported';
  /** The command reported as not found. */
  missing: string;
  /** Which step SandboxFusion's runner would have failed in. */
  step: 'compile' | 'run';
}

const file = (extension: string) => () => `${randomName()}${extension}`;

const interpreted = (
  extension: string,
  command: string[],
  requires = [command[0] as string],
): LanguageRunner => ({
  kind: 'runner',
  sourceFile: file(extension),
  requires,
  run: (source) => [...command, source],
});

const compiled = (
  extension: string,
  compile: (source: string) => string[],
  run: string[],
  requires: string[],
): LanguageRunner => ({ kind: 'runner', sourceFile: file(extension), requires, compile, run: () => run });

/**
 * Every language SandboxFusion accepts, run the way its runners run them. Python is Debian's /usr/bin/python3;
 * TypeScript is transpiled on the host (see `transpileTypeScript`) and runs on Node, so no part of a TypeScript
 * toolchain, and nothing of this checkout, has to be visible inside the sandbox.
 */
export const LANGUAGE_RUNNERS: Record<Language, LanguageRunner | UnsupportedLanguage> = {
  python: interpreted('.py', ['/usr/bin/python3']),
  pytest: interpreted('.py', ['pytest']),
  bash: interpreted('.sh', ['bash']),
  nodejs: interpreted('.js', ['node']),
  typescript: interpreted('.ts', ['node', '--enable-source-maps']),
  cpp: compiled('.cpp', (source) => ['g++', '-std=c++17', source, '-o', 'test'], ['./test'], ['g++']),
  rust: compiled('.rs', (source) => ['rustc', source, '-o', 'test'], ['./test'], ['rustc']),
  go: compiled('.go', (source) => ['go', 'build', '-o', 'out', source], ['./out'], ['go']),
  go_test: interpreted('_test.go', ['go', 'test']),
  java: {
    kind: 'runner',
    sourceFile: () => 'Main.java',
    requires: ['javac', 'java'],
    compile: (source) => ['javac', '-cp', '.', source],
    run: () => ['java', '-cp', '.', '-ea', 'Main'],
  },
  php: {
    ...interpreted('.php', ['php', '-f']),
    prepare: (code) => (code.includes('<?php') ? code : `<?php\n${code}`),
  },
  lua: interpreted('.lua', ['lua']),
  R: interpreted('.R', ['Rscript']),
  perl: interpreted('.pl', ['perl']),
  ruby: interpreted('.rb', ['ruby']),
  julia: interpreted('.jl', ['julia']),
  racket: interpreted('.rkt', ['racket']),
  kotlin_script: interpreted('.kts', ['kotlin']),
  D_ut: compiled('.d', (source) => ['dmd', source, '-unittest', '-of=test'], ['./test'], ['dmd']),
  swift: compiled('.swift', (source) => ['swiftc', source, '-o', 'test.out'], ['./test.out'], ['swiftc']),
  verilog: compiled(
    '.sv',
    (source) => [
      'iverilog',
      '-Wall',
      '-Winfloop',
      '-Wno-timescale',
      '-g2012',
      '-s',
      'tb',
      '-o',
      'test.vvp',
      source,
    ],
    ['vvp', '-n', 'test.vvp'],
    ['iverilog', 'vvp'],
  ),
  scala: {
    kind: 'runner',
    sourceFile: file('.scala'),
    requires: ['scalac', 'scala'],
    compile: (source) => ['scalac', source],
    run: (_source, code) => ['scala', /object\s+(\w+)/.exec(code)?.[1] ?? 'Main'],
  },
  csharp: { kind: 'unsupported', missing: 'dotnet', step: 'run' },
  jest: { kind: 'unsupported', missing: 'jest', step: 'run' },
  junit: { kind: 'unsupported', missing: 'junit', step: 'run' },
  lean: { kind: 'unsupported', missing: 'lake', step: 'run' },
  sql: { kind: 'unsupported', missing: 'sql', step: 'run' },
  cuda: { kind: 'unsupported', missing: 'nvidia-smi', step: 'compile' },
  python_gpu: { kind: 'unsupported', missing: 'nvidia-smi', step: 'compile' },
};

/** What bash prints when a command does not exist, as SandboxFusion's runners (which use bash) report it. */
export function commandNotFound(command: string): string {
  return `/bin/bash: line 1: ${command}: command not found\n`;
}
