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
