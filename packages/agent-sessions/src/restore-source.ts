/**
 * A Python cell that re-runs earlier cells in the interpreter's namespace, each on its own so that one that
 * raised does not stop the rest (as it did not stop the session). Their output is not shown to anyone.
 */
export function restoreSource(cells: readonly string[]): string {
  // JSON string literals are valid Python string literals.
  return [
    'def __fusebox_restore(cells, namespace):',
    '    for cell in cells:',
    '        try:',
    "            exec(compile(cell, '<restored>', 'exec'), namespace)",
    '        except BaseException:',
    '            pass',
    `__fusebox_restore(${JSON.stringify(cells)}, globals())`,
    'del __fusebox_restore',
  ].join('\n');
}
