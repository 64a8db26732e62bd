import { describe, expect, it } from 'vitest';
import { withCompletionMarker } from '../src/completion-marker';

describe("the completion marker's place in a program", () => {
  it("goes into the last main of C++, Rust and Java, the test's", () => {
    const cpp = withCompletionMarker(
      'cpp',
      'int main() { return 1; }\nint main(int argc, char** argv) {}',
      {},
    );
    expect(cpp?.code).toMatch(/int main\(int argc, char\*\* argv\) \{ fusebox_completion_marker/);
    const rust = withCompletionMarker('rust', 'fn main() -> Result<(), String> { Ok(()) }', {});
    expect(rust?.code).toContain('{ let _fusebox_completion_marker = FuseboxCompletionMarker; ');
    const java = withCompletionMarker(
      'java',
      'class T { public static void main(String[] args) throws java.io.IOException, Exception { } }',
      {},
    );
    expect(java?.code).toContain(
      'static void fuseboxTestMain(String[] args) throws java.io.IOException, Exception {',
    );
  });

  it('finds it in one pass however many unfinished headers the model wrote', { timeout: 20_000 }, () => {
    // Unbounded runs scanned to the end from each header: 65 s for these four (3 s at 180 kB).
    expect(withCompletionMarker('cpp', `${'int main('.repeat(50_000)}int main() {}`, {})).toBeDefined();
    expect(withCompletionMarker('rust', `${'fn main() ->'.repeat(50_000)}fn main() {}`, {})).toBeDefined();
    expect(withCompletionMarker('java', 'static void main('.repeat(50_000), {})).toBeUndefined();
    expect(withCompletionMarker('java', `static void main(${'a'.repeat(100_000)}!) {}`, {})).toBeUndefined();
  });
});
