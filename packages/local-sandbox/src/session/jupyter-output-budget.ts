import type { JupyterCell, JupyterCellError } from '@fusebox/sandbox-client/protocol';
import { withoutPartialCharacter } from '../decode-output';

/**
 * What a `/run_jupyter` request's cells may output together, spent by each cell's stdout, stderr, display data
 * and errors in turn (an exception's message is as long as the code makes it). Each stream of each cell is capped on its own already, but a request may hold a thousand cells:
 * uncapped as a whole, one answer could reach gigabytes that the server holds, records and sends. Output past
 * the budget is dropped with a note, as output past a stream's cap is.
 */
export class JupyterOutputBudget {
  readonly #limit: number;
  #left: number;
  #cut = false;

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
    this.#left = limitBytes;
  }

  /** Whether some cell's output was dropped for the budget. */
  get cut(): boolean {
    return this.#cut;
  }

  /**
   * The cell with what still fits of its output: display data whole or not at all, and errors whole or by their
   * names (a name says how the cell ended: a crash is read from it) and what fits of their messages.
   */
  spend(cell: JupyterCell): JupyterCell {
    const stdout = this.#text(cell.stdout);
    const stderr = this.#text(cell.stderr);
    const error = this.#errors(cell.error);
    const displayBytes = cell.display.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(cell.display));
    let display = cell.display;
    if (displayBytes <= this.#left) {
      this.#left -= displayBytes;
    } else {
      this.#cut = true;
      display = [{ 'text/plain': `[Fusebox: display data dropped: ${this.#note(displayBytes)}]` }];
    }
    return { ...cell, stdout, stderr, display, error };
  }

  #errors(errors: JupyterCellError[]): JupyterCellError[] {
    const bytes = errors.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(errors));
    if (bytes <= this.#left) {
      this.#left -= bytes;
      return errors;
    }
    this.#cut = true;
    // Rebuilt from the two fields: the code chooses the name and any other key too.
    return errors.map((entry) => ({
      ename: shortName(entry.ename),
      evalue: this.#text(entry.evalue),
      traceback: [],
    }));
  }

  #text(text: string): string {
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#left) {
      this.#left -= bytes;
      return text;
    }
    this.#cut = true;
    const kept = withoutPartialCharacter(Buffer.from(text).subarray(0, this.#left));
    this.#left -= kept.length;
    return `${kept.toString('utf8')}\n[Fusebox: output truncated: ${this.#note(bytes - kept.length)}]\n`;
  }

  #note(droppedBytes: number): string {
    return `${droppedBytes} bytes dropped (the cells of a request output ${this.#limit} bytes at most, FUSEBOX_EXECUTOR_JUPYTER_OUTPUT_LIMIT_BYTES)`;
  }
}

/** Bytes of an error's name kept past the budget: a class name, not the megabyte one the code can give it. */
const NAME_LIMIT_BYTES = 256;

function shortName(name: string): string {
  if (Buffer.byteLength(name) <= NAME_LIMIT_BYTES) return name;
  return `${withoutPartialCharacter(Buffer.from(name).subarray(0, NAME_LIMIT_BYTES)).toString('utf8')}…`;
}
