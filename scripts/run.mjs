#!/usr/bin/env node
// The one script behind the root package.json: it makes a fresh clone runnable (apt packages, npm packages,
// the generated Prisma client, the dashboard build) and then starts the product or runs the whole test suite.
// It uses only Node's standard library, because it runs before `npm ci` has installed anything.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
  mkdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBuild } from '../apps/api/bin/fresh-build.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const startedAt = Date.now();

/**
 * Debian packages the product needs at run time whatever the languages (the sandbox, its seccomp filter
 * compiler, the interpreter sessions' python3), and the extra ones only the test suite needs.
 */
const APT_RUNTIME = ['bubblewrap', 'python3', 'python3-seccomp', 'gcc', 'libc6-dev'];
const APT_TEST = ['chromium', 'python3-aiohttp', 'python3-requests'];
/** What each SandboxFusion language needs installed; shared with the executor (GET /v1/languages). */
const PROFILES = JSON.parse(
  readFileSync(join(root, 'packages', 'local-sandbox', 'src', 'runtime-profiles.json'), 'utf8'),
);

const USAGE = `usage: node scripts/run.mjs <command>

  setup [--languages LIST|all|default]
                install what the product needs (apt, npm, Prisma client, dashboard build), with the
                toolchains of the chosen languages (default: FUSEBOX_LANGUAGES, else the default profile;
                see docs/languages.md)
  start         setup, then run \`fusebox serve\` (npm start)
  test          setup, then format, lint, boundaries, typecheck, unit/integration tests and browser tests (npm test)
  demo [args]   run the demo client (apps/demo) against a running server (npm run demo)
  db-migrate    apply pending database migrations (npm run db:migrate)
  db-generate   generate the Prisma client from prisma/schema.prisma`;

function log(message) {
  process.stderr.write(`[fusebox] ${message}\n`);
}

function fail(message, code = 1) {
  log(`error: ${message}`);
  process.exit(code);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) fail(`${command} could not start: ${result.error.message}`);
  return result.status ?? 1;
}

function mustRun(command, args, options = {}) {
  const status = run(command, args, options);
  if (status !== 0) fail(`\`${[command, ...args].join(' ')}\` exited with ${status}`);
}

function sha256(...files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(existsSync(file) ? readFileSync(file) : '');
  return hash.digest('hex');
}

function isInstalled(pkg) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

