import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { Language } from '@fusebox/sandbox-client/protocol';
import { JVM_PROGRAM, type JvmFootprint } from './jvm-memory';
import { randomName } from './random-name';
import { JEST_CONFIG_FILES } from './jest-config';
import { RUNTIME_GO_CACHE, RUNTIME_NODE_MODULES } from './runtime-profiles';

/** What a run's commands may depend on besides the source file. */
export interface StepContext {
  /** The submitted code, for languages whose command depends on it. */
  code: string;
  /** The options that fit a JVM under the run's memory limit (see `jvmLimits`); none without a limit. */
  jvmOptions: readonly string[];
  /** The `.jar` files sent in `files` (relative paths), which SandboxFusion adds to Java's class path. */
  jars: readonly string[];
}

/** How one language runs: where the code goes, and the commands of its compile and run steps. */
export interface LanguageRunner {
  /** The file `code` is written to, relative to the working directory. */
  sourceFile(code?: string): string;
  /** Commands that must exist in the sandbox; without them the language is unavailable (see `languageStatuses`). */
  requires: readonly string[];
  /** Files (absolute) that must exist too, such as a jar the run step loads. */
  requiresFiles?: readonly string[];
  compile?(source: string, context: StepContext): string[];
  run(source: string, context: StepContext): string[];
  /** How the run step's JVM fits under a memory limit, for languages whose run step is a JVM. */
  jvm?: JvmFootprint;
  /** Why this code cannot run at all (answered as SandboxError, as SandboxFusion does), if it cannot. */
  refuse?(code: string): string | undefined;
  /** Rewrites the code before it is written (PHP needs its opening tag). */
  prepare?(code: string): string;
  /** Whether the runtime profile's npm packages are linked into the working directory as `node_modules`. */
  nodeModules?: boolean;
  /** Files written into the working directory before the request's own (which may replace them). */
  workdirFiles?: Readonly<Record<string, string>>;
}

/**
 * SandboxFusion's optional C++ link flags (code calling OpenSSL's `MD5()` links), given where OpenSSL's headers
 * are installed (the cpp profile's libssl-dev): linking -lssl without them would fail every program.
 */
const CPP_LINK_FLAGS = existsSync('/usr/include/openssl/ssl.h')
  ? ['-lssl', '-lcrypto', '-lpthread']
  : ['-lpthread'];

/**
 * Go in GOPATH mode over Debian's Go sources (/usr/share/gocode), where the go_test profile's testify lives:
 * SandboxFusion's go.mod requires testify from a module proxy, which a sandbox without network cannot reach.
 * Its build cache starts as a copy of the one setup warmed (RUNTIME_GO_CACHE): testify compiled in a fresh
 * sandbox took 22 s here, from the copy under 2 s.
 */
const GO = [
  '/bin/sh',
  '-c',
  '[ -d "$0" ] && [ ! -e /tmp/.fusebox-gocache ] && cp -R "$0" /tmp/.fusebox-gocache; ' +
    'exec env GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/.fusebox-gocache go "$@"',
  RUNTIME_GO_CACHE,
];

/** SandboxFusion puts javatuples on Java's class path; the java profile installs Debian's (libjavatuples-java). */
const JAVATUPLES = '/usr/share/java/javatuples.jar';
/** JUnit 5's console launcher (Debian's junit5), which SandboxFusion's junit runner runs its tests with. */
const JUNIT_CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
/** Java's class path, as SandboxFusion's: the working directory, the runtime's jars, then the jars sent. */
const classPath = (runtime: readonly string[], { jars }: StepContext) => ['.', ...runtime, ...jars].join(':');

/** JVM options as the scala and kotlinc launcher scripts take them (each behind `-J`). */
const launcherOptions = (jvmOptions: readonly string[]) => jvmOptions.map((option) => `-J${option}`);

/** The object a Scala program runs, found as SandboxFusion finds it: the first `object NAME`. */
const scalaObject = (code: string) => /object\s+(\w+)/.exec(code)?.[1];

