import { readFileSync } from 'node:fs';

/** `pid` and its descendants, parents first, from /proc's children lists. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) tree.push(...childrenOf(tree[index] as number));
  return tree;
}

/** The children of `pid` now (none when it has exited). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // It exited meanwhile.
  }
}
