import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from './command';

/** The checkout's setup script, which installs before npm packages exist and so stays plain Node. */
const SETUP_SCRIPT = fileURLToPath(new URL('../../../../scripts/run.mjs', import.meta.url));

export const setupCommand: Command = {
  path: ['setup'],
  summary: "install what Fusebox needs, with the toolchains of the chosen languages' runtime profiles",
  help: [
    '--languages L   comma-separated languages, `all` (every language a Debian package provides) or `default`;',
    '                without it, FUSEBOX_LANGUAGES, else the default profile (docs/languages.md)',
    'The same as `npm run setup -- --languages L`: apt packages (as root), npm packages, the Prisma client',
    'and the dashboard build, each skipped when already in place.',
  ],
  options: { languages: { type: 'string' } },
  run(values) {
    const languages = values.languages;
    const args = typeof languages === 'string' ? ['--languages', languages] : [];
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [SETUP_SCRIPT, 'setup', ...args], { stdio: 'inherit' });
      child.on('error', (error) => {
        console.error(`fusebox setup: ${error.message}`);
        resolve(1);
      });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  },
};
