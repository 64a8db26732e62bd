# The trusted test runner of agent sessions (issue 15, item 5). It runs in a fresh sandbox, through the same path
# as /run_code, before any of the model's code: it reads the job from files the host wrote (then deletes them),
# runs the model's code and the test in a separate `python3 -I` child, and decides the verdict itself.
#
# The child runs the model's code, so everything in it is the model's: it may exit at will, patch builtins,
# `assert`, unittest, the harness, write anything to any fd it holds. So the child never learns what a test
# expects, and never decides anything:
#
# - every `assert` of the test is rewritten into a report of its operands. Literal operands (the expected values)
#   stay here and never reach the child; what the child evaluates (calls into the model's code) comes back as
#   repr text, is read back here with ast.literal_eval, and compared here: an object with a forged __eq__ or
#   __bool__ arrives as text, not as an object. Comparisons (`is` too, with a literal None, True or False),
#   `not`, `and`, `or`, arithmetic, indexing and pure builtins (len, sorted, abs, ...) over those values are
#   computed here too;
# - a test passes when every assert site of it was reported at least once, every report holds, the child said it
#   finished the test and exited 0; anything else on the report channel (unknown sites, bad lines) fails it;
# - the verdict goes to this process's stdout as one line signed with a key that only the host and this
#   process know (it was in the deleted file; HMAC-SHA256, so the line never shows the key), written only once
#   every other process of the sandbox but its init is dead. The run's stdout is a named pipe the child can
#   open: a process still there could read the line, but not sign another. This process is not dumpable, so
#   the child cannot read its memory or open its fds through /proc.
#
# The job: the subject file's JSON {"mode": "cells" | "program", "cells": [...], "solution"} (the same for every
# test of a reward) and the job file's {"key", "test", "call_tests"}. "cells": a
# stateful session's cells replayed one by one (an exception in one does not stop the rest, as in the live
# session), then the test. "program": the test with the solution at its #<INSERT> line (or before it).
import sys

sys.path.pop(0)  # the working directory: a setup file there must not shadow what this runner imports

import ast  # noqa: E402
import ctypes  # noqa: E402
import hashlib  # noqa: E402
import hmac  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import operator  # noqa: E402
import os  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
JOB_FILE = '.fusebox-test.json'
SUBJECT_FILE = '.fusebox-subject.json'
INSERT_MARKER = '#<INSERT>'
CHECK = '__fusebox_check__'
# What the child may send: one line per report, the whole channel; more fails the test.
MAX_LINE_BYTES = 1 << 20
MAX_CHANNEL_BYTES = 16 << 20
OUTPUT_TAIL_BYTES = 4096
DETAIL_CHARS = 1500

# Builtins computed here over literal values when the test has not rebound their name. Those that consume an
# iterable get the child's value as a list when it is some other iterable (a generator, dict keys).
RUNNER_BUILTINS = {
    'abs': abs, 'all': all, 'any': any, 'frozenset': frozenset, 'len': len, 'list': list, 'max': max,
    'min': min, 'round': round, 'set': set, 'sorted': sorted, 'sum': sum, 'tuple': tuple,
}
ITERABLE_ARGUMENT = {'all', 'any', 'frozenset', 'len', 'list', 'max', 'min', 'set', 'sorted', 'sum', 'tuple'}
RUNNER_MATH = {'isclose': math.isclose, 'fabs': math.fabs, 'sqrt': math.sqrt, 'floor': math.floor,
               'ceil': math.ceil}
BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}

