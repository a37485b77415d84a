// RFC 6902 JSON Patch, applied to values decoded by JSON.parse.

/** A patch that cannot apply: a bad pointer, a missing target, or a failed `test`. */
export class JsonPatchError extends Error {
  name = 'JsonPatchError';
}

/**
 * @typedef {{op: string, path: string, value?: unknown, from?: string}} Operation
 */

/**
 * Applies `patch` to `document` in place and returns the result.
 *
 * The result is a new value only when an operation replaces the root (`"path": ""`). On error
 * the document may be partly patched: callers that need the old one must copy it first (the
 * mirror treats a failed patch as fatal, so it does not pay for a copy per line).
 *
 * @param {unknown} document
 * @param {Operation[]} patch
 * @returns {unknown}
 */
export function applyPatch(document, patch) {
  for (const operation of patch) {
    if (operation.op !== 'replace' || !replacedMember(document, operation)) document = apply(document, operation);
  }
  return document;
}

// The members a pointer without escapes names, by pointer: a store's patches replace the same few
// members again and again. Bounded: cleared when full.
/** @type {Map<string, string[]>} */
const MEMBERS = new Map();
const MEMBERS_KEPT = 4096;

/**
 * The most common operation, a member of objects replaced, done without parsing the pointer or
 * building arrays each time: whether it applied (if not, the general path says why).
 * @param {unknown} document @param {Operation} operation @returns {boolean}
 */
function replacedMember(document, operation) {
  const pointer = operation.path;
  let tokens = MEMBERS.get(pointer);
  if (tokens === undefined) {
    if (typeof pointer !== 'string' || !pointer.startsWith('/') || pointer.includes('~')) return false;
    if (MEMBERS.size >= MEMBERS_KEPT) MEMBERS.clear();
    tokens = pointer.slice(1).split('/');
    MEMBERS.set(pointer, tokens);
  }
  const last = tokens.length - 1;
  let parent = document;
  for (let i = 0; i < last; i++) {
    if (!isObject(parent) || !Object.hasOwn(parent, tokens[i])) return false;
    parent = parent[tokens[i]];
  }
  const key = tokens[last];
  // An own member of an object: plain assignment (as `put` does), never "__proto__".
  if (!isObject(parent) || key === '__proto__' || !Object.hasOwn(parent, key) || !Object.hasOwn(operation, 'value')) return false;
  parent[key] = clone(operation.value);
  return true;
}

/**
 * Equality as RFC 6902's `test` means it: by value, objects regardless of member order.
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {unknown} document @param {Operation} operation @returns {unknown} */
function apply(document, operation) {
  const path = parse(member(operation, 'path'));
  switch (operation.op) {
    case 'add':
      return add(document, path, clone(member(operation, 'value')));
    case 'remove':
      remove(document, path);
      return document;
    case 'replace': {
      if (path.length === 0) return clone(member(operation, 'value'));
      const [parent, key] = locate(document, path);
      put(parent, key, clone(member(operation, 'value')));
      return document;
    }
    case 'test':
      if (!jsonEqual(resolve(document, path), member(operation, 'value'))) {
        throw new JsonPatchError(`test failed at ${JSON.stringify(operation.path)}`);
      }
      return document;
    case 'move': {
      const from = parse(member(operation, 'from'));
      if (path.length > from.length && from.every((token, i) => token === path[i])) {
        throw new JsonPatchError(`cannot move ${JSON.stringify(operation.from)} into its own child`);
      }
      return add(document, path, remove(document, from));
    }
    case 'copy':
      return add(document, path, structuredClone(resolve(document, parse(member(operation, 'from')))));
    default:
      throw new JsonPatchError(`unknown op ${JSON.stringify(operation.op)}`);
  }
}

/** @param {Operation} operation @param {'path' | 'from' | 'value'} name */
function member(operation, name) {
  if (!Object.hasOwn(operation, name)) throw new JsonPatchError(`${JSON.stringify(operation.op)} needs "${name}"`);
  return operation[name];
}

// The mirror must not share objects with the lines handed to the caller.
/** @param {unknown} value */
function clone(value) {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** @param {unknown} pointer @returns {string[]} */
function parse(pointer) {
  if (pointer === '') return [];
  if (typeof pointer !== 'string' || !pointer.startsWith('/')) {
    throw new JsonPatchError(`bad JSON pointer ${JSON.stringify(pointer)}`);
  }
  const tokens = pointer.slice(1).split('/');
  return pointer.includes('~') ? tokens.map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~')) : tokens;
}

/** @param {unknown[]} array @param {string} token @param {boolean} endOk */
function index(array, token, endOk) {
  if (token === '-' && endOk) return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new JsonPatchError(`bad array index ${JSON.stringify(token)}`);
  const i = Number(token);
  if (i > array.length || (i === array.length && !endOk)) throw new JsonPatchError(`array index ${i} out of range`);
  return i;
}

/** @param {unknown} container @param {string} token @returns {unknown} */
function get(container, token) {
  if (Array.isArray(container)) return container[index(container, token, false)];
  if (isObject(container)) {
    if (!Object.hasOwn(container, token)) throw new JsonPatchError(`no member ${JSON.stringify(token)}`);
    return container[token];
  }
  throw new JsonPatchError(`cannot look up ${JSON.stringify(token)} in ${kind(container)}`);
}

/** @param {unknown} document @param {string[]} path */
function resolve(document, path) {
  return path.reduce(get, document);
}

/**
 * The container of an existing target and the target's key in it (a number for arrays).
 * @param {unknown} document @param {string[]} path @returns {[any, string | number]}
 */
function locate(document, path) {
  const parent = resolve(document, path.slice(0, -1));
  const token = path[path.length - 1];
  get(parent, token);
  return [parent, Array.isArray(parent) ? index(parent, token, false) : token];
}

/** @param {unknown} document @param {string[]} path @param {unknown} value */
function add(document, path, value) {
  if (path.length === 0) return value;
  const parent = resolve(document, path.slice(0, -1));
  const token = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(index(parent, token, true), 0, value);
  else if (isObject(parent)) put(parent, token, value);
  else throw new JsonPatchError(`cannot add into ${kind(parent)}`);
  return document;
}

/**
 * Sets a member as an own data property: plain assignment of "__proto__" would set the prototype.
 * @param {any} parent @param {string | number} key @param {unknown} value
 */
function put(parent, key, value) {
  // A member the object has already is a writable data property (JSON.parse and this made it):
  // assigned, which is many times cheaper than defining it anew.
  if (key !== '__proto__' && Object.hasOwn(parent, key)) parent[key] = value;
  else Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
}

/** @param {unknown} value */
function kind(value) {
  return value === null ? 'null' : typeof value;
}

/** @param {unknown} document @param {string[]} path */
function remove(document, path) {
  if (path.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const [parent, key] = locate(document, path);
  if (Array.isArray(parent)) return parent.splice(/** @type {number} */ (key), 1)[0];
  const value = parent[key];
  delete parent[key];
  return value;
}
