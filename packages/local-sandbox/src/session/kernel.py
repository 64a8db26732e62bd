# The interpreter of a stateful session: runs inside a sandbox, reads one JSON request per line on fd 3
# ({"id", "code"}) and answers one JSON line per cell on fd 4, carrying the request's id. The cell's code runs in
# this process, so it can write to fd 4 too: the host takes only a well-formed reply with the id it sent for
# that cell and ignores every other line (see interpreter.ts), so no line shifts a later cell's answer. The
# cell can still make this process say what it likes about itself and every later cell (it can read the id,
# and wrap or replace the functions below): that is a residual no secret closes, and rewards never depend on
# this channel (packages/local-sandbox/README.md, "What an interpreter's reply can be made to say").
#
# Cells run in IPython (Debian's python3-ipython, in the python profile), as in a Jupyter kernel: magics, `!cmd`,
# rich display data (text/html, text/markdown, image/png from matplotlib's inline backend). Tracebacks are
# formatted here, in the shape SandboxFusion's kernel gives them, whatever the IPython version. Without IPython,
# the trailing expression's repr is displayed and IPython syntax is a SyntaxError.
#
# It starts before anyone needs it (a warm sandbox, or forked from a session zygote), so its settings arrive as
# the first line on fd 3:
# {"output_limit": bytes per stream, "memory_limit": address-space bytes or 0, "first_cell": number}.
# argv: the largest file it may write, in bytes.
import ast
import base64
import builtins
import fcntl
import json
import linecache
import os
import re
import resource
import sys
import traceback
import types

OUTPUT_LIMIT = 0
# Bytes of display data one cell may return, as the reply line encodes them: it also carries both streams, base64.
DISPLAY_LIMIT = 0
KERNEL_PID = os.getpid()
RED, GREEN, CYAN, RESET = '\x1b[0;31m', '\x1b[0;32m', '\x1b[0;36m', '\x1b[0m'
# IPython pads the exception name so "Traceback (most recent call last)" ends at column 75.
HEADER_WIDTH = 75
CONTEXT_LINES = 2


def capture(fd, name):
    """Points fd at an in-memory file in append mode, so the cell's prints and its subprocesses' output land there."""
    memfd = os.memfd_create(name, 0)
    os.dup2(memfd, fd)
    os.close(memfd)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)