/** Debian's /etc/ldc2.conf for x86-64: Phobos and druntime, shared, from /usr. */
const LDC_CONFIG = `default:
{
    switches = ["-defaultlib=phobos2-ldc,druntime-ldc", "-link-defaultlib-shared"];
    post-switches = ["-I/usr/lib/ldc/x86_64-linux-gnu/include/d", "-I/usr/include/d"];
    lib-dirs = ["/usr/lib"];
    rpath = "";
};
`;

/** What a compiled Kotlin script needs on its class path (Debian's kotlin package). */
const KOTLIN_RUNTIME = ['/usr/share/java/kotlin-stdlib.jar', '/usr/share/java/kotlin-script-runtime.jar'];
const KOTLIN_SCRIPT_MAIN_FILE = 'FuseboxScriptMain.kt';
/**
 * A compiled script is a class whose constructor runs it: this main constructs it, and lets what the script
 * throws end the program as an uncaught exception of the script would.
 */
const KOTLIN_SCRIPT_MAIN = `fun main(args: Array<String>) {
    val script = Class.forName(args[0])
    try {
        script.getConstructor(Array<String>::class.java).newInstance(args.copyOfRange(1, args.size))
    } catch (e: java.lang.reflect.InvocationTargetException) {
        throw e.targetException
    }
}
`;
/** The class kotlinc names a script after: its file's name, capitalised (random names are valid identifiers). */
const kotlinScriptClass = (source: string) => {
  const name = basename(source, '.kts');
  return name.charAt(0).toUpperCase() + name.slice(1);
};

/** jest's command line, from the runtime profile's npm packages (the jest profile installs it). */
const JEST = `${RUNTIME_NODE_MODULES}/jest/bin/jest.js`;

const file = (extension: string) => () => `${randomName()}${extension}`;

const interpreted = (
  extension: string,
  command: string[],
  requires = [command[0] as string],
): LanguageRunner => ({
  sourceFile: file(extension),
  requires,
  run: (source) => [...command, source],
});

const compiled = (
  extension: string,
  compile: (source: string) => string[],
  run: string[],
  requires: string[],
): LanguageRunner => ({ sourceFile: file(extension), requires, compile, run: () => run });

/**
 * The languages this executor can run, run the way SandboxFusion's runners run them (the others are
 * unavailable: see runtime-profiles.json). Python is Debian's /usr/bin/python3;
 * TypeScript is transpiled on the host (see `transpileTypeScript`) and runs on Node, so no part of a TypeScript
 * toolchain, and nothing of this checkout, has to be visible inside the sandbox.
 */