# The child: python3 -I -c CHILD <report fd>. Reads its job from stdin, runs it in a fresh __main__, and reports
# each assert site's operand values and the end of the test on the report fd. It holds references taken before
# any of the model's code runs, so an honest solution that patches json or os does not break the reports; a
# hostile one can forge them, which gains it nothing it could not get by returning values.
CHILD = r'''
import json, os, sys, traceback, types
_write, _dumps, _repr, _list, _type, _bool = os.write, json.dumps, repr, list, type, bool
_plain = (str, bytes, list, tuple, set, frozenset, dict)
_fd = int(sys.argv[1])
job = json.loads(sys.stdin.buffer.read())
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
sys.argv = ['main.py']
sys.path.insert(0, os.getcwd())

def _send(message):
    data = (_dumps(message) + '\n').encode()
    while data:
        data = data[_write(_fd, data):]

def _check(site, *leaves):
    values = []
    for iterable, leaf in leaves:
        try:
            value = leaf()
            if iterable and _type(value) not in _plain:
                value = _list(value)
            text = _repr(value)
            try:
                truth = _bool(value)
            except BaseException:
                truth = None
            values.append({'repr': text[:1048000], 'truth': truth})
        except BaseException as error:
            values.append({'raised': ('%s: %s' % (_type(error).__name__, error))[:500]})
    _send({'site': site, 'values': values})

module = types.ModuleType('__main__')
module.__dict__['__builtins__'] = __builtins__
module.__dict__[job['check']] = _check
sys.modules['__main__'] = module
namespace = module.__dict__

def run(code, name):
    exec(compile(code, name, 'exec'), namespace)

try:
    for number, cell in enumerate(job['cells'], 1):
        try:
            run(cell, '<cell-%d>' % number)
        except BaseException:
            pass
    for name, code in job['program']:
        run(code, name)
    if job['call_tests']:
        # As pytest collects them: the module's functions named test*, in the order they were defined.
        for name, value in _list(namespace.items()):
            if name.startswith('test') and _type(value) is types.FunctionType:
                value()
except BaseException:
    text = traceback.format_exc()
    sys.stderr.write(text)
    _send({'error': text[-2000:]})
    sys.stderr.flush()
    os._exit(1)
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except BaseException:
        pass
_send({'done': True})
os._exit(0)
'''


class Unverifiable(Exception):
    """A check needs something of a value that cannot be known outside the model's process."""


class Opaque:
    """A value whose repr is no Python literal: only its repr text and the child's word on its truth are known."""

    def __init__(self, text, truth):
        self.text, self.truth = text, truth