def take(fd):
    """What was written to fd since the last cell (up to the limit), how much was written, then empties it."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, min(size, OUTPUT_LIMIT), 0) if size else b''
    os.ftruncate(fd, 0)
    return base64.b64encode(data).decode('ascii'), size


def context(filename, lineno, cell):
    lines = linecache.getlines(filename)
    if not lines:
        return ''
    first, last = max(1, lineno - CONTEXT_LINES), min(len(lines), lineno + CONTEXT_LINES)
    width = len(str(last))
    out = []
    for number in range(first, last + 1):
        text = lines[number - 1].rstrip('\n')
        if number == lineno:
            out.append(f'{GREEN}---->{" " * (width - len(str(number)) + 1)}{number}{RESET} {text}\n')
        else:
            out.append(f'{" " * (6 + width - len(str(number)))}{number} {text}\n')
    return ''.join(out)


def frame_text(frame, cells):
    cell = cells.get(frame.filename)
    name = '' if frame.name == '<module>' else f', in {CYAN}{frame.name}(){RESET}'
    if cell is not None:
        header = f'Cell {GREEN}In [{cell}], line {frame.lineno}{RESET}{name}\n'
    else:
        header = f'File {GREEN}{frame.filename}:{frame.lineno}{RESET}, in {CYAN}{frame.name}{RESET}\n'
    return header + context(frame.filename, frame.lineno, cell)


def error_entry(exc, cells):
    ename, evalue = type(exc).__name__, str(exc)
    if isinstance(exc, SyntaxError) and exc.filename in cells:
        lines = traceback.format_exception_only(type(exc), exc)
        where = f'  Cell {GREEN}In [{cells[exc.filename]}], line {exc.lineno}{RESET}\n'
        body = [line for line in lines[:-1] if not line.startswith('  File ')]
        return {'traceback': [where + ''.join(body), f'{RED}{ename}{RESET}: {lines[-1].split(": ", 1)[-1]}'],
                'ename': ename, 'evalue': evalue}
    frames = traceback.extract_tb(exc.__traceback__)[1:]
    padding = ' ' * max(1, HEADER_WIDTH - len(ename) - len('Traceback (most recent call last)'))
    return {
        'traceback': [f'{RED}{"-" * HEADER_WIDTH}{RESET}', f'{RED}{ename}{RESET}{padding}Traceback (most recent call last)']
        + [frame_text(frame, cells) for frame in frames]
        + [f'{RED}{ename}{RESET}: {evalue}'],
        'ename': ename,
        'evalue': evalue,
    }


def run_cell(code, number, namespace, cells):
    filename = f'<cell-{number}>'
    cells[filename] = number
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    display, error = [], []
    try:
        tree = ast.parse(code, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not code.rstrip().endswith(';'):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, 'exec'), namespace)
        if last is not None:
            value = eval(compile(last, filename, 'eval'), namespace)
            if value is not None:
                namespace['_'] = value
                display.append({'text/plain': repr(value)[:OUTPUT_LIMIT]})
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are the cell's errors too
        error.append(error_entry(exc, cells))
    if os.getpid() != KERNEL_PID:
        os._exit(0)  # a cell that forked: the child must not go on serving requests
    return display, error


IPYTHON_CELL = re.compile(r'^<ipython-input-(\d+)-')


class IPythonCells(dict):
    """Cell numbers by file name, read from the names IPython compiles cells under."""

    def get(self, filename, default=None):
        match = IPYTHON_CELL.match(filename or '')
        return int(match.group(1)) if match else default

    def __contains__(self, filename):
        return self.get(filename) is not None

    def __getitem__(self, filename):
        return self.get(filename)


# What an entry costs in the reply beyond its value (its MIME type, quotes, separators): a cell that displays
# many empty bundles spends its budget too, so its answer stays bounded however many it shows.
ENTRY_OVERHEAD = 8


def encoded_size(value):
    """Bytes a value takes in the reply line, which json.dumps writes in ASCII: a non-ASCII or control character
    costs its escape (six bytes, twelve beyond the BMP), not one."""
    return len(json.dumps(value, default=str))


def fitting_prefix(text, room):
    """The longest prefix of text whose encoding takes at most room bytes. Each character takes at least one, so
    no prefix longer than room fits: the search never encodes more than that."""
    text = text[:max(room, 0)]
    if encoded_size(text) <= room:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if encoded_size(text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def bounded(bundle, budget):
    """A display bundle's entries that fit in what is left of the cell's display budget, counted in the bytes
    they take in the reply (text is cut to fit). A str subclass is copied to a plain str first: its own
    __len__ or __str__ must not decide what it costs."""
    kept = {}
    for mime, value in bundle.items():
        mime = str.__str__(mime) if isinstance(mime, str) else str(mime)
        cost = encoded_size(mime) + ENTRY_OVERHEAD
        if isinstance(value, str):
            value = str.__str__(value)
            if mime.startswith('text/'):
                value = fitting_prefix(value, budget[0] - cost)
        size = cost + encoded_size(value)
        if size <= budget[0]:
            kept[mime] = value if isinstance(value, (str, dict, list)) else str(value)
            budget[0] -= size
    return kept


def ipython_runner():
    """Runs cells in an IPython shell; None when IPython is not installed. Started before the sandbox is ready,
    so its imports are paid while warming, not by the first request."""
    try:
        from IPython.core.displayhook import DisplayHook
        from IPython.core.displaypub import DisplayPublisher
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config
    except ImportError:
        return None
    cells = IPythonCells()
    current = {'display': [], 'error': [], 'budget': [0]}

    def show(bundle):
        kept = bounded(bundle, current['budget'])
        if kept:  # a bundle nothing of which fits adds no entry
            current['display'].append(kept)

    class Publisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
            show(data)

    class Hook(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            show(format_dict)

        def finish_displayhook(self):
            pass

    class Shell(InteractiveShell):
        def enable_gui(self, gui=None):
            pass  # inline figures need no event loop

        def showtraceback(self, exc_tuple=None, filename=None, tb_offset=None, exception_only=False,
                          running_compiled_code=False):
            current['error'].append(error_entry(sys.exc_info()[1], cells))

        def showsyntaxerror(self, filename=None, running_compiled_code=False):
            current['error'].append(error_entry(sys.exc_info()[1], cells))

    # matplotlib's inline backend, loaded when a cell first imports pyplot, shows figures as image/png.
    os.environ['MPLBACKEND'] = 'module://matplotlib_inline.backend_inline'
    shell = Shell.instance(display_pub_class=Publisher, displayhook_class=Hook,
                           config=Config({'HistoryManager': {'enabled': False}}))
    # os.system rather than a pseudo-terminal, which the sandbox has none of: `!cmd` output lands on fd 1.
    shell.system = shell.system_raw

    def run(code, number):
        current.update(display=[], error=[], budget=[DISPLAY_LIMIT])
        shell.execution_count = number
        shell.run_cell(code, store_history=True)
        if os.getpid() != KERNEL_PID:
            os._exit(0)  # a cell that forked: the child must not go on serving requests
        return current['display'], current['error']

    return run


def flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a cell may have closed or replaced the stream
            pass


def send(message):
    # The leading newline ends whatever partial line the cell's code left on the channel.
    data = ('\n' + json.dumps(message) + '\n').encode()
    while data:
        data = data[os.write(4, data):]


def serve(run):
    """Says ready, takes its settings, then runs cells until the control channel ends. `run` is ipython_runner's."""
    global OUTPUT_LIMIT, DISPLAY_LIMIT
    # Programs a cell starts (os.system, exec) do not get the channels.
    os.set_inheritable(3, False)
    os.set_inheritable(4, False)
    os.write(4, b'ready\n')
    requests = os.fdopen(3, 'rb')
    settings = json.loads(requests.readline())
    OUTPUT_LIMIT = settings['output_limit']
    DISPLAY_LIMIT = OUTPUT_LIMIT // 4 + 512 * 1024
    if settings['memory_limit'] > 0:
        resource.setrlimit(resource.RLIMIT_AS, (settings['memory_limit'], settings['memory_limit']))
    capture(1, 'stdout')
    capture(2, 'stderr')
    # Line by line, so a cell's prints and its subprocesses' output appear in the order they happened.
    sys.stdout.reconfigure(line_buffering=True)
    number = settings['first_cell']
    if run is None:
        module = types.ModuleType('__main__')
        module.__dict__['__builtins__'] = builtins
        sys.modules['__main__'] = module
        cells = {}

        def run(code, count):
            return run_cell(code, count, module.__dict__, cells)
    for line in requests:
        # The cell's code can write to fd 3 as well: what is not a request is skipped, not a crash.
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or not isinstance(request.get('id'), str) or not isinstance(
                    request.get('code'), str):
                continue
        except ValueError:
            continue
        display, error = run(request['code'], number)
        flush()
        stdout, stdout_bytes = take(1)
        stderr, stderr_bytes = take(2)
        send({'id': request['id'], 'count': number, 'stdout': stdout, 'stdout_bytes': stdout_bytes, 'stderr': stderr,
              'stderr_bytes': stderr_bytes, 'display': display, 'error': error})
        number += 1


def main():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
    if int(sys.argv[2]) > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (int(sys.argv[2]), int(sys.argv[2])))
    serve(ipython_runner())


# A session zygote (python-zygote.py) loads this file under another name, makes the runner once, and calls
# serve in each session it forks.
if __name__ == '__main__':
    main()
