// The loopback peer both sides of the bench talk to: answers every request at once with a recorded /run_code
// answer, so what is measured is the client, not a sandbox. Runs in its own process, on the other core.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER = JSON.stringify({
  status: 'Success',
  message: '',
  compile_result: null,
  run_result: {
    status: 'Finished',
    execution_time: 0.017113924026489258,
    return_code: 0,
    stdout: 'Hello, world!\n',
    stderr: '',
  },
  executor_pod_name: null,
  files: {},
});

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(ANSWER),
    });
    response.end(ANSWER);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
