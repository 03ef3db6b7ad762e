/** `git check-ref-format` for one path component, without a process (snapshot refs are made per append). */
export function isRefComponent(s: string): boolean {
  return (
    s.length > 0 &&
    !s.startsWith('.') &&
    !s.endsWith('.') &&
    !s.endsWith('.lock') &&
    !s.includes('..') &&
    !s.includes('@{') &&
    s !== '@' &&
    !/[\x00-\x20\x7f~^:?*[\\/]/.test(s)
  );
}

/**
 * The names of the directories of ref `name` (`refs/a/b/c`: `refs`, `refs/a`, `refs/a/b`): a ref of one of those
 * names is in its way (git's refs_verify_refname_available looks up each one; `refs` too, which git takes as a
 * one-level name).
 */
export function refDirectories(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}
