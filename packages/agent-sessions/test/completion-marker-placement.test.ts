import { describe, expect, it } from 'vitest';
import { withCompletionMarker } from '../src/completion-marker';

// The completion marker goes into the last `main` of a C++, Rust or Java program: the test's, as the model's code
// comes before it. The patterns bound a parameter list or a return type at 300 characters (so unfinished headers
// cost one pass); the model's own headers, however long or unfinished, and however close before the test's
// `main`, must not take the marker from it, nor make a match that swallows the test's header.
const TEST_CPP = 'int main() {\n  assert(add(2, 3) == 5);\n}\n';

describe("the completion marker's place when the model writes mains of its own", () => {
  it('C++: stays in the test main after model headers of every length', () => {
    for (const pad of [0, 299, 300, 301, 5000]) {
      const model = `namespace own { int main(${'x'.repeat(pad)}) { return 0; } }\n/* int main(${'y'.repeat(pad)} */\n`;
      const marked = withCompletionMarker('cpp', `${model}${TEST_CPP}`, {});
      expect(marked?.code, `pad ${pad}`).toContain(
        'int main() { fusebox_completion_marker fusebox_completion_marker_; \n  assert(add(2, 3) == 5);',
      );
      expect(marked!.code.split('fusebox_completion_marker_;')).toHaveLength(2);
    }
  });

  it('Rust: stays in the test main after an unfinished `fn main() ->` in the model code', () => {
    const model = `// fn main() -> ${'T'.repeat(250)}\n`;
    const marked = withCompletionMarker(
      'rust',
      `${model}fn main() {\n    assert_eq!(add(2, 3), 5);\n}\n`,
      {},
    );
    expect(marked?.code).toContain(
      'fn main() { let _fusebox_completion_marker = FuseboxCompletionMarker; \n    assert_eq!',
    );
  });

  it("Java: the test's body stays the method the marker's main calls, whatever header the model left open", () => {
    // The model's open header (in a comment) runs on into the test's, and the replacement repeats the text between
    // them in both new headers: the program no longer compiles, which fails the test. What must not happen is a
    // placement that leaves the test's body outside fuseboxTestMain, so the marker prints without it running.
    const model = `class Own { /* static void main(${'z'.repeat(200)} */ }\n`;
    const test =
      'class Main {\n  public static void main(String[] args) {\n    assert add(2, 3) == 5;\n  }\n}\n';
    for (const program of [`${model}${test}`, test]) {
      const code = withCompletionMarker('java', program, {})?.code ?? '';
      const body = code.indexOf('assert add(2, 3) == 5;');
      const header = code.lastIndexOf('static void fuseboxTestMain(');
      expect(header).toBeGreaterThan(-1);
      // The last header the replacement wrote ends right where the test's body starts.
      expect(code.slice(header, body).endsWith('String[] args)  {\n    ')).toBe(true);
      expect(code.match(/fusebox-test-complete-/g)).toHaveLength(1);
    }
  });
});
