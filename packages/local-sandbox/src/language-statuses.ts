import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { LANGUAGES, type Language } from '@fusebox/sandbox-client/protocol';
import { LANGUAGE_RUNNERS } from './languages';
import { RUNTIME_PROFILES, setupCommand } from './runtime-profiles';
import type { SandboxLauncher } from './sandbox-launcher';

/** Whether a language runs here: its toolchain's version, or why it does not. */
export interface LanguageStatus {
  language: Language;
  available: boolean;
  /** The first line its toolchain prints for its version; null when unavailable or when that command fails. */
  version: string | null;
  /** Libraries its profile installs beyond the toolchain. */
  libraries: string | null;
  /** Why it cannot run, with what to do about it; null when available. */
  reason: string | null;
}

/** A toolchain that takes longer than this to print its version (a JVM on a busy machine) is reported without. */
const VERSION_TIMEOUT_MS = 30_000;

/**
 * Why `language` cannot run on this machine, or undefined when it can: nothing here provides it, or its
 * toolchain is not installed (with the command that installs it).
 */
export function unavailableReason(language: Language, launcher: SandboxLauncher): string | undefined {
  const profile = RUNTIME_PROFILES[language];
  if ('unavailable' in profile) return `${language} is not available on Fusebox: ${profile.unavailable}`;
  const runner = LANGUAGE_RUNNERS[language];
  if (!runner) return `${language} is not available on Fusebox: no runner is defined for it`;
  const missing =
    runner.requires.find((command) => !launcher.has(command)) ??
    runner.requiresFiles?.find((path) => !existsSync(path));
  if (missing === undefined) return undefined;
  const packages = profile.debian.length > 0 ? ` (Debian: ${profile.debian.join(' ')})` : '';
  return (
    `${language} is not installed on this server (${missing} not found): ` +
    `install it with \`${setupCommand(language)}\`${packages}`
  );
}

/**
 * Reports every SandboxFusion language, asking each installed toolchain its version once (a cache per
 * launcher: versions do not change under a running server, but a toolchain may be installed while it runs).
 */
export class LanguageStatuses {
  readonly #launcher: SandboxLauncher;
  readonly #versions = new Map<string, Promise<string | null>>();

  constructor(launcher: SandboxLauncher) {
    this.#launcher = launcher;
  }

  async list(): Promise<LanguageStatus[]> {
    return Promise.all(LANGUAGES.map((language) => this.#status(language)));
  }

  async #status(language: Language): Promise<LanguageStatus> {
    const profile = RUNTIME_PROFILES[language];
    const libraries = 'libraries' in profile ? (profile.libraries ?? null) : null;
    const reason = unavailableReason(language, this.#launcher);
    if (reason !== undefined || 'unavailable' in profile) {
      return { language, available: false, version: null, libraries, reason: reason ?? null };
    }
    const version = await this.#version(profile.version);
    return { language, available: true, version, libraries, reason: null };
  }

  #version(argv: string[]): Promise<string | null> {
    const [command, ...args] = argv as [string, ...string[]];
    const path = this.#launcher.locate(command);
    if (path === undefined) return Promise.resolve(null);
    const key = [path, ...args].join('\0');
    let version = this.#versions.get(key);
    if (!version) {
      version = new Promise((resolve) => {
        execFile(path, args, { timeout: VERSION_TIMEOUT_MS }, (error, stdout, stderr) => {
          const line = `${stdout}\n${stderr}`
            .split('\n')
            .map((text) => text.trim())
            // A JVM's deprecation warning may come first (kotlinc).
            .find((text) => text !== '' && !/warning/i.test(text));
          resolve(error || line === undefined ? null : line);
        });
      });
      this.#versions.set(key, version);
    }
    return version;
  }
}
