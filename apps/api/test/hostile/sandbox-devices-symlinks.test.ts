import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type RunAnswer } from './hostile-server';
import { contained, useProbes } from './sandbox-probe';

// Devices and paths across the trust boundary (issue 15): sandboxed code has only harmless devices and cannot
// make others, and no path it plants (symlink, hardlink, `..`) or is handed (`files`) reaches a host file, in
// either direction: writing the request's files in, or reading `fetch_files` out after it ran.

const probes = useProbes();
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** The devices a sandbox has, and the links bubblewrap makes beside them. */
const DEVICES = [
  'fd',
  'full',
  'null',
  'random',
  'shm',
  'stderr',
  'stdin',
  'stdout',
  'tty',
  'urandom',
  'zero',
];

describe('sandboxed code, as to devices and paths', () => {
  it('has only the harmless devices and cannot make another, nor push input into a terminal', async () => {
    const result = await probes.python(
      'run_code',
      `
import stat, fcntl, termios
result["dev"] = sorted(os.listdir("/dev"))
result["shm_link"] = os.readlink("/dev/shm")
for device, major, minor in (("mem", 1, 1), ("kmsg", 1, 11), ("vda", 254, 0), ("kvm", 10, 232), ("tun", 10, 200), ("fuse", 10, 229)):
    kind = stat.S_IFBLK if device == "vda" else stat.S_IFCHR
    result["mknod " + device] = attempt(lambda: os.mknod(device, kind | 0o666, os.makedev(major, minor)))
result["mknod in /dev"] = attempt(lambda: os.mknod("/dev/mine", stat.S_IFREG | 0o600))
result["tty"] = read("/dev/tty")
result["tiocsti"] = attempt(lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x"))
# Controls: a fifo and a plain file made the same way, and the devices it has work.
result["mknod fifo"] = attempt(lambda: os.mknod("fifo", stat.S_IFIFO | 0o600))
result["mknod file"] = attempt(lambda: os.mknod("plain", stat.S_IFREG | 0o600))
result["urandom"] = len(open("/dev/urandom", "rb").read(16))
result["zero"] = open("/dev/zero", "rb").read(4) == b"\\0" * 4
`,
    );
    expect(result.dev).toEqual(DEVICES);
    expect(result.shm_link).toBe('/tmp/.fusebox-shm');
    for (const device of ['mem', 'kmsg', 'vda', 'kvm', 'tun', 'fuse'])
      expect(result[`mknod ${device}`], device).toBe('EPERM');
    expect(result['mknod in /dev']).toMatch(/^(EROFS|EACCES)$/);
    expect(result.tty).toBe('ENXIO');
    expect(result.tiocsti).toBe('EPERM');
    expect(result).toMatchObject({ 'mknod fifo': 'ok', 'mknod file': 'ok', urandom: 16, zero: true });
  });

  it('cannot reach a host file through a symlink, hardlink or /proc link it plants', async () => {
    const result = await probes.python(
      'run_jupyter',
      `
targets = {"shadow": "/etc/shadow", "checkout": "/work/main/package.json", "root": "/root/.bashrc",
           "via_pid1": "/proc/1/root/etc/shadow", "via_self": "/proc/self/root/work", "up": "../../../../../etc/shadow",
           "postgres": "/var/run/postgresql/.s.PGSQL.5432"}
for link, target in targets.items():
    os.symlink(target, link)
    result["symlink " + link] = read(link)
for link, target in (("passwd", "/etc/passwd"), ("python", "/usr/bin/python3"), ("driver", "/proc/1/exe")):
    result["hardlink " + link] = attempt(lambda: os.link(target, link))
result["passwd"] = open("/etc/passwd").read()
# Controls: a symlink and a hardlink to a file of its own, made the same way, read it.
open("mine", "w").write("mine")
os.symlink("mine", "link_to_mine")
os.link("mine", "hardlink_to_mine")
result["own"] = [open("link_to_mine").read(), open("hardlink_to_mine").read()]
`,
    );
    for (const link of ['shadow', 'checkout', 'root', 'via_pid1', 'via_self', 'up', 'postgres'])
      expect(result[`symlink ${link}`], link).toBe('ENOENT');
    // Another filesystem (the sandbox's root is its own), or a file it does not own.
    for (const link of ['passwd', 'python', 'driver'])
      expect(result[`hardlink ${link}`], link).toMatch(/^(EXDEV|EPERM|EACCES|ENOENT)$/);
    expect(result.passwd).not.toContain('root:');
    expect(result.own).toEqual(['mine', 'mine']);
  });

  it('refuses `files` paths that leave the working directory, writing nothing on the host, by every door', async () => {
    const h = probes.server();
    const escapes = [
      `/tmp/fusebox-hostile-absolute-${process.pid}`,
      `../../../../../../tmp/fusebox-hostile-dotdot-${process.pid}`,
      `nested/../../../../../../../tmp/fusebox-hostile-nested-${process.pid}`,
    ];
    const hostPaths = escapes.map((path) => `/tmp/${path.split('/').at(-1) as string}`);
    const answers = await contained(h, async () => {
      const out: { route: string; status: number; text: string }[] = [];
      for (const path of escapes) {
        const files = { [path]: base64('escaped'), 'ok.txt': base64('ok') };
        const runCode = await h.post('/run_code', { code: 'print(1)', language: 'python', files });
        const jupyter = await h.post('/run_jupyter', { cells: ['print(1)'], files });
        const session = await h.post('/v1/sandbox/sessions', { files });
        out.push(
          { route: 'run_code', ...runCode },
          { route: 'run_jupyter', ...jupyter },
          { route: 'session', ...session },
        );
      }
      return out;
    });
    for (const answer of answers) {
      // Refused as a sandbox error (200 with status SandboxError) or as bad input (4xx), never run.
      if (answer.status === 200) {
        expect((JSON.parse(answer.text) as RunAnswer).status, answer.route).toBe('SandboxError');
      } else {
        expect(answer.status, `${answer.route}: ${answer.text}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${answer.route}: ${answer.text}`).toBeLessThan(500);
      }
    }
    for (const path of hostPaths) expect(existsSync(path), path).toBe(false);
    // Control: the same files field with only the safe path is written where the code finds it.
    const control = await probes.run('python', 'print(open("nested/dir/ok.txt").read())', {
      files: { 'nested/dir/ok.txt': base64('ok') },
    });
    expect(control.run_result.stdout).toBe('ok\n');
  });

  it('gets no host content back through fetch_files: symlinks, planted directories, fifos and .. are left out', async () => {
    const plant = `
import os
os.symlink("/etc/passwd", "passwd")
os.symlink("/etc/passwd", "/tmp/passwd")
os.symlink("/etc/shadow", "shadow")
os.symlink("/", "slash")
os.symlink("/etc", "etc_dir")
os.symlink("/proc/self/environ", "environ")
os.symlink("/dev/zero", "zero")
os.mkfifo("fifo")
os.link("own.txt", "hardlink.txt")
open("own.txt", "a").write(" and more")
`;
    const fetch = [
      'passwd',
      'shadow',
      'slash/etc/passwd',
      'etc_dir/passwd',
      'environ',
      'zero',
      'fifo',
      '/tmp/passwd',
      'own.txt',
      'hardlink.txt',
    ];
    const files = { 'own.txt': base64('mine') };
    const runCode = await probes.run('python', plant, { files, fetch_files: fetch });
    const h = probes.server();
    const jupyter = await contained(h, () =>
      h.post('/run_jupyter', { cells: [plant], files, fetch_files: fetch }),
    );
    expect(jupyter.status).toBe(200);
    const jupyterFiles = (JSON.parse(jupyter.text) as { files: Record<string, string> }).files;
    for (const fetched of [runCode.files, jupyterFiles]) {
      // Only its own regular files come back, with what it wrote into them.
      expect(fetched).toEqual({
        'own.txt': base64('mine and more'),
        'hardlink.txt': base64('mine and more'),
      });
    }
    expect(runCode.run_result.return_code).toBe(0);
    // Paths outside the sandbox's /tmp (absolute, or climbing out) are refused before anything runs.
    for (const outside of ['../../../etc/passwd', '/etc/passwd']) {
      const refused = await contained(h, () =>
        h.post('/run_code', { code: 'print(1)', language: 'python', fetch_files: [outside] }),
      );
      expect(JSON.parse(refused.text)).toMatchObject({ status: 'SandboxError', run_result: null, files: {} });
    }
  });
});