function ensureAptPackages(packages) {
  const missing = packages.filter((pkg) => !isInstalled(pkg));
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    fail(
      `missing Debian packages: ${missing.join(' ')}. Install them with: sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  mustRun('apt-get', ['update', '-qq'], { env });
  mustRun('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

function ensureNpmPackages() {
  const stamp = join(root, 'node_modules', '.fusebox-install');
  const wanted = sha256(join(root, 'package-lock.json'));
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log('installing npm packages (npm ci)');
  mustRun('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(stamp, wanted);
}

function generatePrismaClient() {
  const output = join(root, 'packages', 'db', 'src', 'generated', 'prisma');
  const stamp = join(output, '.schema-hash');
  const wanted = sha256(join(root, 'prisma', 'schema.prisma'), join(root, 'package-lock.json'));
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  log('generating the Prisma client');
  // Prisma's CLI insists on a schema engine binary even for `generate`, which needs none; the engine is a
  // download that this network (and air-gapped clusters) cannot reach, so point it at any existing file.
  const env = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  };
  mustRun(join(root, 'node_modules', '.bin', 'prisma'), ['generate'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  mkdirSync(output, { recursive: true });
  writeFileSync(stamp, wanted);
}

function buildDashboard() {
  log('building the dashboard (cached after the first time)');
  mustRun(
    join(root, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', '--filter=@fusebox/dashboard', '--output-logs=errors-only'],
    {
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1' },
    },
  );
}

/**
 * The languages to install: `--languages LIST|all|default` if given, else FUSEBOX_LANGUAGES, else the default
 * profile. `all` is every language some Debian package provides.
 */
function chosenLanguages(args) {
  const flag = args.indexOf('--languages');
  const value = flag >= 0 ? args[flag + 1] : process.env.FUSEBOX_LANGUAGES;
  if (flag >= 0 && (value === undefined || value.startsWith('--')))
    fail('--languages needs a value: LIST, all or default');
  const { languages } = PROFILES;
  const installable = Object.keys(languages).filter((name) => !languages[name].unavailable);
  if (value === undefined || value.trim() === '' || value === 'default') return PROFILES.default;
  if (value === 'all') return installable;
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(name in languages)) {
      fail(
        `unknown language ${JSON.stringify(name)} in ${flag >= 0 ? '--languages' : 'FUSEBOX_LANGUAGES'}; known: ${Object.keys(languages).join(', ')}, or all / default`,
        2,
      );
    }
    if (languages[name].unavailable)
      fail(`${name} cannot be installed here: ${languages[name].unavailable}`, 2);
  }
  return names;
}

function languagePackages(names) {
  return [...new Set(names.flatMap((name) => PROFILES.languages[name].debian))];
}

/** Fails unless setup runs as root, which placing what `placement` names needs. */
function requireRoot(placement) {
  if (process.getuid?.() !== 0) fail(`${placement}, which needs root: run setup as root`);
}

/**
 * Installs the chosen languages' npm packages (pinned in runtime-profiles.json) where sandboxes see them: in
 * PROFILES.nodeModules, under the read-only /usr they bind. Skipped when the same set is installed already.
 */
function ensureRuntimeNodeModules(names) {
  const packages = [...new Set(names.flatMap((name) => PROFILES.languages[name].npm ?? []))].sort();
  if (packages.length === 0) return;
  const prefix = dirname(PROFILES.nodeModules);
  const stamp = join(prefix, '.fusebox-packages');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === packages.join('\n')) return;
  requireRoot(`the sandboxes' npm packages (${packages.join(' ')}) go in ${prefix}`);
  log(`installing the sandboxes' npm packages into ${prefix}: ${packages.join(' ')}`);
  mkdirSync(prefix, { recursive: true });
  mustRun('npm', [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--loglevel=error',
    ...packages,
  ]);
  writeFileSync(stamp, packages.join('\n'));
}

/**
 * Warms the Go build cache that go and go_test runs start from (a copy each): testify, compiled once here,
 * instead of in every fresh sandbox (22 s there).
 */
function ensureGoCache(names) {
  if (!names.includes('go_test') || existsSync(PROFILES.goCache)) return;
  requireRoot(`the Go build cache goes in ${PROFILES.goCache}`);
  log(`warming the Go build cache in ${PROFILES.goCache}`);
  const work = mkdtempSync(join(tmpdir(), 'fusebox-gocache-'));
  writeFileSync(
    join(work, 'warm_test.go'),
    'package main\nimport (\n\t"testing"\n\t"github.com/stretchr/testify/assert"\n\t"github.com/stretchr/testify/require"\n)\nfunc TestWarm(t *testing.T) { assert.True(t, true); require.True(t, true) }\n',
  );
  mkdirSync(dirname(PROFILES.goCache), { recursive: true });
  const cache = `${PROFILES.goCache}.partial`;
  rmSync(cache, { recursive: true, force: true });
  mustRun('go', ['test', 'warm_test.go'], {
    cwd: work,
    env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: cache },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Sandboxes run as other uids: they copy it, so they must be able to read all of it.
  mustRun('chmod', ['-R', 'a+rX', cache]);
  renameSync(cache, PROFILES.goCache);
  rmSync(work, { recursive: true, force: true });
}

/**
 * Builds run-init.c (the pid 1 of forked Python runs) where every sandbox sees it, when missing or stale. Mode
 * 0711: the zygotes' uids may execute it but not read it, so each copy starts undumpable (see there).
 */
function ensureRunInit() {
  const source = join(root, 'packages', 'local-sandbox', 'src', 'run-init.c');
  const stamp = `${PROFILES.runInit}.sha256`;
  const hash = sha256(source);
  if (existsSync(PROFILES.runInit) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  requireRoot(`run-init goes in ${dirname(PROFILES.runInit)}`);
  log(`building ${PROFILES.runInit}`);
  mkdirSync(dirname(PROFILES.runInit), { recursive: true });
  // Whatever the umask: the executor takes it only from a directory and file that root alone may change.
  chmodSync(dirname(PROFILES.runInit), 0o755);
  const built = `${PROFILES.runInit}.partial`;
  mustRun('cc', ['-O2', '-static', '-Wall', '-Werror', '-o', built, source]);
  chmodSync(built, 0o711);
  renameSync(built, PROFILES.runInit);
  writeFileSync(stamp, hash);
}

/** Builds the CLI into apps/api/dist when a source changed since the last build, so starts skip compiling it. */
function buildCli() {
  if (freshBuild()) return;
  log('building the fusebox CLI');
  mustRun(process.execPath, [join(root, 'apps', 'api', 'scripts', 'build.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function setup({ forTests, languages }) {
  const runtime = [...APT_RUNTIME, ...languagePackages(languages)];
  log(`languages: ${languages.join(' ')}`);
  ensureAptPackages(forTests ? [...runtime, ...APT_TEST] : runtime);
  ensureRuntimeNodeModules(languages);
  ensureGoCache(languages);
  ensureRunInit();
  ensureNpmPackages();
  generatePrismaClient();
  buildCli();
  buildDashboard();
}

/**
 * Runs the fusebox CLI as a child (its build when fresh), passing signals on so Ctrl-C and SIGTERM stop it and
 * its children cleanly.
 */
function fusebox(args) {
  runChild([join(root, 'apps', 'api', 'bin', 'fusebox.js'), ...args]);
}

/** Runs a TypeScript entry point of the workspace (the demo) as a child, passing signals on. */
function runTypeScript(entry, args) {
  runChild(['--conditions=@fusebox/source', '--import', 'tsx', entry, ...args]);
}

function runChild(argv) {
  const child = spawn(process.execPath, argv, {
    cwd: process.cwd(),
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

function formatDuration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds >= 60
    ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
    : `${seconds}s`;
}

/** The specs of a Playwright JSON report that failed (or passed only on retry), with their first error. */
function playwrightFailures(report) {
  const failures = [];
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      const results = spec.tests?.flatMap((test) => test.results ?? []) ?? [];
      const failed = results.filter((result) => result.status !== 'passed' && result.status !== 'skipped');
      if (failed.length === 0) continue;
      const message = (failed[0].error?.message ?? failed[0].status).replace(/\s+/g, ' ').slice(0, 600);
      const verdict = spec.ok ? 'flaky, passed on retry' : 'failed';
      failures.push(`${spec.file}:${spec.line} › ${spec.title} (${verdict}): ${message}`);
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report?.suites ?? []) visit(suite);
  return failures;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function test() {
  // The suite's conformance and reward probes cover every language of the `all` profile, so it installs them
  // all; FUSEBOX_LANGUAGES narrows that (and those languages' tests then fail with "not installed").
  const languages = process.env.FUSEBOX_LANGUAGES === undefined ? ['--languages', 'all'] : [];
  setup({ forTests: true, languages: chosenLanguages(languages) });
  const reports = join(root, 'node_modules', '.fusebox-reports');
  rmSync(reports, { recursive: true, force: true });
  mkdirSync(reports, { recursive: true });
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    TURBO_TELEMETRY_DISABLED: '1',
    FORCE_COLOR: '1',
  };
  const steps = [];
  const step = (name, command, args, describe, listFailures) => {
    log(`── ${name}`);
    const began = Date.now();
    const status = run(command, args, { env });
    const failures = listFailures?.() ?? [];
    steps.push({
      name,
      ok: status === 0,
      detail: describe?.(status) ?? '',
      failures,
      ms: Date.now() - began,
    });
  };

  step('format', bin('prettier'), ['--check', '--log-level=warn', '.']);
  step('lint', bin('turbo'), ['run', 'lint', '--output-logs=errors-only', '--concurrency=2', '--continue']);
  // No workspace imports a package it does not declare, and none reaches into another's files (the graph turbo
  // caches by is the one the code uses).
  step('boundaries', bin('turbo'), ['boundaries']);
  step('typecheck', bin('turbo'), [
    'run',
    'typecheck',
    '--output-logs=errors-only',
    '--concurrency=2',
    '--continue',
  ]);
  // The database-mode matrix (vitest.config.ts): every test on Postgres, then the tests that use the mode under
  // test again on the embedded database (PGlite).
  for (const mode of ['postgres', 'embedded']) {
    const vitestReport = join(reports, `vitest-${mode}.json`);
    const failuresFile = join(reports, `failures-${mode}.json`);
    env.FUSEBOX_TEST_DATABASE_MODE = mode;
    env.FUSEBOX_FAILURES_FILE = failuresFile;
    step(
      `unit+integration (${mode})`,
      bin('vitest'),
      [
        'run',
        '--reporter=default',
        '--reporter=json',
        `--reporter=${join(root, 'scripts', 'failures-reporter.mjs')}`,
        `--outputFile.json=${vitestReport}`,
      ],
      (status) => {
        const report = readJson(vitestReport);
        const failures = readJson(failuresFile)?.failures ?? [];
        const counts = report
          ? `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`
          : 'no report';
        if (failures.length > 0) return `${counts}; ${failures.length} failures listed below`;
        // Vitest also exits non-zero for what no reporter sees, such as a rejection in its own process.
        return status === 0 ? counts : `${counts}; vitest exited with ${status} and listed no failure`;
      },
      () => readJson(failuresFile)?.failures ?? [],
    );
  }
  delete env.FUSEBOX_FAILURES_FILE;
  delete env.FUSEBOX_TEST_DATABASE_MODE;
  const playwrightReport = join(reports, 'playwright.json');
  env.PLAYWRIGHT_JSON_OUTPUT_NAME = playwrightReport;
  step(
    'e2e',
    bin('playwright'),
    ['test', '-c', 'e2e/playwright.config.ts'],
    () => {
      const stats = readJson(playwrightReport)?.stats;
      return stats
        ? `${stats.expected} passed, ${stats.unexpected} failed, ${stats.flaky} flaky, ${stats.skipped} skipped`
        : 'no report';
    },
    () => playwrightFailures(readJson(playwrightReport)),
  );

  const ok = steps.every((s) => s.ok);
  const parts = steps.map((s) => `${s.name} ${s.ok ? 'ok' : 'FAILED'}${s.detail ? ` (${s.detail})` : ''}`);
  console.log(
    `\nnpm test: ${ok ? 'PASS' : 'FAIL'} in ${formatDuration(Date.now() - startedAt)}: ${parts.join('; ')}`,
  );
  // Last, so that a log cut to its tail still says what failed.
  for (const s of steps) for (const failure of s.failures) console.log(`  ${s.name}: ${failure}`);
  process.exit(ok ? 0 : 1);
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'setup':
    setup({ forTests: rest.includes('--test'), languages: chosenLanguages(rest) });
    break;
  case 'start':
    setup({ forTests: false, languages: chosenLanguages([]) });
    fusebox(['serve', ...rest]);
    break;
  case 'test':
    test();
    break;
  case 'demo':
    ensureNpmPackages();
    generatePrismaClient();
    runTypeScript(join(root, 'apps', 'demo', 'src', 'main.ts'), rest);
    break;
  case 'db-migrate':
    ensureNpmPackages();
    generatePrismaClient();
    fusebox(['db', 'migrate', ...rest]);
    break;
  case 'db-generate':
    generatePrismaClient();
    break;
  default:
    console.error(USAGE);
    process.exit(2);
}
