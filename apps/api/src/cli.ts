#!/usr/bin/env -S node --conditions=@fusebox/source --import tsx
import { parseArgs } from 'node:util';
import { isDatabaseError } from '@fusebox/db/errors';
import { InvalidEnvironmentError } from '@fusebox/input';
import { type Command, UsageError } from './commands/command';
import { corpusImportCommand } from './commands/corpus-import';
import { dbExportCommand } from './commands/db-export';
import { dbImportCommand } from './commands/db-import';
import { dbMigrateCommand } from './commands/db-migrate';
import { rolloutsImportCommand } from './commands/rollouts-import';
import { runsDeleteCommand } from './commands/runs-delete';
import { runsListCommand } from './commands/runs-list';
import { serveCommand } from './commands/serve';
import { setupCommand } from './commands/setup';
import { tasksImportCommand } from './commands/tasks-import';
import { VERSION } from './version';
import { closestWord } from './closest-word';

const COMMANDS: Command[] = [
  serveCommand,
  setupCommand,
  dbMigrateCommand,
  dbExportCommand,
  dbImportCommand,
  rolloutsImportCommand,
  runsListCommand,
  runsDeleteCommand,
  tasksImportCommand,
  corpusImportCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.path.join(' ').length)) + 2;
  return [
    'usage: fusebox <command> [options]',
    '',
    ...COMMANDS.map((command) => `  ${command.path.join(' ').padEnd(width)}${command.summary}`),
    '',
    "Run `fusebox <command> --help` for a command's options, `fusebox --version` for the version.",
  ].join('\n');
}

function commandUsage(command: Command): string {
  return [
    `usage: fusebox ${command.path.join(' ')} [options]${command.args ? ` ${command.args}` : ''}`,
    '',
    command.summary,
    '',
    ...command.help.map((line) => `  ${line}`),
  ].join('\n');
}

/**
 * Why argv names no command: a group's name alone (`fusebox rollouts`) lists the group's commands; a word that
 * is a typo of one (`fusebox rollout import`) is named with the command it was likely meant to be.
 */
function unknownCommand(argv: string[]): string {
  const [first = ''] = argv;
  const group = COMMANDS.filter((command) => command.path.length > 1 && command.path[0] === first);
  if (group.length > 0) {
    const names = group.map((command) => `fusebox ${command.path.join(' ')}`).join(', ');
    return `${JSON.stringify(argv.join(' '))} names no command; ${first} has: ${names}`;
  }
  const meant = closestWord(first, [...new Set(COMMANDS.map((command) => command.path[0]!))]);
  return `unknown command ${JSON.stringify(argv.join(' '))}${meant ? `; did you mean ${JSON.stringify(meant)}?` : ''}`;
}

/** For a flag the command does not take: the one it was likely meant to be (parseArgs names it in quotes). */
function optionHint(command: Command, error: unknown): string {
  const typed = /Unknown option '(--?[^'=]+)'/.exec((error as Error).message)?.[1];
  if (typed === undefined) return '';
  const meant = closestWord(
    typed,
    Object.keys(command.options).map((name) => `--${name}`),
  );
  return meant ? `; did you mean ${meant}?` : '';
}

/** Picks the command named by the leading words of argv; returns it with the remaining arguments. */
function resolve(argv: string[]): { command: Command; rest: string[] } | undefined {
  const matches = COMMANDS.filter((command) => command.path.every((word, index) => argv[index] === word));
  const command = matches.sort((a, b) => b.path.length - a.path.length)[0];
  return command ? { command, rest: argv.slice(command.path.length) } : undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(usage());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version')) {
    console.log(`fusebox ${VERSION}`);
    return 0;
  }
  const resolved = resolve(argv);
  if (!resolved) {
    console.error(`fusebox: ${unknownCommand(argv)}\n\n${usage()}`);
    return 2;
  }
  const { command, rest } = resolved;
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandUsage(command));
    return 0;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: Boolean(command.args),
      strict: true,
    });
    return await command.run(values, positionals);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(
        `fusebox ${command.path.join(' ')}: ${(error as Error).message}${optionHint(command, error)}\n\n${commandUsage(command)}`,
      );
      return 2;
    }
    if (error instanceof InvalidEnvironmentError) {
      console.error(`fusebox: ${error.message}`);
      return 2;
    }
    if (isDatabaseError(error)) {
      console.error(`fusebox: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('fusebox: unexpected error:', error);
    process.exit(1);
  },
);
