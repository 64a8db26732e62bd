// What a network namespace of its own would add to each forked Python run, which today shares its slot's (issue
// #16 allows one per slot; the residual is in packages/local-sandbox/README.md). Both arms alternate in one run:
// a child that enters a user namespace of its own, as a run's program does, with and without a new network
// namespace with loopback up (what sessions do). A namespace's teardown runs later in a kernel worker, outside
// any cgroup, so the CPU of kernel threads is counted too (noisy: every kernel thread of the machine).
// Usage (as root): node --conditions=@fusebox/source --import tsx bench/executor/network-namespace-cost.ts
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { markdownTable, writeResults } from '../write-results';

const COMMAND = 'node --conditions=@fusebox/source --import tsx bench/executor/network-namespace-cost.ts';
const ROUNDS = 6;
const CHILDREN_PER_ROUND = 300;

const SCRIPT = `
import ctypes, fcntl, json, os, socket, struct, time
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1

def kernel_threads_cpu_s():
    total = 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if fields[1] == '2':  # a child of kthreadd
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf('SC_CLK_TCK')

def child(own_network):
    if libc.unshare(CLONE_NEWUSER) != 0:
        os._exit(3)
    for name, content in (('setgroups', b'deny'), ('uid_map', b'0 0 1'), ('gid_map', b'0 0 1')):
        fd = os.open(f'/proc/self/{name}', os.O_WRONLY)
        os.write(fd, content)
        os.close(fd)
    if own_network:
        if libc.unshare(CLONE_NEWNET) != 0:
            os._exit(4)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            request = struct.pack('16sH', b'lo', 0)
            flags = struct.unpack('16sH', fcntl.ioctl(probe, SIOCGIFFLAGS, request + b'\\0' * 22)[:18])[1]
            fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack('16sH', b'lo', flags | IFF_UP) + b'\\0' * 22)
    os._exit(0)

totals = {False: [0.0, 0.0, 0.0], True: [0.0, 0.0, 0.0]}
for _ in range(${ROUNDS}):
    for own_network in (False, True):
        time.sleep(1)
        kernel_before, times_before, start = kernel_threads_cpu_s(), os.times(), time.perf_counter()
        for _ in range(${CHILDREN_PER_ROUND}):
            pid = os.fork()
            if pid == 0:
                child(own_network)
            if os.waitpid(pid, 0)[1] != 0:
                raise SystemExit('a child failed')
        wall, times_after = time.perf_counter() - start, os.times()
        time.sleep(1)  # the namespaces' teardown, in a kernel worker
        total = totals[own_network]
        total[0] += wall
        total[1] += times_after.children_user + times_after.children_system
        total[1] -= times_before.children_user + times_before.children_system
        total[2] += kernel_threads_cpu_s() - kernel_before
children = ${ROUNDS} * ${CHILDREN_PER_ROUND}
print(json.dumps({str(key).lower(): [value / children * 1000 for value in total] for key, total in totals.items()}))
`;

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  const result = spawnSync('/usr/bin/python3', ['-c', SCRIPT], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the script failed: ${result.stderr}`);
  const arms = JSON.parse(result.stdout) as Record<'false' | 'true', [number, number, number]>;
  const ms = (value: number) => value.toFixed(3);
  const [shared, own] = [arms.false, arms.true];
  const rows = [
    ['user namespace only (as forked runs now)', ...shared.map(ms)],
    ['user + network namespace, loopback up', ...own.map(ms)],
    ['difference', ...own.map((value, index) => ms(value - shared[index]!))],
  ];
  const markdown = [
    '# A network namespace per forked run: its cost',
    '',
    `Command: \`${COMMAND}\``,
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load.join(' ')} before`,
    '',
    `Python forks ${ROUNDS} × ${CHILDREN_PER_ROUND} children per arm, the arms alternating; per child: wall time, its CPU`,
    "(wait's rusage), and the CPU every kernel thread of the machine gained meanwhile (the namespace's teardown",
    'runs there, outside any cgroup; other load on the machine shows up in this column for both arms).',
    '',
    markdownTable(['what', 'wall ms', 'child CPU ms', 'kernel threads CPU ms'], rows),
    '',
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  await writeResults(new URL('./NETWORK-NAMESPACE-COST.md', import.meta.url), markdown);
}

await main();