class Rewriter(ast.NodeTransformer):
    """Replaces each assert with a report of its operands: `__fusebox_check__(site, (iterable, lambda: leaf), ...)`."""

    def __init__(self, bound):
        self.bound = bound
        self.sites = []  # per site: (line, source, tree)

    def visit_Assert(self, node):
        leaves = []
        tree = self.tree(node.test, leaves, False)
        site = len(self.sites)
        self.sites.append((node.lineno, ast.unparse(node.test), tree))
        call = ast.Call(
            func=ast.Name(CHECK, ast.Load()),
            args=[ast.Constant(site)] + [
                ast.Tuple([ast.Constant(iterable), ast.Lambda(no_arguments(), leaf)], ast.Load())
                for iterable, leaf in leaves
            ],
            keywords=[],
        )
        return ast.copy_location(ast.Expr(call), node)

    def tree(self, node, leaves, iterable):
        """What is computed here for `node`; subexpressions only the child can compute become leaves."""
        try:
            return ('literal', ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Compare) and all(
                not isinstance(op, (ast.Is, ast.IsNot)) or singleton(left) or singleton(right)
                for op, left, right in zip(node.ops, [node.left, *node.comparators], node.comparators)):
            operands = [self.tree(item, leaves, False) for item in [node.left, *node.comparators]]
            return ('compare', operands, [type(op) for op in node.ops])
        if isinstance(node, ast.BoolOp):
            return ('and' if isinstance(node.op, ast.And) else 'or', [self.tree(v, leaves, False) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            operand = self.tree(node.operand, leaves, False)
            return ('not', operand) if isinstance(node.op, ast.Not) else ('unary', type(node.op), operand)
        if isinstance(node, ast.BinOp):
            return ('binary', type(node.op), self.tree(node.left, leaves, False), self.tree(node.right, leaves, False))
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            return ('index', self.tree(node.value, leaves, False), self.tree(node.slice, leaves, False))
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return ('display', type(node), [self.tree(item, leaves, False) for item in node.elts])
        function = self.runner_function(node)
        if function is not None:
            name, call = function
            arguments = [self.tree(arg, leaves, name in ITERABLE_ARGUMENT) for arg in node.args]
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            return ('call', call, arguments, keywords)
        leaves.append((iterable, node))
        return ('leaf', len(leaves) - 1, ast.unparse(node))

    def runner_function(self, node):
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        for keyword in node.keywords:
            try:
                if keyword.arg is None:
                    return None
                ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
        func = node.func
        if isinstance(func, ast.Name) and func.id in RUNNER_BUILTINS and func.id not in self.bound:
            return func.id, RUNNER_BUILTINS[func.id]
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == 'math'
                and func.attr in RUNNER_MATH and self.bound.get('math') == {'import math'}):
            return func.attr, RUNNER_MATH[func.attr]
        return None


def singleton(node):
    """A literal None, True or False: what `is` compares with by identity here as in the test (the repr of
    Ellipsis is no literal, so `x is ...` stays the child's)."""
    return isinstance(node, ast.Constant) and any(node.value is value for value in (None, True, False))


def no_arguments():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def bindings(tree):
    """Every name the test code binds, with how (`import math` counts apart, to know `math` is the real one)."""
    bound = {}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names = [(node.id, 'assign')]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [(node.name, 'def')]
        elif isinstance(node, ast.arg):
            names = [(node.arg, 'argument')]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split('.')[0]
                plain = isinstance(node, ast.Import) and alias.name == name and alias.asname is None
                names.append((name, f'import {name}' if plain else 'import'))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = [(name, 'declared') for name in node.names]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names = [(node.name, 'except')]
        for name, how in names:
            bound.setdefault(name, set()).add(how)
    return bound


def literal(entry):
    if 'raised' in entry:
        raise Unverifiable(f"raised {entry['raised']}")
    text = entry.get('repr')
    if not isinstance(text, str):
        raise Unverifiable('no value')
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Opaque(text, entry.get('truth'))


def truth(value):
    if isinstance(value, Opaque):
        if not isinstance(value.truth, bool):
            raise Unverifiable(f'the truth of {value.text[:200]} is unknown')
        return value.truth
    return bool(value)


def plain(value, what):
    if isinstance(value, Opaque):
        raise Unverifiable(f'{what} needs a Python literal, got {value.text[:200]}')
    return value


def evaluate(tree, values):
    kind = tree[0]
    if kind == 'literal':
        return tree[1]
    if kind == 'leaf':
        return literal(values[tree[1]])
    if kind == 'compare':
        left = evaluate(tree[1][0], values)
        for op, operand in zip(tree[2], tree[1][1:]):
            right = evaluate(operand, values)
            if op in (ast.Is, ast.IsNot):
                holds = (left is right) == (op is ast.Is)  # one side is a singleton; an Opaque value is none
            elif isinstance(left, Opaque) or isinstance(right, Opaque):
                if op not in (ast.Eq, ast.NotEq) or not (isinstance(left, Opaque) and isinstance(right, Opaque)):
                    raise Unverifiable(f'comparing {describe(left)} with {describe(right)}')
                holds = (left.text == right.text) == (op is ast.Eq)
            else:
                holds = bool(COMPARE[op](left, right))
            if not holds:
                return False
            left = right
        return True
    if kind in ('and', 'or'):
        # Python's value, not its truth: `(x or 0) == 1` must not hold for every truthy x.
        for item in tree[1]:
            value = evaluate(item, values)
            if truth(value) == (kind == 'or'):
                return value
        return value
    if kind == 'not':
        return not truth(evaluate(tree[1], values))
    if kind == 'unary':
        return UNARY[tree[1]](plain(evaluate(tree[2], values), 'arithmetic'))
    if kind == 'binary':
        left = plain(evaluate(tree[2], values), 'arithmetic')
        return BINARY[tree[1]](left, plain(evaluate(tree[3], values), 'arithmetic'))
    if kind == 'index':
        return plain(evaluate(tree[1], values), 'indexing')[plain(evaluate(tree[2], values), 'indexing')]
    if kind == 'display':
        items = [plain(evaluate(item, values), 'a display') for item in tree[2]]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[tree[1]](items)
    if kind == 'call':
        arguments = [plain(evaluate(item, values), tree[1].__name__) for item in tree[2]]
        return tree[1](*arguments, **tree[3])
    raise Unverifiable(f'unknown check {kind}')


def describe(value):
    return value.text[:200] if isinstance(value, Opaque) else repr(value)[:200]


def split_program(test, solution):
    """The test's parts around the solution: at its #<INSERT> line, or the solution first."""
    if INSERT_MARKER not in test:
        return '', test
    before, after = test.split(INSERT_MARKER, 1)
    # The marker is a comment: the rest of its line belongs to neither part.
    after = after.split('\n', 1)[1] if '\n' in after else ''
    return before, after


def rewrite(code, name, sites):
    tree = ast.parse(code, name)
    rewriter = Rewriter(bindings(tree))
    rewriter.sites = sites
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    return ast.unparse(tree)


def kill_others():
    """Kills every process the child started, zombies included, and reaps them. False if some are still there.

    A thread group whose leader exited shows as a zombie in /proc while its other threads run, so zombies are
    killed too. In a sandbox, whose pid namespace has the driver for init and this process as its child, every
    other process is the child's: kill(-1) reaches them all (it spares init and this process), and the kernel
    sends it so that no fork racing it escapes. Elsewhere (isolation off) only the processes below this one are
    killed; orphans come back here, as this process is their subreaper.
    """
    me = os.getpid()
    sandboxed = os.getppid() == 1 and b'\0fusebox-driver\0' in read_bytes('/proc/1/cmdline')
    for _ in range(1000):
        if sandboxed:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass  # nothing left to signal
        parents = {}
        for entry in os.listdir('/proc'):
            if entry.isdigit() and int(entry) not in (1, me):
                try:
                    parents[int(entry)] = int(read_bytes(f'/proc/{entry}/stat').rsplit(b')', 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        others, frontier = set(), {me}
        while frontier and not sandboxed:
            frontier = {pid for pid, parent in parents.items() if parent in frontier and pid not in others}
            others |= frontier
        for pid in set(parents) if sandboxed else others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not (parents if sandboxed else others):
            return True
        time.sleep(0.001)
    return False


def read_bytes(path):
    try:
        with open(path, 'rb') as file:
            return file.read()
    except OSError:
        return b''


def run_child(job, program, check):
    report_read, report_write = os.pipe()
    output_read, output_write = os.pipe()
    child = subprocess.Popen(
        ['/usr/bin/python3', '-I', '-c', CHILD, str(report_write)],
        stdin=subprocess.PIPE, stdout=output_write, stderr=output_write, pass_fds=[report_write], close_fds=True,
    )
    os.close(report_write)
    os.close(output_write)
    try:
        child.stdin.write(json.dumps({'cells': job.get('cells', []), 'program': program, 'check': check,
                                      'call_tests': job.get('call_tests', False)}).encode())
        child.stdin.close()
    except OSError:
        pass
    reports, bad, channel_bytes, tail = [], [], 0, b''
    pieces, piece_bytes, overflowed = [], 0, False
    selector = selectors.DefaultSelector()
    selector.register(report_read, selectors.EVENT_READ, 'report')
    selector.register(output_read, selectors.EVENT_READ, 'output')
    status = None
    open_fds = 2
    while open_fds:
        if status is None and child.poll() is not None:
            status = child.returncode
            kill_others()  # the child is gone: so is everything it left, and with them the pipes' writers
        for key, _ in selector.select(timeout=0.05):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
                open_fds -= 1
            elif key.data == 'output':
                tail = (tail + chunk)[-OUTPUT_TAIL_BYTES:]
            elif not overflowed:
                channel_bytes += len(chunk)
                *lines, rest = chunk.split(b'\n')
                for line in lines:
                    pieces.append(line)
                    whole = b''.join(pieces)
                    pieces, piece_bytes = [], 0
                    try:
                        reports.append(json.loads(whole))
                    except ValueError:
                        bad.append('a line that is not JSON on the report channel: %r' % whole[:100])
                if rest:
                    pieces.append(rest)
                    piece_bytes += len(rest)
                if piece_bytes > MAX_LINE_BYTES or channel_bytes > MAX_CHANNEL_BYTES:
                    bad.append('more than the report channel allows (%d bytes a line, %d in all)'
                               % (MAX_LINE_BYTES, MAX_CHANNEL_BYTES))
                    overflowed = True
                    child.kill()
    if status is None:
        status = child.wait()
    if pieces and not overflowed:
        bad.append('an unterminated line on the report channel')
    return status, reports, bad, tail.decode('utf-8', 'replace')


def judge(sites, status, reports, bad, output):
    """The verdict, from what this process saw: {passed, status, detail}."""
    failures, seen, done, error = list(bad), set(), False, None
    for report in reports:
        if done:
            failures.append('the report channel went on after the test finished')
            break
        if not isinstance(report, dict):
            failures.append('a report that is not an object')
        elif report == {'done': True}:
            done = True
        elif list(report) == ['error']:
            error = str(report['error'])
        elif (isinstance(report.get('site'), int) and 0 <= report['site'] < len(sites)
              and isinstance(report.get('values'), list) and all(isinstance(v, dict) for v in report['values'])):
            line, source, tree = sites[report['site']]
            seen.add(report['site'])
            try:
                if not truth(evaluate(tree, report['values'])):
                    failures.append(f'line {line}: assert {source}: failed{operands(tree, report["values"])}')
            except Unverifiable as reason:
                failures.append(f'line {line}: assert {source}: {reason}')
            except Exception as exception:  # noqa: BLE001 - the comparison raised here, as it would in the test
                failures.append(f'line {line}: assert {source}: {type(exception).__name__}: {exception}')
        else:
            failures.append('a report for no assert of this test')
    if error is not None:
        failures.append(error)
    elif not done or status != 0:
        failures.append(f'the test did not finish (exit status {status})')
    else:
        failures += [f'line {sites[s][0]}: assert {sites[s][1]}: never checked'
                     for s in range(len(sites)) if s not in seen]
    if not failures:
        return {'passed': True, 'status': 'success', 'detail': ''}
    kind = 'runtime_error' if error is not None or not done else 'wrong_answer'
    text = '\n'.join(failures)
    return {'passed': False, 'status': kind, 'detail': clip(text + tail_note(output, text))}


def operands(tree, values):
    leaves = []

    def walk(node):
        if node[0] == 'leaf':
            leaves.append(node)
        else:
            for part in node[1:]:
                if isinstance(part, tuple):
                    walk(part)
                elif isinstance(part, list):
                    for item in part:
                        if isinstance(item, tuple):
                            walk(item)

    walk(tree)
    shown = [f'{source} = {str(values[index].get("repr"))[:200]}' for _, index, source in leaves if index < len(values)]
    return f" ({'; '.join(shown)})" if shown else ''


def tail_note(output, shown=''):
    return f'\n--- output (end) ---\n{output}' if output.strip() and output.strip() not in shown else ''


def clip(text):
    return text if len(text) <= DETAIL_CHARS else '...' + text[-DETAIL_CHARS:]


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    with open(SUBJECT_FILE, 'rb') as subject, open(JOB_FILE, 'rb') as file:
        job = {**json.load(subject), **json.load(file)}
    os.unlink(SUBJECT_FILE)
    os.unlink(JOB_FILE)
    key = job['key'].encode()
    sites = []
    try:
        if job['mode'] == 'cells':
            program = [['<test>', rewrite(job['test'], '<test>', sites)]]
        else:
            before, after = split_program(job['test'], job['solution'])
            program = [['<test>', rewrite(before, '<test>', sites)], ['main.py', job['solution']],
                       ['<test-after>', rewrite(after, '<test>', sites)]]
    except SyntaxError as error:
        verdict = {'passed': False, 'status': 'runtime_error', 'detail': f'the test does not parse: {error}'}
    else:
        check = CHECK
        verdict = judge(sites, *run_child(job, program, check))
    if not kill_others():
        # Something the child started may still run: give no verdict it could see.
        sys.exit('fusebox test runner: processes of the test outlived it')
    text = json.dumps(verdict)  # ASCII: the host reads the same bytes back
    line = '\nfusebox-verdict %s %s\n' % (hmac.new(key, text.encode(), hashlib.sha256).hexdigest(), text)
    data = line.encode()
    while data:
        data = data[os.write(1, data):]


main()