export const LANGUAGE_RUNNERS: Partial<Record<Language, LanguageRunner>> = {
  python: interpreted('.py', ['/usr/bin/python3']),
  pytest: interpreted('.py', ['pytest']),
  bash: interpreted('.sh', ['bash']),
  nodejs: { ...interpreted('.js', ['node']), nodeModules: true },
  typescript: { ...interpreted('.ts', ['node', '--enable-source-maps']), nodeModules: true },
  cpp: compiled(
    '.cpp',
    (source) => ['g++', '-std=c++17', source, '-o', 'test', ...CPP_LINK_FLAGS],
    ['./test'],
    ['g++'],
  ),
  rust: compiled('.rs', (source) => ['rustc', source, '-o', 'test'], ['./test'], ['rustc']),
  go: compiled('.go', (source) => [...GO, 'build', '-o', 'out', source], ['./out'], ['go']),
  go_test: interpreted('_test.go', [...GO, 'test'], ['go']),
  java: {
    sourceFile: () => 'Main.java',
    requires: ['javac', 'java'],
    compile: (source, context) => ['javac', '-cp', classPath([JAVATUPLES], context), source],
    run: (_source, context) => [
      'java',
      ...context.jvmOptions,
      '-cp',
      classPath([JAVATUPLES], context),
      '-ea',
      'Main',
    ],
    jvm: JVM_PROGRAM,
  },
  junit: {
    // Named after the public class, as javac requires (SandboxFusion's rule; Main when there is none).
    sourceFile: (code = '') => `${/public\s+class\s+(\w+)/.exec(code)?.[1] ?? 'Main'}.java`,
    requires: ['javac', 'java'],
    requiresFiles: [JUNIT_CONSOLE],
    // Every .java file of the working directory, as SandboxFusion compiles `*.java` (tests may come in `files`).
    compile: (_source, context) => [
      '/bin/sh',
      '-c',
      'exec javac -cp "$0" *.java',
      classPath([JUNIT_CONSOLE, JAVATUPLES], context),
    ],
    run: (_source, context) => [
      'java',
      ...context.jvmOptions,
      '-jar',
      JUNIT_CONSOLE,
      '--class-path',
      classPath([JUNIT_CONSOLE, JAVATUPLES], context),
      '--scan-class-path',
      '--disable-banner',
    ],
    jvm: JVM_PROGRAM,
  },
  jest: {
    // Named as SandboxFusion names it, so jest's default testMatch finds it.
    sourceFile: file('.test.ts'),
    requires: ['node'],
    requiresFiles: [JEST],
    // FORCE_COLOR=0 as SandboxFusion's `npm run test` sets it: reports without escape codes.
    run: () => ['env', 'FORCE_COLOR=0', 'node', JEST],
    nodeModules: true,
    workdirFiles: JEST_CONFIG_FILES,
  },
  D_ut: {
    ...compiled(
      '.d',
      // SandboxFusion runs `dmd FILE -unittest -of=test`; LDC's ldmd2 takes dmd's flags (both are D 2.100 here).
      (source) => ['ldmd2', source, '-unittest', '-of=test'],
      ['./test'],
      ['ldmd2'],
    ),
    // LDC reads its configuration from /etc, which the sandbox does not show; the working directory comes first.
    workdirFiles: { 'ldc2.conf': LDC_CONFIG },
  },
  php: {
    ...interpreted('.php', ['php', '-f']),
    // As SandboxFusion: leading whitespace dropped (PHP would print it), the tag added unless the code opens with it.
    prepare: (code) => {
      const trimmed = code.trimStart();
      return trimmed.startsWith('<?php') ? trimmed : `<?php\n${trimmed}`;
    },
  },
  lua: interpreted('.lua', ['lua']),
  R: interpreted('.R', ['Rscript']),
  perl: interpreted('.pl', ['perl']),
  ruby: interpreted('.rb', ['ruby']),
  racket: interpreted('.rkt', ['racket']),
  kotlin_script: {
    sourceFile: file('.kts'),
    requires: ['kotlinc', 'java'],
    requiresFiles: KOTLIN_RUNTIME,
    // SandboxFusion runs `kotlin FILE`, which compiles in the run step. Debian's Kotlin 1.3 compiles scripts only
    // with kotlinc, whose JVM needs 640 MB of address space: compiled first (no memory limit, as every compile
    // step), the script's class then runs in a plain JVM, which starts under 448 MB.
    compile: (source) => ['kotlinc', source, KOTLIN_SCRIPT_MAIN_FILE, '-d', '.'],
    run: (source, { jvmOptions }) => [
      'java',
      ...jvmOptions,
      '-cp',
      ['.', ...KOTLIN_RUNTIME].join(':'),
      'FuseboxScriptMainKt',
      kotlinScriptClass(source),
    ],
    jvm: JVM_PROGRAM,
    workdirFiles: { [KOTLIN_SCRIPT_MAIN_FILE]: KOTLIN_SCRIPT_MAIN },
  },
  sql: {
    sourceFile: file('.sql'),
    requires: ['sqlite3'],
    // An in-memory database; -bail stops at the first failing statement and exits non-zero, as a script would.
    run: (source) => ['sqlite3', '-bail', ':memory:', `.read ${source}`],
  },
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
    sourceFile: file('.scala'),
    requires: ['scalac', 'scala'],
    compile: (source) => ['scalac', source],
    run: (_source, { code, jvmOptions }) => [
      'scala',
      ...launcherOptions(jvmOptions),
      scalaObject(code) ?? '',
    ],
    jvm: JVM_PROGRAM,
    // SandboxFusion's answer, word for word: the object to run is named in the code or nowhere.
    refuse: (code) => (scalaObject(code) === undefined ? 'Object name not found.' : undefined),
  },
};
