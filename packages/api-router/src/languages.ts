/**
 * One SandboxFusion language as this server runs it (what `GET /v1/languages` answers): its toolchain's version,
 * or why it cannot run here and how to install it.
 */
export interface LanguageRow {
  language: string;
  available: boolean;
  version: string | null;
  libraries: string | null;
  reason: string | null;
}
