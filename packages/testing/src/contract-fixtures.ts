import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Requests and responses recorded against a real SandboxFusion (copied from the team's shared contracts, with
 * their README), so a clone tests against them on any machine. Shared by every package that speaks the protocol.
 */
export const CONTRACTS_DIR = fileURLToPath(new URL('../contracts/sandboxfusion/', import.meta.url));

export interface ContractFixture {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The request body as sent, or undefined for a GET. */
  body: unknown;
  /** The HTTP status the real server answered. */
  status: number;
  /** The exact bytes of the real server's answer. */
  responseText: string;
}

/** Every recorded case, sorted by name. */
export function readContractFixtures(): ContractFixture[] {
  return readdirSync(CONTRACTS_DIR)
    .filter((file) => file.endsWith('.request.json'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.request.json'.length);
      const request = JSON.parse(readFileSync(join(CONTRACTS_DIR, file), 'utf8')) as Omit<
        ContractFixture,
        'name' | 'responseText'
      >;
      const responseText = readFileSync(join(CONTRACTS_DIR, `${name}.response.json`), 'utf8');
      return { ...request, name, responseText };
    });
}
