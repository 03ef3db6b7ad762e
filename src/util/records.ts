/**
 * Records keyed by names that come from data (agent ids, header names, provider ids): an id such as `__proto__`,
 * `constructor` or `toString` matches `^[A-Za-z0-9_.-]{1,128}$`, and on an ordinary object it names a member of
 * Object.prototype: a lookup finds a function that was never stored, and a `__proto__` store changes the prototype
 * instead of storing (the key is then missing from every listing and from JSON.stringify). These records have no
 * prototype, and a lookup reads only what was stored.
 */

/** An empty record with no prototype: every key, `__proto__` included, is stored as an own property. */
export function idRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The value stored under `key` itself, never one inherited from a prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
