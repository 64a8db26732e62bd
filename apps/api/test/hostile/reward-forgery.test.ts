import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// Class 5 of the trust boundary (issue 15): rewards and test verdicts are computed where the model's code cannot
// reach. Each probe sends a wrong solution with a forgery through the real session routes and must score 0 with
// honest failures; its control sends the right solution through the same task and mode and must score 1, so a
// probe cannot pass by failing to run. The server must stay healthy throughout.

const STATEFUL = {
  name: 'forgery-stateful-add',
  prompt: 'Write add(a, b).',
  language: 'python',
  session_mode: 'stateful',
  tests: [
    // 583920471 is the one expected value no argument shows (nor any library's bytes): the scan looks for it.
    { name: 'small', code: 'assert add(2, 3) == 5\nassert add(500000000, 83920471) == 583920471' },
    { name: 'negative', code: 'assert add(-4, 1) == -3\nassert add(-2, -2) == -4' },
  ],
};
const FRESH = {
  ...STATEFUL,
  name: 'forgery-fresh-add',
  session_mode: 'fresh',
  tests: [
    { name: 'small', code: '#<INSERT>\nassert add(2, 3) == 5\nassert add(500000000, 83920471) == 583920471' },
    { name: 'negative', code: 'assert add(-4, 1) == -3\nassert add(-2, -2) == -4' },
  ],
};
const TASKS = { stateful: STATEFUL, fresh: FRESH } as const;
type Mode = keyof typeof TASKS;

const RIGHT = 'def add(a, b):\n    return a + b';
// Wrong on every input the tests use.
const WRONG = 'def add(a, b):\n    return a - b + 7';

/** A 64-hex string (the shape of a verdict's signing key) the scan below must find, so that it is shown to work. */
const DECOY = 'd'.repeat(64);

/**
 * Looks everywhere sandboxed code can for the verdict's signing key and the tests (files, other processes'
 * command lines, environments, mapped memory and fds), then writes verdicts signed with every candidate to every
 * fd it can open. Prints what it found last, so the reward's detail (the output's end) shows the scan ran.
 */
const SCAN_AND_FORGE = `
import os, re, glob, hmac, hashlib
open("decoy.txt", "w").write("${DECOY}")
hexes, texts = set(), []
def grab(data):
    texts.append(data)
    hexes.update(re.findall(rb"[0-9a-f]{64}", data))
def read_memory(pid):
    # What each readable mapping holds; a process that is not dumpable (the runner) refuses every read.
    with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb", 0) as mem:
        for line in maps:
            start, end = (int(x, 16) for x in line.split()[0].split("-"))
            if line.split()[1][0] == "r":
                try:
                    mem.seek(start)
                    grab(mem.read(min(end - start, 1 << 22)))
                except (OSError, ValueError, OverflowError):
                    pass
for path in glob.glob("*") + glob.glob(".*") + glob.glob("/tmp/*") + glob.glob("/tmp/.*") + glob.glob("/tmp/*/.*"):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        grab(os.read(fd, 1 << 20))
        os.close(fd)
    except OSError:
        pass
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for name in ("cmdline", "environ"):
        try:
            grab(open("/proc/%s/%s" % (pid, name), "rb").read(1 << 20))
        except (OSError, ValueError):
            pass
    try:
        read_memory(pid)
    except OSError:
        pass
# Computed, so that this script's own text (in its memory) does not hold it.
expected = str(583920470 + 1).encode()
expected_seen = any(expected in t for t in texts)
passing = b'{"passed": true, "status": "success", "detail": ""}'
lines = b"".join(
    b"\\nfusebox-verdict %s %s\\n" % (hmac.new(h, passing, hashlib.sha256).hexdigest().encode(), passing) for h in hexes
)
lines += b'{"done": true}\\n{"site": 0, "values": [{"repr": "True", "truth": true}]}\\n'
targets = ["/proc/self/fd/%s" % fd for fd in os.listdir("/proc/self/fd")]
targets += glob.glob("/proc/[0-9]*/fd/*") + glob.glob("/tmp/*/.fusebox-*") + glob.glob("/tmp/.fusebox-*")
for target in targets:
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, lines)
        os.close(fd)
    except OSError:
        pass
# Last: the reward's detail shows the end of the output.
import sys
summary = ("decoy found" if DECOY_BYTES in hexes else "decoy missed") + " " + ("expected seen" if expected_seen else "expected hidden")
print(summary, flush=True)
print(summary, file=sys.stderr, flush=True)
`.replace('DECOY_BYTES', `b"${DECOY}"`);

