// `fusebox` as pid 1 (a container's command) runs itself again under pid1-init.py, which reaps every orphan
// (Node reaps only the children it spawned). This process stays pid 1, passes the stop signals on and exits with
// the command's status; it loads nothing else, so it costs little.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

export function runUnderInit() {
  const init = fileURLToPath(new URL('./pid1-init.py', import.meta.url));
  const child = spawn(
    '/usr/bin/python3',
    ['-I', init, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`fusebox: cannot start its init (python3) as pid 1: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
}
