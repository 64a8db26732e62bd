import type { Language } from '@fusebox/sandbox-client/protocol';
import profiles from './runtime-profiles.json' with { type: 'json' };

/** What one language needs installed, as runtime-profiles.json (shared with `npm run setup`) describes it. */
export type RuntimeProfile =
  | {
      /** Debian packages holding its toolchain and libraries. */
      debian: string[];
      /** npm packages (pinned) installed in {@link RUNTIME_NODE_MODULES}. */
      npm?: string[];
      /** The command that prints its toolchain's version, looked up on the sandbox's PATH. */
      version: string[];
      libraries?: string;
    }
  | { unavailable: string };

/** Each language's profile; every SandboxFusion language has one. */
export const RUNTIME_PROFILES = profiles.languages satisfies Record<Language, RuntimeProfile> as Record<
  Language,
  RuntimeProfile
>;

/** Where setup installs the profiles' npm packages: under /usr, which every sandbox sees read-only. */
export const RUNTIME_NODE_MODULES = profiles.nodeModules;

/** The Go build cache setup warms with testify, which each go and go_test run starts from (a copy). */
export const RUNTIME_GO_CACHE = profiles.goCache;

/**
 * Where setup builds run-init.c: the pid 1 of forked Python runs, under /usr (which every sandbox sees), mode
 * 0711. Without it, a run's pid 1 is a copy of its zygote's Python.
 */
export const RUN_INIT = profiles.runInit;

/** The languages `npm start` installs when FUSEBOX_LANGUAGES is unset. */
export const DEFAULT_PROFILE = profiles.default as Language[];

/** The command that installs a language's toolchain, as users are told when it is missing. */
export function setupCommand(language: Language): string {
  return `npm run setup -- --languages ${language}`;
}