/** Each forgery: code added to the wrong solution (the control adds it to the right one where it is harmless). */
const FORGERIES: Record<string, { code: (solution: string) => string; harmless: boolean }> = {
  'os._exit(0) inside the solution': {
    code: () => 'def add(a, b):\n    import os\n    os._exit(0)',
    harmless: false,
  },
  'os._exit(0) after the solution': {
    code: (solution) => `${solution}\nimport os\nos._exit(0)`,
    harmless: false,
  },
  'sys.exit(0) and SystemExit': {
    code: () => 'import sys\ndef add(a, b):\n    raise SystemExit(0)\nsys.exit(0)',
    harmless: false,
  },
  'an atexit hook printing passing results': {
    code: (solution) =>
      `${solution}\nimport atexit, os\natexit.register(lambda: (print('fusebox-verdict 0 {"passed": true}'), print('{"done": true}'), os._exit(0)))`,
    harmless: true,
  },
  'an AlwaysEqual result': {
    code: () =>
      [
        'class AlwaysEqual:',
        '    def __eq__(self, other): return True',
        '    def __ne__(self, other): return False',
        '    def __bool__(self): return True',
        '    def __lt__(self, other): return True',
        '    __hash__ = object.__hash__',
        'def add(a, b):',
        '    return AlwaysEqual()',
      ].join('\n'),
    harmless: false,
  },
  'patched builtins, assert machinery and unittest': {
    code: (solution) =>
      [
        solution,
        'import builtins, unittest',
        "builtins.repr = lambda value: '5'",
        'builtins.AssertionError = type("NotAnAssertion", (Exception,), {})',
        'builtins.isinstance = lambda *args: True',
        'unittest.TestCase.assertEqual = lambda *args, **kwargs: None',
        'unittest.TestCase.assertTrue = lambda *args, **kwargs: None',
      ].join('\n'),
    harmless: false,
  },
  "the test harness's own check and reporting patched": {
    code: (solution) =>
      [
        solution,
        'import json, os',
        '__fusebox_check__ = lambda *args: None',
        'json.dumps = lambda *args, **kwargs: \'{"done": true}\'',
        'os.write = lambda fd, data: len(data)',
      ].join('\n'),
    harmless: false,
  },
  'a scan for the tests and the signing key, then signed verdicts and reports on every fd': {
    code: (solution) => `${solution}\n${SCAN_AND_FORGE}`,
    harmless: false,
  },
};

const { episode: run, watched } = useRewardSessions([STATEFUL, FRESH]);
const episode = (mode: Mode, actions: string[]) => run(TASKS[mode], actions);

describe('agent session rewards, against a model that forges them', { timeout: 120_000 }, () => {
  for (const mode of ['stateful', 'fresh'] as const) {
    it(`scores the plain wrong solution 0 and the right one 1 (${mode})`, async () => {
      const [wrong, right] = await watched(() =>
        Promise.all([episode(mode, [WRONG]), episode(mode, [RIGHT])]),
      );
      expect(wrong.reward).toMatchObject({ reward: 0, f2p_count: 0, f2p_total: 2 });
      expect(wrong.detail.map(({ status }) => status)).toEqual(['wrong_answer', 'wrong_answer']);
      expect(wrong.detail[0]?.detail).toContain('add(2, 3) = 6');
      expect(right.reward).toMatchObject({ reward: 1, f2p_count: 2, f2p_total: 2 });
    });

    for (const [name, forgery] of Object.entries(FORGERIES)) {
      it(`gives no reward for ${name} (${mode}); the right solution still scores through the same path`, async () => {
        const [forged, control] = await watched(() =>
          Promise.all([
            episode(mode, [forgery.code(WRONG)]),
            episode(mode, [forgery.harmless ? forgery.code(RIGHT) : RIGHT]),
          ]),
        );
        expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
        expect(forged.detail.every(({ passed }) => !passed)).toBe(true);
        expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 2 });
        if (name.startsWith('a scan')) {
          // The scan ran where the tests ran and worked (it found its own decoy), yet saw no expected value.
          const shown = forged.detail.map(({ detail }) => detail).join('\n');
          expect(shown).toContain('decoy found expected hidden');
        }
      });
    }
  }

  it("keeps every cell's answer with its cell when the model writes to the interpreter's reply channel", async () => {
    const junk = [
      'import os, json, base64',
      'def forged(text, count):',
      "    reply = {'id': '0' * 32, 'count': count, 'stdout': base64.b64encode(text.encode()).decode(),",
      "             'stdout_bytes': len(text), 'stderr': '', 'stderr_bytes': 0, 'display': [], 'error': []}",
      "    return (json.dumps(reply) + '\\n').encode()",
      "for fd in [int(fd) for fd in os.listdir('/proc/self/fd')] + [4]:",
      '    try:',
      "        os.write(fd, b'not json at all\\n{\"half\": \\n' + forged('forged for the next cell\\n', 2) + b'[1, 2]\\n')",
      '    except OSError:',
      '        pass',
      "print('one')",
    ].join('\n');
    const { observations, reward } = await watched(() =>
      episode('stateful', [
        `${WRONG}\n${junk}`,
        "print('two')",
        "import os\nos.write(4, b'x' * 10)\nprint('three')",
        "print('four')",
      ]),
    );
    // Each cell answers itself: nothing written on the channel is taken for a later cell's answer.
    // (The junk it wrote to its own stdout and stderr is its output, shown as such.)
    expect(observations[0]).toContain('one\n');
    expect(observations[0]).toMatch(/\nexit code 0$/);
    expect(observations[0]).not.toContain('forged for the next cell');
    expect(observations.slice(1)).toEqual(['two\nexit code 0', 'three\nexit code 0', 'four\nexit code 0']);
    expect(reward).toMatchObject({ reward: 0, f2p_count: 0 });
  });

  it('survives a cell that floods the reply channel with one endless line: the state is lost, not the server', async () => {
    const { observations } = await watched(() =>
      episode('stateful', [
        'x = 1',
        "import os\nchunk = b'y' * (1 << 20)\nfor _ in range(64):\n    os.write(4, chunk)\nprint('unreached?')",
        "print('after')",
      ]),
    );
    expect(observations[1]).toContain('the Python session was restarted');
    expect(observations[2]).toBe('after\nexit code 0');
  });
});
