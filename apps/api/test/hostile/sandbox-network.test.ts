import { type AddressInfo, type Server, connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlapping, probePython, useProbes } from './sandbox-probe';

// The network side of the trust boundary (issue 15): sandboxed code has a network namespace of its own with only
// a loopback, so neither the host's services (Postgres, the API itself, a listener of this test's), nor the
// cloud's metadata service, nor the internet, nor the host's unix sockets are reachable, by any socket family.

const probes = useProbes();

/** Listeners of this test's on the host: TCP on loopback and an abstract unix socket, counting who connects. */
const host = { tcp: 0, abstract: 0, tcpPort: 0 };
const abstractName = `fusebox-hostile-network-${process.pid}`;
let listeners: Server[] = [];

beforeAll(async () => {
  const tcp = createServer((socket) => {
    host.tcp += 1;
    socket.destroy();
  });
  const abstract = createServer((socket) => {
    host.abstract += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => abstract.listen(`\0${abstractName}`, resolve));
  host.tcpPort = (tcp.address() as AddressInfo).port;
  listeners = [tcp, abstract];
});

afterAll(async () => {
  await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Whether the host itself reaches `port` on 127.0.0.1, or an abstract unix socket. */
function hostReaches(target: { port: number } | { path: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(
      'port' in target ? { host: '127.0.0.1', port: target.port } : { path: target.path },
    );
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}

/**
 * Python: `tcp(host, port)` tries a TCP connection (2 s at most) and answers "connected", "self-connected" or the
 * errno's name. A connect to a port of the ephemeral range with nobody listening can, about once in 25,000 tries,
 * be given that very port as its source and open to itself (TCP simultaneous open): nobody answered, so it is told
 * apart from a real connection.
 */
const TCP = `
def tcp(host, port, family=socket.AF_INET):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        try:
            s.connect((host, port))
            return "self-connected" if s.getsockname() == s.getpeername() else "connected"
        except socket.timeout:
            return "timeout"
        except OSError as error:
            return name(error)
`;

describe('sandboxed code, as to the network', () => {
  it('reaches no host service, metadata service or internet address, while its own loopback listener answers', async () => {
    const apiPort = Number(new URL(probes.server().url).port);
    const services = { postgres: 5432, api: apiPort, listener: host.tcpPort };
    // Controls on the host: each of these services is there to be reached.
    for (const [service, port] of Object.entries(services))
      expect(await hostReaches({ port }), service).toBe(true);
    const before = host.tcp;
    const result = await probes.python(
      'run_code',
      `${TCP}
for service, port in ${JSON.stringify(services)}.items():
    result[service] = tcp("127.0.0.1", port)
    result[service + "_v6"] = tcp("::1", port, socket.AF_INET6)
result["metadata"] = tcp("169.254.169.254", 80)
result["internet"] = tcp("1.1.1.1", 443)
result["internet_v6"] = tcp("2606:4700:4700::1111", 443, socket.AF_INET6)
result["resolve"] = attempt(lambda: socket.getaddrinfo("example.com", 443) and "resolved")
result["interfaces"] = [name for _, name in socket.if_nameindex()]
# Control: a listener of its own on its own loopback takes its own connection.
with socket.socket() as server:
    server.bind(("127.0.0.1", 0))
    server.listen()
    result["own_listener"] = tcp("127.0.0.1", server.getsockname()[1])
`,
    );
    for (const service of Object.keys(services)) {
      expect(result[service], service).toMatch(/^(ECONNREFUSED|self-connected)$/);
      expect(result[`${service}_v6`], service).toMatch(/^(ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH)$/);
    }
    for (const away of ['metadata', 'internet', 'internet_v6'])
      expect(result[away], away).toMatch(/^(ENETUNREACH|EHOSTUNREACH|EADDRNOTAVAIL)$/);
    expect(result.resolve).not.toBe('resolved');
    expect(result.interfaces).toEqual(['lo']);
    expect(host.tcp).toBe(before);
    expect(result.own_listener).toBe('connected');
  });

  it("reaches none of the host's unix sockets, by path or abstract name, while its own work", async () => {
    expect(await hostReaches({ path: `\0${abstractName}` })).toBe(true);
    const before = host.abstract;
    const result = await probes.python(
      'session',
      `
def unix(address):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        try:
            s.connect(address)
            return "connected"
        except OSError as error:
            return name(error)
for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/run/mysqld/mysqld.sock",
             "/run/docker.sock", "/var/run/docker.sock", "/run/dbus/system_bus_socket", "/run/systemd/private",
             "/tmp/.X11-unix/X0"):
    result[path] = unix(path)
result["abstract"] = unix("\\0${abstractName}")
result["run"] = os.path.exists("/run") or os.path.exists("/var/run")
# Controls: a socket of its own, by path and by abstract name.
for address in ("own.sock", "\\0fusebox-own-%d" % os.getpid()):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(address)
        server.listen()
        result["own " + ("path" if address == "own.sock" else "abstract")] = unix(address)
`,
    );
    for (const path of [
      '/var/run/postgresql/.s.PGSQL.5432',
      '/run/postgresql/.s.PGSQL.5432',
      '/run/mysqld/mysqld.sock',
      '/run/docker.sock',
      '/var/run/docker.sock',
      '/run/dbus/system_bus_socket',
      '/run/systemd/private',
      '/tmp/.X11-unix/X0',
    ])
      expect(result[path], path).toBe('ENOENT');
    expect(result.run).toBe(false);
    // Abstract unix names belong to the network namespace: the host's is not there.
    expect(result.abstract).toBe('ECONNREFUSED');
    expect(host.abstract).toBe(before);
    expect(result).toMatchObject({ 'own path': 'connected', 'own abstract': 'connected' });
  });

  it('cannot open raw, packet or vsock sockets, nor reconfigure its loopback, while ordinary families work', async () => {
    const result = await probes.python(
      'run_jupyter',
      `
def open_socket(family, kind, protocol=0):
    try:
        socket.socket(family, kind, protocol).close()
        return "opened"
    except OSError as error:
        return name(error)
result["packet"] = open_socket(17, socket.SOCK_RAW)
result["vsock"] = open_socket(40, socket.SOCK_STREAM)
result["raw_icmp"] = open_socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
result["raw_v6"] = open_socket(socket.AF_INET6, socket.SOCK_RAW, 58)
result["bluetooth"] = open_socket(31, socket.SOCK_STREAM)
result["can"] = open_socket(29, socket.SOCK_RAW)
result["xdp"] = open_socket(44, socket.SOCK_RAW)
said = subprocess.run(["ip", "link", "set", "lo", "down"], capture_output=True, text=True)
result["ip_link_down"] = said.returncode
result["lo_up"] = "UP" in subprocess.run(["ip", "-o", "link", "show", "lo"], capture_output=True, text=True).stdout
import fcntl, struct
request = struct.pack("16sH14s", b"lo", 0, b"")
result["siocsifflags"] = attempt(lambda: fcntl.ioctl(socket.socket(), 0x8914, request) and "set")
# Controls: the families a program needs.
result["unix"] = open_socket(socket.AF_UNIX, socket.SOCK_STREAM)
result["inet"] = open_socket(socket.AF_INET, socket.SOCK_DGRAM)
result["inet6"] = open_socket(socket.AF_INET6, socket.SOCK_STREAM)
result["netlink"] = open_socket(16, socket.SOCK_RAW)
result["siocgifflags"] = attempt(lambda: fcntl.ioctl(socket.socket(), 0x8913, request) and "read")
`,
    );
    expect(result).toMatchObject({
      packet: 'EAFNOSUPPORT',
      vsock: 'EAFNOSUPPORT',
      bluetooth: 'EAFNOSUPPORT',
      can: 'EAFNOSUPPORT',
      xdp: 'EAFNOSUPPORT',
      raw_icmp: 'EPERM',
      raw_v6: 'EPERM',
      siocsifflags: 'EPERM',
    });
    expect(result.ip_link_down).not.toBe(0);
    expect(result).toMatchObject({
      unix: 'opened',
      inet: 'opened',
      inet6: 'opened',
      netlink: 'opened',
      siocgifflags: 'read',
    });
  });

  it("cannot reach a concurrent run's loopback listener or abstract socket, while it reaches its own", async () => {
    const h = probes.server();
    // Below the ephemeral range (32768 and up), so that the neighbour's many tries cannot connect to themselves.
    const port = 20000 + (process.pid % 10000);
    const marker = (n: number) => `fusebox-hostile-neighbour-${n}-${process.pid}`;
    const listen = `${TCP}
import threading
accepted = []
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", ${port}))
server.listen()
abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
abstract.bind("\\0${marker(1)}")
abstract.listen()
def serve(s):
    while True:
        connection, _ = s.accept()
        accepted.append(1)
        connection.close()
for s in (server, abstract):
    threading.Thread(target=serve, args=(s,), daemon=True).start()
marked = subprocess.Popen(["bash", "-c", "exec -a ${marker(1)} sleep 30"])
time.sleep(4)
result["accepted_from_others"] = len(accepted)
result["own_tcp"] = tcp("127.0.0.1", ${port})
time.sleep(0.2)
result["accepted_own"] = len(accepted) - result["accepted_from_others"]
marked.kill()
`;
    const reach = `${TCP}
marked = subprocess.Popen(["bash", "-c", "exec -a ${marker(2)} sleep 30"])
outcomes = set()
deadline = time.time() + 3
while time.time() < deadline:
    outcomes.add(tcp("127.0.0.1", ${port}))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        outcomes.add("abstract " + attempt(lambda: s.connect("\\0${marker(1)}")))
    time.sleep(0.1)
result["outcomes"] = sorted(outcomes)
marked.kill()
`;
    const { results, seen } = await overlapping(h, [
      [marker(1), () => probePython(h, 'run_code', listen)],
      [marker(2), () => probePython(h, 'run_jupyter', reach)],
    ]);
    expect(seen).toBe(2);
    const [listener, neighbour] = results as [Record<string, unknown>, Record<string, unknown>];
    expect(neighbour.outcomes).toEqual(['ECONNREFUSED', 'abstract ECONNREFUSED']);
    expect(listener.accepted_from_others).toBe(0);
    // Control: the listener was up and took its own connection.
    expect(listener).toMatchObject({ own_tcp: 'connected', accepted_own: 1 });
  });

  // The x-fusebox-request-id header names the rollout that sent a run (the dashboard's join from a sample): code
  // that could send the API a request of its own could put its runs under another sample's name.
  for (const route of ['run_code', 'run_jupyter', 'session'] as const) {
    it(`cannot send the API a run of its own under a forged request id (${route})`, async () => {
      const port = Number(new URL(probes.server().url).port);
      const forged = { 'x-fusebox-request-id': `forged-${route}` };
      const body = { code: 'print(1)', language: 'python' };
      // Control on the host: the API takes such a request.
      expect((await probes.server().post('/run_code', body, forged)).status).toBe(200);
      const result = await probes.python(
        route,
        `
import http.server, threading, urllib.error, urllib.request
def post(url):
    request = urllib.request.Request(url, data=${JSON.stringify(JSON.stringify(body))}.encode(),
                                     headers={"content-type": "application/json", **${JSON.stringify(forged)}})
    try:
        return str(urllib.request.urlopen(request, timeout=2).status)
    except urllib.error.HTTPError as error:
        return str(error.code)
    except urllib.error.URLError as error:
        return name(error.reason) if isinstance(error.reason, OSError) else str(error.reason)
    except OSError as error:
        return name(error)
class Answer(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
# Control: the same request reaches a server of its own on its own loopback.
own = http.server.HTTPServer(("127.0.0.1", 0), Answer)
threading.Thread(target=own.serve_forever, daemon=True).start()
result["own"] = post("http://127.0.0.1:%d/run_code" % own.server_address[1])
own.shutdown()
for host in ("127.0.0.1", "localhost", "[::1]"):
    result[host] = post("http://%s:${port}/run_code" % host)
`,
      );
      expect(result.own).toBe('200');
      // Any HTTP status, a 401 included, would mean the API was reached.
      for (const host of ['127.0.0.1', 'localhost', '[::1]'])
        expect(result[host], host).not.toMatch(/^\d{3}$/);
    });
  }
});
