import type { Language } from '@fusebox/sandbox-client/protocol';
import profiles from './runtime-profiles.json' with { type: 'json' };

/** What one language needs installed, as runtime-profiles.json (shared with `npm run setup`) describes it. */
export type RuntimeProfile =
  | {
      /** Debian packages holding its toolchain and libraries. */
      debian: string[];
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

/** The languages `npm start` installs when FUSEBOX_LANGUAGES is unset. */
export const DEFAULT_PROFILE = profiles.default as Language[];

/** The command that installs a language's toolchain, as users are told when it is missing. */
export function setupCommand(language: Language): string {
  return `npm run setup -- --languages ${language}`;
}
