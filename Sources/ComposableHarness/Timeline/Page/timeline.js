// The page `composable-actor timeline` writes: one recording (a `run --record` log) drawn as
// a lane per store instance (a store's default instance, and each named one, `primes "alice"`),
// with a step list, the state at each step and the difference it made.
//
// The page must open a recording of 100,000 actions in well under two seconds on a small
// machine, so: lanes, marks and effect bars are drawn on one <canvas> (binned to pixels when
// dense), the step list renders only the rows in view, every per-step fact sits in typed
// arrays built in one pass, and an instance's state is rebuilt on demand from a checkpoint (a
// deep copy kept every CHECKPOINT_EVERY of its steps, made lazily) plus its own patches after it.
//
// Read-only hook for tests and tools, set when the first render is done (and
// `document.body.dataset.ready` becomes "true"):
//   window.timeline = {
//     ready: true, loadMs,          // performance.now() when ready (ms since navigation start)
//     steps,                        // the number of action lines
//     stores: [{name, instance, label, steps, effects, stateKnown}], // the lanes: per store, in
//                                   // the header's order, its default instance (instance null),
//                                   // then its named ones in the order they first appear
//     effects: [{effect, store, instance, cause, operator, cancelID, status, // finished | cancelled |
//                start, end, by, error, sleeps: [{t, until}], sent: [seq]}], // failed | running
//     traced,                       // whether the run traced effects
//     mode(), setMode('time'|'step'),
//     select(index), selected(),    // a step by its index among all action lines (0-based)
//     visible(),                    // the indices of the steps the filters let through
//     filters(),                    // {store, instance, type, id}: the filters as last applied (typing
//                                   // waits for a pause on large recordings)
//     state(index),                 // a copy of the instance's state after that step (null: unknown)
//     geometry(),                   // as last drawn, in canvas CSS pixels: lanes, effect
//                                   // bars, arrows ({effect, kind: cause|sent, seq, from, to}),
//                                   // mark(index)
//   }
(() => {
  'use strict';

  const CHECKPOINT_EVERY = 1000;
  const STATUS = {
    finished: { color: '#16a34a', label: 'finished' },
    cancelled: { color: '#e08600', label: 'cancelled' },
    failed: { color: '#dc2626', label: 'failed' },
    running: { color: '#2563eb', label: 'still running at the end' },
  };
  const HOST_COLOR = '#1e293b';
  const EFFECT_ACTION_COLOR = '#7c3aed';
  const STORE_COLORS = ['#4f46e5', '#0d9488', '#c026d3', '#ea580c', '#0891b2', '#65a30d', '#be123c', '#a16207'];
  // Canvas geometry, in CSS pixels.
  const AXIS_H = 26;
  const MARK_ROW = 30; // host marks on its upper half, effect-sent marks on its lower half
  const BAR_TOP = 10; // room between the marks and the first row of bars, for the arrows
  const BAR_H = 10;
  const BAR_GAP = 4;
  const LANE_PAD = 7;
  const MAX_ROWS = 8; // effects beyond this many overlapping ones share the last row
  const PAD_L = 10;
  const PAD_R = 24;
  const ROW_H = 26; // step list
  const MAX_VALUE_LINES = 300; // per value removed or added in a difference
  const MAX_PATHS = 100;

  const $ = (id) => document.getElementById(id);
  const escapeHTML = (text) =>
    String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  // ---------------------------------------------------------------------------------------
  // The recording, indexed in one pass.

  const data = JSON.parse($('recording-data').textContent);
  const header = data.header || {};
  const lines = data.lines || [];

  // The lanes, one per store instance. `name` is the store's, `instance` the key of a named
  // instance (null for the default one).
  const stores = [];
  function addStore(name, instance, initialState) {
    const store = {
      index: stores.length, name, instance,
      label: instance === null ? name : `${name} ${JSON.stringify(instance)}`,
      initial: initialState,
      known: initialState !== null && initialState !== undefined,
      color: STORE_COLORS[stores.length % STORE_COLORS.length],
      count: 0, steps: null, effects: [],
      checkpoints: [], cursor: null, brokenAt: -1, brokenWhy: '',
      rows: 0, y: 0, height: 0,
    };
    if (store.known) store.checkpoints[0] = initialState;
    stores.push(store);
    return store;
  }
  // '' stands for the default instance: a key is never empty.
  const keyOf = (line) => (typeof line.instance === 'string' ? line.instance : '');
  // Each store's lanes by key, made before the steps are read so that a store's lanes sit
  // together: every store the header lists has its default instance's lane, even if empty; a
  // named instance starts from the store's initial state, as the process starts it.
  const families = new Map();
  for (const s of data.stores || []) families.set(s.name, { initial: s.initialState, lanes: new Map([['', null]]) });
  for (const line of lines) {
    if (line.type !== 'action' && line.type !== 'effect') continue;
    let family = families.get(line.store);
    // A line of a store the header does not list still gets a lane rather than being dropped.
    if (!family) families.set(line.store, (family = { initial: null, lanes: new Map() }));
    if (!family.lanes.has(keyOf(line))) family.lanes.set(keyOf(line), null);
  }
  for (const [name, family] of families) {
    // The default instance first, then the named ones as they came (the sort is stable).
    const keys = [...family.lanes.keys()].sort((a, b) => (b === '') - (a === ''));
    for (const key of keys) family.lanes.set(key, addStore(name, key === '' ? null : key, family.initial));
  }
  const laneOf = (line) => families.get(line.store).lanes.get(keyOf(line));
  const named = stores.filter((s) => s.instance !== null);

  let n = 0;
  for (const line of lines) if (line.type === 'action') n++;
  const stepLine = new Int32Array(n);
  const stepStore = new Int32Array(n);
  const stepRank = new Int32Array(n); // the step's ordinal among its store's steps
  const stepEffect = new Int32Array(n); // the effect that sent it; 0 for none or unknown
  // 1 for source "effect": sent by an effect, which `effect` names when traced (an action a
  // reduction's .send queued names none).
  const stepSent = new Uint8Array(n);
  const stepSeq = new Float64Array(n);
  const stepT = new Float64Array(n);
  const stepType = new Int32Array(n);
  const types = [];
  const typeIndex = new Map();
  const effects = [];
  const effectByNumber = new Map();
  let tEnd = 0;

  // A sleep ends at the effect's next line (it woke up and did something), and under the
  // virtual clock no later than its deadline.
  function closeSleep(effect, t, pos) {
    const sleep = effect.sleeps[effect.sleeps.length - 1];
    if (sleep && sleep.endPos === null) {
      sleep.endT = Math.max(sleep.t, Math.min(sleep.until, t));
      sleep.endPos = pos;
    }
  }

  let k = 0;
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li];
    const t = typeof line.t === 'number' ? line.t : 0;
    if (t > tEnd) tEnd = t;
    if (line.type === 'action') {
      const store = laneOf(line);
      stepLine[k] = li;
      stepStore[k] = store.index;
      stepRank[k] = store.count++;
      stepSeq[k] = line.seq;
      stepT[k] = t;
      const type = line.action && typeof line.action.type === 'string' ? line.action.type : '?';
      let ti = typeIndex.get(type);
      if (ti === undefined) {
        ti = types.length;
        types.push(type);
        typeIndex.set(type, ti);
      }
      stepType[k] = ti;
      stepSent[k] = line.source === 'effect' ? 1 : 0;
      if (typeof line.effect === 'number') {
        stepEffect[k] = line.effect;
        const effect = effectByNumber.get(line.effect);
        if (effect) {
          effect.sent.push(k);
          closeSleep(effect, t, k);
        }
      }
      k++;
    } else if (line.type === 'effect') {
      // An effect line sits between two action lines: in step order it is drawn half-way.
      const pos = k - 0.5;
      let effect = effectByNumber.get(line.effect);
      if (!effect) {
        const store = laneOf(line);
        effect = {
          number: line.effect, store, cause: line.cause, causeStep: -1,
          operator: line.operator, cancelID: line.cancelID,
          startT: t, startPos: pos, endT: null, endPos: null,
          status: 'running', end: null, sleeps: [], sent: [], row: { time: 0, step: 0 },
        };
        effects.push(effect);
        effectByNumber.set(line.effect, effect);
        store.effects.push(effect);
      }
      if (line.event === 'sleeping') {
        closeSleep(effect, t, pos);
        effect.sleeps.push({ t, pos, until: line.until, endT: null, endPos: null });
      } else if (line.event === 'finished' || line.event === 'cancelled' || line.event === 'failed') {
        closeSleep(effect, t, pos);
        effect.status = line.event;
        effect.end = line;
        effect.endT = t;
        effect.endPos = pos;
      }
    }
  }
  const posEnd = n - 0.5;
  for (const store of stores) {
    store.steps = new Int32Array(store.count);
  }
  for (let i = 0; i < n; i++) stores[stepStore[i]].steps[stepRank[i]] = i;

  function stepOfSeq(seq) {
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (stepSeq[mid] < seq) lo = mid + 1;
      else if (stepSeq[mid] > seq) hi = mid - 1;
      else return mid;
    }
    return -1;
  }
  const effectsByCause = new Map();
  const effectsCancelledBy = new Map();
  const push = (map, key, value) => (map.has(key) ? map.get(key).push(value) : map.set(key, [value]));
  for (const effect of effects) {
    closeSleep(effect, tEnd, posEnd);
    if (effect.endT === null) {
      effect.endT = tEnd;
      effect.endPos = posEnd;
    }
    effect.causeStep = stepOfSeq(effect.cause);
    push(effectsByCause, effect.cause, effect);
    if (effect.end && effect.end.by && typeof effect.end.by.seq === 'number') {
      push(effectsCancelledBy, effect.end.by.seq, effect);
    }
  }
  const args = Array.isArray(header.arguments) ? header.arguments : [];
  const traced = effects.length > 0 ||
    args.some((a, i) => a === '--trace=effects' || (a === '--trace' && args[i + 1] === 'effects'));

  // ---------------------------------------------------------------------------------------
  // JSON values: equality, copies, RFC 6902 patches.

  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isContainer = (v) => v !== null && typeof v === 'object';

  function deepEqual(a, b) {
    if (a === b) return true;
    if (!isContainer(a) || !isContainer(b)) return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
      return true;
    }
    if (Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!own(b, key) || !deepEqual(a[key], b[key])) return false;
    }
    return true;
  }

  const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  // Sets a member as JSON.parse does: "__proto__" too is a member, not the prototype.
  function setMember(object, key, value) {
    if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    else object[key] = value;
  }

  function clone(v) {
    if (!isContainer(v)) return v;
    if (Array.isArray(v)) return v.map(clone);
    const copy = {};
    for (const key of Object.keys(v)) setMember(copy, key, clone(v[key]));
    return copy;
  }

  function pointer(path) {
    if (path === '') return [];
    if (path[0] !== '/' || /~([^01]|$)/.test(path)) throw new Error(`bad JSON pointer ${JSON.stringify(path)}`);
    return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  const escapeToken = (token) => String(token).replace(/~/g, '~0').replace(/\//g, '~1');

  function arrayIndex(array, token, allowEnd) {
    if (allowEnd && token === '-') return array.length;
    const index = /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1;
    if (index < 0 || index > array.length || (!allowEnd && index === array.length)) {
      throw new Error(`index ${token} out of range (length ${array.length})`);
    }
    return index;
  }

  // Applies one patch. With `copied` (a Set), containers on each path are copied before they
  // change (each once per patch), so the result shares every untouched subtree with `root`:
  // that is what lets the difference skip them by reference. Without it, `root` changes in
  // place, which is what replaying thousands of steps from a checkpoint wants.
  function applyPatch(root, patch, copied) {
    for (const op of patch) root = applyOperation(root, op, copied);
    return root;
  }

  function applyOperation(root, op, copied) {
    const tokens = pointer(op.path);
    switch (op.op) {
      case 'add': return put(root, tokens, clone(op.value), copied, true);
      case 'replace': return put(root, tokens, clone(op.value), copied, false);
      case 'remove': return take(root, tokens, copied).root;
      case 'move': {
        const taken = take(root, pointer(op.from), copied);
        return put(taken.root, tokens, taken.value, copied, true);
      }
      case 'copy': return put(root, tokens, clone(get(root, pointer(op.from))), copied, true);
      case 'test':
        if (!deepEqual(get(root, tokens), op.value)) throw new Error(`test failed at ${op.path}`);
        return root;
      default: throw new Error(`unknown operation ${JSON.stringify(op.op)}`);
    }
  }

  function get(root, tokens) {
    let node = root;
    for (const token of tokens) {
      if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
      else if (isObject(node) && own(node, token)) node = node[token];
      else throw new Error(`no value at /${tokens.map(escapeToken).join('/')}`);
    }
    return node;
  }

  // The (copied if need be) root and the container that holds the path's last token.
  function parent(root, tokens, copied) {
    const writable = (container) => {
      if (!copied || copied.has(container)) return container;
      let copy;
      if (Array.isArray(container)) copy = container.slice();
      else {
        copy = {};
        for (const key of Object.keys(container)) setMember(copy, key, container[key]);
      }
      copied.add(copy);
      return copy;
    };
    if (!isContainer(root)) throw new Error(`no container at ${tokens.length ? '/' + tokens[0] : 'the root'}`);
    root = writable(root);
    let node = root;
    for (let i = 0; i < tokens.length - 1; i++) {
      const key = Array.isArray(node) ? arrayIndex(node, tokens[i], false) : tokens[i];
      const child = Array.isArray(node) || own(node, key) ? node[key] : undefined;
      if (!isContainer(child)) {
        throw new Error(`no container at /${tokens.slice(0, i + 1).map(escapeToken).join('/')}`);
      }
      const copy = writable(child);
      if (copy !== child) setMember(node, key, copy);
      node = copy;
    }
    return { root, node };
  }

  function put(root, tokens, value, copied, inserting) {
    if (tokens.length === 0) return value;
    const at = parent(root, tokens, copied);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(at.node)) {
      const index = arrayIndex(at.node, last, inserting);
      if (inserting) at.node.splice(index, 0, value);
      else at.node[index] = value;
    } else {
      if (!inserting && !own(at.node, last)) {
        throw new Error(`no value to replace at /${tokens.map(escapeToken).join('/')}`);
      }
      setMember(at.node, last, value);
    }
    return at.root;
  }

  function take(root, tokens, copied) {
    if (tokens.length === 0) throw new Error('cannot remove the root');
    const at = parent(root, tokens, copied);
    const last = tokens[tokens.length - 1];
    let value;
    if (Array.isArray(at.node)) {
      value = at.node.splice(arrayIndex(at.node, last, false), 1)[0];
    } else {
      if (!own(at.node, last)) {
        throw new Error(`no value to remove at /${tokens.map(escapeToken).join('/')}`);
      }
      value = at.node[last];
      delete at.node[last];
    }
    return { root: at.root, value };
  }

  // ---------------------------------------------------------------------------------------
  // State reconstruction, per lane (a store instance, from its own patches only): checkpoints
  // every CHECKPOINT_EVERY of its steps, made the first time a replay passes them, and one
  // working state per lane (its cursor), so stepping forward costs one patch and stepping back
  // at most CHECKPOINT_EVERY.

  // A patch that does not apply leaves the store's state unknown from that step on.
  function breakAt(store, rank, line, error) {
    store.brokenAt = rank;
    store.brokenWhy = `the patch of seq ${line.seq} does not apply: ${error.message}`;
    return new Error(store.brokenWhy);
  }

  // The store's state after its first `rank` steps. The result belongs to the store's cursor:
  // it may change in place on the next call, so callers copy what they keep.
  function stateAfter(store, rank) {
    if (store.brokenAt >= 0 && rank > store.brokenAt) throw new Error(store.brokenWhy);
    let c = Math.floor(rank / CHECKPOINT_EVERY);
    while (c > 0 && store.checkpoints[c] === undefined) c--;
    let state;
    let at;
    const cursor = store.cursor;
    if (cursor && cursor.rank <= rank && cursor.rank >= c * CHECKPOINT_EVERY) {
      state = cursor.state;
      at = cursor.rank;
    } else {
      state = clone(store.checkpoints[c]);
      at = c * CHECKPOINT_EVERY;
    }
    store.cursor = null;
    while (at < rank) {
      const line = lines[stepLine[store.steps[at]]];
      try {
        state = applyPatch(state, line.patch, null);
      } catch (error) {
        throw breakAt(store, at, line, error);
      }
      at++;
      if (at % CHECKPOINT_EVERY === 0 && store.checkpoints[at / CHECKPOINT_EVERY] === undefined) {
        store.checkpoints[at / CHECKPOINT_EVERY] = clone(state);
      }
    }
    store.cursor = { rank, state };
    return state;
  }

  // The store's state before and after step i, the two sharing every subtree the step's patch
  // left alone. { before, after } or { error }, or null when the store's state is unknown.
  function statesAround(i) {
    const store = stores[stepStore[i]];
    if (!store.known) return null;
    const rank = stepRank[i];
    try {
      const before = stateAfter(store, rank);
      const line = lines[stepLine[i]];
      let after;
      try {
        after = applyPatch(before, line.patch, new Set());
      } catch (error) {
        throw breakAt(store, rank, line, error);
      }
      // `before` stays intact (the patch copied what it changed); `after` becomes the cursor.
      store.cursor = { rank: rank + 1, state: after };
      const c = (rank + 1) / CHECKPOINT_EVERY;
      if (Number.isInteger(c) && store.checkpoints[c] === undefined) store.checkpoints[c] = clone(after);
      return { before, after };
    } catch (error) {
      return { error: error.message };
    }
  }

  // ---------------------------------------------------------------------------------------
  // The difference a step made, as TCA's TestStore prints a failure: the state pretty-printed,
  // removed lines marked −, added ones +, runs of unchanged members folded into
  // "… (N unchanged)". Arrays are compared element by element with a shortest edit script
  // (Myers), so an insertion or a removal shows as that, not as every later element changed.

  function difference(before, after) {
    const out = [];
    const paths = [];
    if (deepEqual(before, after)) return { lines: out, paths };
    pair(out, paths, 0, '', '', before, after);
    return { lines: out, paths };
  }

  const diffLine = (sign, depth, text) => ({ sign, depth, text });

  function pair(out, paths, depth, label, path, a, b) {
    if (isObject(a) && isObject(b)) {
      out.push(diffLine(' ', depth, label + '{'));
      items(out, paths, depth + 1, objectItems(path, a, b));
      out.push(diffLine(' ', depth, '}'));
    } else if (Array.isArray(a) && Array.isArray(b)) {
      out.push(diffLine(' ', depth, label + '['));
      items(out, paths, depth + 1, arrayItems(path, a, b));
      out.push(diffLine(' ', depth, ']'));
    } else {
      paths.push({ path, kind: 'changed' });
      value(out, '−', depth, label, a);
      value(out, '+', depth, label, b);
    }
  }

  // A value removed or added, pretty-printed without JSON's commas: no line of a difference
  // has one, since a member's neighbours may be folded away.
  function value(out, sign, depth, label, v) {
    const text = JSON.stringify(v, null, 2).replace(/,$/gm, '').split('\n');
    const shown = text.length > MAX_VALUE_LINES ? MAX_VALUE_LINES - 1 : text.length;
    for (let i = 0; i < shown; i++) out.push(diffLine(sign, depth, (i === 0 ? label : '') + text[i]));
    if (shown < text.length) out.push(diffLine(sign, depth, `… (${text.length - shown} more lines)`));
  }

  function objectItems(path, a, b) {
    const list = [];
    for (const key of Object.keys(a)) {
      const label = JSON.stringify(key) + ': ';
      const at = path + '/' + escapeToken(key);
      if (!own(b, key)) list.push({ kind: 'removed', label, path: at, a: a[key] });
      else if (deepEqual(a[key], b[key])) list.push({ kind: 'same', count: 1, label, b: b[key] });
      else list.push({ kind: 'changed', label, path: at, a: a[key], b: b[key] });
    }
    for (const key of Object.keys(b)) {
      if (!own(a, key)) {
        list.push({ kind: 'added', label: JSON.stringify(key) + ': ', path: path + '/' + escapeToken(key), b: b[key] });
      }
    }
    return list;
  }

  function arrayItems(path, a, b) {
    let start = 0;
    while (start < a.length && start < b.length && deepEqual(a[start], b[start])) start++;
    let endA = a.length;
    let endB = b.length;
    while (endA > start && endB > start && deepEqual(a[endA - 1], b[endB - 1])) {
      endA--;
      endB--;
    }
    const list = [];
    if (start > 0) list.push({ kind: 'same', count: start, label: '', b: b[0] });
    const script = editScript(a, start, endA, b, start, endB);
    let dels = [];
    let ins = [];
    const flush = () => {
      // Containers replaced one for one (an element whose fields changed) are compared
      // member by member; anything else is listed as removed, then added.
      const m = Math.min(dels.length, ins.length);
      let nested = m > 0;
      for (let t = 0; t < m && nested; t++) {
        const x = a[dels[t]];
        const y = b[ins[t]];
        nested = isContainer(x) && isContainer(y) && Array.isArray(x) === Array.isArray(y);
      }
      const from = nested ? m : 0;
      if (nested) {
        for (let t = 0; t < m; t++) {
          list.push({ kind: 'changed', label: '', path: path + '/' + ins[t], a: a[dels[t]], b: b[ins[t]] });
        }
      }
      for (let t = from; t < dels.length; t++) list.push({ kind: 'removed', label: '', path: path + '/' + dels[t], a: a[dels[t]] });
      for (let t = from; t < ins.length; t++) list.push({ kind: 'added', label: '', path: path + '/' + ins[t], b: b[ins[t]] });
      dels = [];
      ins = [];
    };
    for (const [op, i, j] of script) {
      if (op === '=') {
        flush();
        list.push({ kind: 'same', count: 1, label: '', b: b[j] });
      } else if (op === '-') dels.push(i);
      else ins.push(j);
    }
    flush();
    if (endA < a.length) list.push({ kind: 'same', count: a.length - endA, label: '', b: b[endB] });
    return list;
  }

  // Myers' O((N+M)D) shortest edit script between a[a0..a1) and b[b0..b1), as [op, i, j]
  // with op '=', '-' (a[i] removed) or '+' (b[j] added). Past about 2,000 edits (long lists
  // that share almost nothing) it gives up on alignment: everything removed, then added.
  function editScript(a, a0, a1, b, b0, b1) {
    const N = a1 - a0;
    const M = b1 - b0;
    const all = () => {
      const script = [];
      for (let i = a0; i < a1; i++) script.push(['-', i, -1]);
      for (let j = b0; j < b1; j++) script.push(['+', -1, j]);
      return script;
    };
    if (N === 0 || M === 0) return all();
    const max = N + M;
    const off = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace = [];
    let budget = 4e6; // Int32 slots the trace may hold
    for (let d = 0; d <= max; d++) {
      const kept = v.slice(off - d - 1, off + d + 2);
      budget -= kept.length;
      if (budget < 0) return all();
      trace.push(kept);
      for (let kk = -d; kk <= d; kk += 2) {
        let x = kk === -d || (kk !== d && v[off + kk - 1] < v[off + kk + 1]) ? v[off + kk + 1] : v[off + kk - 1] + 1;
        let y = x - kk;
        while (x < N && y < M && deepEqual(a[a0 + x], b[b0 + y])) {
          x++;
          y++;
        }
        v[off + kk] = x;
        if (x >= N && y >= M) return backtrack(trace, N, M, a0, b0);
      }
    }
    return all();
  }

  function backtrack(trace, N, M, a0, b0) {
    const script = [];
    let x = N;
    let y = M;
    for (let d = trace.length - 1; d >= 0; d--) {
      const kept = trace[d]; // V before round d, for diagonals -d-1 … d+1
      const at = (kk) => kept[kk + d + 1];
      const kk = x - y;
      const prevK = kk === -d || (kk !== d && at(kk - 1) < at(kk + 1)) ? kk + 1 : kk - 1;
      const prevX = d === 0 ? 0 : at(prevK);
      const prevY = prevX - prevK;
      while (x > prevX && y > prevY) {
        script.push(['=', a0 + x - 1, b0 + y - 1]);
        x--;
        y--;
      }
      if (d > 0) {
        if (x === prevX) script.push(['+', -1, b0 + prevY]);
        else script.push(['-', a0 + prevX, -1]);
      }
      x = prevX;
      y = prevY;
    }
    return script.reverse();
  }

  const oneLine = (v) => !isContainer(v) || (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);

  function items(out, paths, depth, list) {
    // A lone unchanged member that fits on one line is shown as context; longer runs fold.
    let run = [];
    const fold = () => {
      const count = run.reduce((sum, item) => sum + item.count, 0);
      if (count === 1 && oneLine(run[0].b)) out.push(diffLine(' ', depth, run[0].label + JSON.stringify(run[0].b)));
      else if (count > 0) out.push(diffLine(' ', depth, `… (${count} unchanged)`));
      run = [];
    };
    for (const item of list) {
      if (item.kind === 'same') {
        run.push(item);
        continue;
      }
      fold();
      if (item.kind === 'changed') pair(out, paths, depth, item.label, item.path, item.a, item.b);
      else if (item.kind === 'removed') {
        paths.push({ path: item.path, kind: 'removed' });
        value(out, '−', depth, item.label, item.a);
      } else {
        paths.push({ path: item.path, kind: 'added' });
        value(out, '+', depth, item.label, item.b);
      }
    }
    fold();
  }

  // ---------------------------------------------------------------------------------------
  // View state.

  let mode = header.clock === 'live' && tEnd > 0 ? 'time' : 'step';
  let view = fullView();
  let selected = -1;
  let focusEffect = null; // the effect last clicked, drawn highlighted
  let matches = null; // Uint8Array: 1 where the filters let the step through; null: no filter
  let visible = null; // Int32Array of the steps shown in the list
  let applied = { store: '', instance: '', type: '', id: '' }; // the filters as last applied

  const stepValue = (i) => (mode === 'time' ? stepT[i] : i);
  const effectStart = (e) => (mode === 'time' ? e.startT : e.startPos);
  const effectEnd = (e) => (mode === 'time' ? e.endT : e.endPos);

  function fullView() {
    if (mode === 'time') {
      const span = Math.max(tEnd, 1);
      return { lo: -span * 0.02, hi: span * 1.02 };
    }
    return { lo: -0.5 - Math.max(n, 1) * 0.01, hi: Math.max(n, 1) - 0.5 + Math.max(n, 1) * 0.01 };
  }

  // The first step whose axis value is >= v (values never decrease along the recording).
  function firstAtOrAfter(v) {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (stepValue(mid) < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Effect bars go in rows, so overlapping effects do not hide each other: each takes the
  // first row free at its start (greedy interval packing, per axis mode). A bar is at least a
  // few pixels wide at the whole run's scale, and counts as that wide here.
  function packRows(width) {
    const full = fullView();
    const least = (8 * (full.hi - full.lo)) / Math.max(width - PAD_L - PAD_R, 10);
    for (const store of stores) {
      const ends = [];
      for (const e of store.effects) {
        const start = effectStart(e);
        let row = ends.findIndex((end) => end < start);
        if (row < 0) row = ends.length < MAX_ROWS ? ends.length : MAX_ROWS - 1;
        ends[row] = Math.max(ends[row] === undefined ? -Infinity : ends[row], effectEnd(e), start + least);
        e.row[mode] = row;
      }
      store.rows = ends.length;
    }
    let y = AXIS_H;
    for (const store of stores) {
      store.y = y;
      // A store with no line in the recording gets a thin lane: it is there, and empty.
      store.height = store.count === 0 && store.rows === 0 ? 30
        : LANE_PAD + MARK_ROW + (store.rows ? BAR_TOP + store.rows * (BAR_H + BAR_GAP) - BAR_GAP : 0) + LANE_PAD;
      y += store.height;
    }
  }

  // ---------------------------------------------------------------------------------------
  // The canvas.

  const canvas = $('canvas');
  const ctx = canvas.getContext('2d');
  const wrap = $('canvas-wrap');
  const tooltip = $('tooltip');
  let cssWidth = 0;
  let cssHeight = 0;
  let drawQueued = false;
  let bars = []; // what the last draw put where, for hit tests and geometry()
  let arrows = [];
  const hatch = (() => {
    const tile = document.createElement('canvas');
    tile.width = tile.height = 6;
    const t = tile.getContext('2d');
    t.strokeStyle = 'rgba(255,255,255,0.75)';
    t.lineWidth = 1.6;
    t.beginPath();
    t.moveTo(-1, 7);
    t.lineTo(7, -1);
    t.stroke();
    return ctx.createPattern(tile, 'repeat');
  })();

  const plotWidth = () => Math.max(cssWidth - PAD_L - PAD_R, 10);
  const xOf = (v) => PAD_L + ((v - view.lo) / (view.hi - view.lo)) * plotWidth();
  const valueAt = (x) => view.lo + ((x - PAD_L) / plotWidth()) * (view.hi - view.lo);
  const hostY = (store) => store.y + LANE_PAD + 8;
  const sentY = (store) => store.y + LANE_PAD + 22;
  const markY = (i) => (stepSent[i] ? sentY : hostY)(stores[stepStore[i]]);
  const barY = (store, row) => store.y + LANE_PAD + MARK_ROW + BAR_TOP + row * (BAR_H + BAR_GAP);

  let packed = '';
  function resize() {
    const width = wrap.clientWidth;
    if (packed !== `${mode} ${width}`) {
      packed = `${mode} ${width}`;
      packRows(width);
    }
    const height = stores.length ? stores[stores.length - 1].y + stores[stores.length - 1].height : AXIS_H + 40;
    const dpr = window.devicePixelRatio || 1;
    if (width === cssWidth && height === cssHeight && canvas.width === Math.round(width * dpr)) return;
    cssWidth = width;
    cssHeight = height;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = height + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const labels = $('lane-labels');
    labels.style.height = height + 'px';
    labels.querySelectorAll('[data-testid=lane]').forEach((label, s) => {
      label.style.top = stores[s].y + 'px';
      label.style.height = stores[s].height + 'px';
    });
  }

  function scheduleDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      draw();
    });
  }

  function draw() {
    resize();
    const W = cssWidth;
    ctx.clearRect(0, 0, W, cssHeight);
    stores.forEach((store, s) => {
      ctx.fillStyle = s % 2 ? '#f8fafc' : '#ffffff';
      ctx.fillRect(0, store.y, W, store.height);
      ctx.fillStyle = '#e2e8f0';
      ctx.fillRect(0, store.y + store.height - 1, W, 1);
    });
    drawAxis();
    ctx.save();
    ctx.beginPath();
    ctx.rect(PAD_L - 6, AXIS_H, plotWidth() + 12, cssHeight - AXIS_H);
    ctx.clip();
    // Arrows go under the bars: a bar is never hidden by the arrows that cross its row.
    layoutBars();
    drawArrows();
    drawBars();
    drawMarks();
    drawSelection();
    ctx.restore();
  }

  function niceStep(rough) {
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    const f = rough / power;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * power;
  }

  function formatTime(ms, step) {
    if (step < 1000 && Math.abs(ms) < 10000) return `${Math.round(ms)} ms`;
    if (Math.abs(ms) < 120000) return `${(ms / 1000).toFixed(step < 1000 ? 2 : step < 10000 ? 1 : 0)} s`;
    const s = Math.round(ms / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }

  function drawAxis() {
    const W = cssWidth;
    ctx.fillStyle = '#f1f5f9';
    ctx.fillRect(0, 0, W, AXIS_H);
    ctx.fillStyle = '#cbd5e1';
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    let step = niceStep(((view.hi - view.lo) / plotWidth()) * 90);
    if (mode === 'step') step = Math.max(1, step);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    for (let v = Math.ceil(view.lo / step) * step; v <= view.hi; v += step) {
      const x = Math.round(xOf(v)) + 0.5;
      if (mode === 'step' && (v < 0 || v > n - 1)) continue;
      ctx.fillStyle = '#eef2f7';
      ctx.fillRect(x - 0.5, AXIS_H, 1, cssHeight - AXIS_H);
      ctx.fillStyle = '#94a3b8';
      ctx.fillRect(x - 0.5, AXIS_H - 6, 1, 5);
      ctx.fillStyle = '#475569';
      ctx.fillText(mode === 'time' ? formatTime(v, step) : `step ${v + 1}`, x, AXIS_H / 2 - 2);
    }
  }

  // Where each effect in view goes: a bar from its start to its end, at least 5 px wide.
  function layoutBars() {
    bars = [];
    for (const store of stores) {
      for (const e of store.effects) {
        const start = effectStart(e);
        const end = effectEnd(e);
        if (end < view.lo || start > view.hi) continue;
        const x = xOf(start);
        bars.push({ effect: e, x, y: barY(store, e.row[mode]), w: Math.max(xOf(end) - x, 5), h: BAR_H });
      }
    }
  }

  function drawBars() {
    const related = new Set(selectedEffects());
    for (const { effect: e, x: x0, y, w } of bars) {
      const x1 = x0 + w;
      const dim = matches && (e.causeStep < 0 || !matches[e.causeStep]);
      ctx.globalAlpha = dim ? 0.25 : 1;
      ctx.fillStyle = STATUS[e.status].color;
      roundRect(x0, y, x1 - x0, BAR_H, 3);
      ctx.fill();
      for (const sleep of e.sleeps) {
        const s0 = xOf(mode === 'time' ? sleep.t : sleep.pos);
        const s1 = xOf(mode === 'time' ? sleep.endT : sleep.endPos);
        if (s1 - s0 < 1) continue;
        ctx.fillStyle = 'rgba(255,255,255,0.35)';
        ctx.fillRect(s0, y + 1, s1 - s0, BAR_H - 2);
        ctx.fillStyle = hatch;
        ctx.fillRect(s0, y + 1, s1 - s0, BAR_H - 2);
      }
      if (e.status === 'running') {
        // An arrowhead at the end: it was still going when the recording stopped.
        ctx.fillStyle = STATUS.running.color;
        ctx.beginPath();
        ctx.moveTo(x1, y - 2);
        ctx.lineTo(x1 + 6, y + BAR_H / 2);
        ctx.lineTo(x1, y + BAR_H + 2);
        ctx.fill();
      }
      // The effects of the selected step, and the one last clicked, are outlined.
      if (e === focusEffect || related.has(e)) {
        ctx.strokeStyle = '#0f172a';
        ctx.lineWidth = 1.5;
        roundRect(x0 - 1.5, y - 1.5, x1 - x0 + 3, BAR_H + 3, 4);
        ctx.stroke();
      }
      ctx.globalAlpha = 1;
    }
  }

  function roundRect(x, y, w, h, r) {
    r = Math.min(r, w / 2, h / 2);
    ctx.beginPath();
    ctx.moveTo(x + r, y);
    ctx.arcTo(x + w, y, x + w, y + h, r);
    ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r);
    ctx.arcTo(x, y, x + w, y, r);
    ctx.closePath();
  }

  function glyph(i, x, radius) {
    const y = markY(i);
    ctx.beginPath();
    if (stepSent[i]) {
      ctx.moveTo(x, y - radius - 1);
      ctx.lineTo(x + radius + 1, y);
      ctx.lineTo(x, y + radius + 1);
      ctx.lineTo(x - radius - 1, y);
      ctx.closePath();
    } else {
      ctx.arc(x, y, radius, 0, Math.PI * 2);
    }
  }

  // Marks: one glyph per action when they have room, otherwise one tick per pixel column
  // (binned), which costs the same for 100 actions in view as for 100,000.
  function drawMarks() {
    const first = firstAtOrAfter(view.lo);
    const last = firstAtOrAfter(view.hi + 1e-9) - 1;
    const count = last - first + 1;
    if (count <= 0) return;
    const width = Math.ceil(plotWidth()) + 2;
    if (count * 9 < plotWidth()) {
      for (let i = first; i <= last; i++) {
        ctx.globalAlpha = matches && !matches[i] ? 0.2 : 1;
        glyph(i, xOf(stepValue(i)), 4);
        ctx.fillStyle = stepSent[i] ? EFFECT_ACTION_COLOR : HOST_COLOR;
        ctx.fill();
      }
      ctx.globalAlpha = 1;
      drawIdLabels(first, last);
      return;
    }
    // counts[(store * 2 + track) * width + column]: the steps the filters let through in
    // that pixel column; others[…]: the rest. A tick's height grows with the log of its count,
    // so where the actions crowd shows.
    const counts = new Uint32Array(stores.length * 2 * width);
    const others = new Uint32Array(stores.length * 2 * width);
    let most = 1;
    for (let i = first; i <= last; i++) {
      const column = Math.round(xOf(stepValue(i)) - PAD_L);
      if (column < 0 || column >= width) continue;
      const slot = (stepStore[i] * 2 + stepSent[i]) * width + column;
      const bins = matches && !matches[i] ? others : counts;
      most = Math.max(most, ++bins[slot]);
    }
    const scale = 1 / Math.log(most + 1);
    stores.forEach((store, s) => {
      for (let track = 0; track < 2; track++) {
        const y = (track ? sentY : hostY)(store);
        const base = (s * 2 + track) * width;
        ctx.fillStyle = track ? EFFECT_ACTION_COLOR : HOST_COLOR;
        for (let column = 0; column < width; column++) {
          const count = counts[base + column] || others[base + column];
          if (!count) continue;
          const h = 3 + 8 * Math.log(count + 1) * scale;
          ctx.globalAlpha = counts[base + column] ? 1 : 0.2;
          ctx.fillRect(PAD_L + column - 0.5, y + 5 - h, 1.5, h);
        }
      }
    });
    ctx.globalAlpha = 1;
  }

  // The ids of the actions in view, where they fit without overlapping a neighbour's.
  function drawIdLabels(first, last) {
    ctx.font = '10px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const freeFrom = new Float64Array(stores.length * 2).fill(-Infinity);
    for (let i = first; i <= last; i++) {
      const id = lines[stepLine[i]].id;
      if (id === undefined) continue;
      const text = idText(id);
      const x = xOf(stepValue(i)) + 7;
      const slot = stepStore[i] * 2 + stepSent[i];
      const width = Math.min(ctx.measureText(text).width, 80);
      const next = i < last ? xOf(stepValue(i + 1)) : Infinity;
      if (x < freeFrom[slot] || (stepStore[i + 1] === stepStore[i] && next - 6 < x + width)) continue;
      freeFrom[slot] = x + width + 8;
      const y = markY(i);
      ctx.globalAlpha = matches && !matches[i] ? 0.3 : 1;
      ctx.lineWidth = 3;
      ctx.strokeStyle = '#ffffff';
      ctx.strokeText(text, x, y, 80);
      ctx.fillStyle = '#475569';
      ctx.fillText(text, x, y, 80);
    }
    ctx.globalAlpha = 1;
  }

  // Arrows from each effect's cause to its bar, and from the bar to each action it sent:
  // for every effect in view when there are few enough to read, and always for the effects
  // of the selected step.
  function drawArrows() {
    arrows = [];
    const related = new Set(selectedEffects());
    const all = bars.length <= 300;
    for (const bar of bars) {
      const e = bar.effect;
      const strong = related.has(e) || e === focusEffect;
      if (!all && !strong) continue;
      ctx.strokeStyle = ctx.fillStyle = strong ? '#0f172a' : 'rgba(71,85,105,0.45)';
      ctx.lineWidth = strong ? 1.4 : 1;
      if (e.causeStep >= 0) {
        const x = xOf(stepValue(e.causeStep));
        arrow(e, 'cause', stepSeq[e.causeStep], x, markY(e.causeStep) + 5, bar.x + 1, bar.y - 1);
      }
      for (const sent of e.sent) {
        const x = xOf(stepValue(sent));
        arrow(e, 'sent', stepSeq[sent], Math.min(Math.max(x, bar.x), bar.x + bar.w), bar.y, x, markY(sent) + 6);
      }
    }
  }

  function arrow(effect, kind, seq, x0, y0, x1, y1) {
    arrows.push({ effect: effect.number, kind, seq, from: { x: x0, y: y0 }, to: { x: x1, y: y1 } });
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.bezierCurveTo(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2, x1, y1);
    ctx.stroke();
    const dir = y1 > y0 ? 1 : -1;
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 3, y1 - 5 * dir);
    ctx.lineTo(x1 + 3, y1 - 5 * dir);
    ctx.closePath();
    ctx.fill();
  }

  function selectedEffects() {
    if (selected < 0) return [];
    const sender = effectByNumber.get(stepEffect[selected]);
    return [...(sender ? [sender] : []), ...(effectsByCause.get(stepSeq[selected]) || [])];
  }

  function drawSelection() {
    if (selected < 0) return;
    const x = xOf(stepValue(selected));
    ctx.strokeStyle = 'rgba(15,23,42,0.55)';
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(Math.round(x) + 0.5, AXIS_H);
    ctx.lineTo(Math.round(x) + 0.5, cssHeight);
    ctx.stroke();
    ctx.setLineDash([]);
    glyph(selected, x, 5);
    ctx.fillStyle = stepSent[selected] ? EFFECT_ACTION_COLOR : HOST_COLOR;
    ctx.fill();
    ctx.lineWidth = 2.5;
    ctx.strokeStyle = '#f59e0b';
    glyph(selected, x, 8);
    ctx.stroke();
  }

  // What is under a point of the canvas: { step } or { effect } or null.
  function hit(x, y) {
    const store = stores.find((s) => y >= s.y && y < s.y + s.height);
    if (!store) return null;
    if (y < store.y + LANE_PAD + MARK_ROW) {
      if (!store.count) return null;
      const v = valueAt(x);
      // The store's nearest step on the axis.
      let lo = 0;
      let hi = store.count;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (stepValue(store.steps[mid]) < v) lo = mid + 1;
        else hi = mid;
      }
      // Then the nearest mark in the plane among those a few pixels either side (host and
      // effect-sent marks share an x on their two tracks).
      let best = -1;
      let bestDistance = 9;
      const near = (r) => {
        const i = store.steps[r];
        const dx = xOf(stepValue(i)) - x;
        if (Math.abs(dx) > 8) return false;
        const distance = Math.hypot(dx, markY(i) - y);
        if (distance < bestDistance) {
          best = i;
          bestDistance = distance;
        }
        return true;
      };
      for (let r = lo - 1; r >= 0 && r > lo - 200 && near(r); r--);
      for (let r = lo; r < store.count && r < lo + 200 && near(r); r++);
      return best >= 0 ? { step: best } : null;
    }
    for (let b = bars.length - 1; b >= 0; b--) {
      const bar = bars[b];
      if (bar.effect.store === store && y >= bar.y - 2 && y <= bar.y + bar.h + 2 && x >= bar.x - 3 && x <= bar.x + bar.w + 3) {
        return { effect: bar.effect };
      }
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------
  // Words for steps and effects.

  const idText = (id) => (typeof id === 'string' ? id : JSON.stringify(id));
  // A lane's name as HTML: the store's, and a named instance's key after it, quoted as JSON.
  const laneName = (store) => escapeHTML(store.name) +
    (store.instance === null ? '' : ` <span class="instance">${escapeHTML(JSON.stringify(store.instance))}</span>`);
  const typeOf = (i) => types[stepType[i]];
  const stepName = (i) => `#${stepSeq[i]} ${typeOf(i)}`;
  const timeText = (t) => `${t} ms`;

  function senderText(i) {
    if (!stepSent[i]) return 'sent by the host';
    if (stepEffect[i]) return `sent by effect ${stepEffect[i]}`;
    return traced ? "queued by a reduction's .send" : 'sent by an effect';
  }

  function effectTitle(e) {
    return `effect ${e.number} (${[e.operator, e.cancelID].filter(Boolean).join(' · ')})`;
  }

  function endText(e) {
    if (e.status === 'running') return 'still running at the end';
    const end = e.end;
    if (e.status === 'cancelled') {
      const by = end.by || {};
      const who = typeof by.seq === 'number' && stepOfSeq(by.seq) >= 0 ? ` by ${stepName(stepOfSeq(by.seq))}` : '';
      return `cancelled (${by.reason}${who}) at ${timeText(end.t)}`;
    }
    if (e.status === 'failed') return `failed at ${timeText(end.t)}: ${end.error}`;
    return `finished at ${timeText(end.t)}`;
  }

  // ---------------------------------------------------------------------------------------
  // Header, lanes, legend.

  function renderChrome() {
    document.title = `${data.title || 'recording'} · timeline`;
    $('title').textContent = data.title || 'recording';
    const counts = { finished: 0, cancelled: 0, failed: 0, running: 0 };
    for (const e of effects) counts[e.status]++;
    const duration = formatTime(tEnd, tEnd >= 1000 ? 1000 : 1);
    const facts = [
      ['clock', header.clock === 'virtual' ? 'virtual clock' : 'live clock'],
      ['stores', `${families.size} ${families.size === 1 ? 'store' : 'stores'}`],
      ['actions', `${n.toLocaleString('en-US')} ${n === 1 ? 'action' : 'actions'}`],
      ['effects', traced ? `${effects.length.toLocaleString('en-US')} ${effects.length === 1 ? 'effect' : 'effects'}` : 'effects not traced'],
      ['duration', duration],
    ];
    if (named.length) {
      facts.splice(2, 0, ['instances', `${named.length.toLocaleString('en-US')} named ${named.length === 1 ? 'instance' : 'instances'}`]);
    }
    if (header.clock === 'live' && header.startTime) {
      facts.push(['started', new Date(header.startTime).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')]);
    }
    if (header.seed) facts.push(['seed', `seed ${header.seed}`]);
    if (header.binary) facts.push(['binary', `v${header.binary}`]);
    $('facts').innerHTML = facts
      .map(([key, text]) => `<li data-testid="fact-${key}" class="${key === 'effects' && !traced ? 'warn' : ''}">${escapeHTML(text)}</li>`)
      .join('');

    $('lane-labels').innerHTML = '<div class="axis-caption" id="axis-caption"></div>' + stores
      .map((store) => {
        const note = store.known ? '' : '<span class="unknown" title="This binary does not host this store: its patches are shown, its state is not">state unknown</span>';
        const instance = store.instance === null ? '' : ` data-instance="${escapeHTML(store.instance)}"`;
        return `<div class="lane${store.count || store.effects.length ? '' : ' empty'}" data-testid="lane" data-store="${escapeHTML(store.name)}"${instance}>
          <div class="lane-name" title="${escapeHTML(store.label)}"><i style="background:${store.color}"></i>${laneName(store)}</div>
          <div class="lane-meta">${store.count || store.effects.length ? `${store.count.toLocaleString('en-US')} actions${traced ? ` · ${store.effects.length} effects` : ''}` : 'no actions'}</div>${note}</div>`;
      })
      .join('');

    const storeSelect = $('filter-store');
    for (const name of families.keys()) storeSelect.add(new Option(name, name));
    // The instance filter, and room for keys in the step list, only when the recording has
    // named instances.
    $('filter-instance-field').hidden = named.length === 0;
    document.body.classList.toggle('instances', named.length > 0);
    $('instance-keys').innerHTML = [...new Set(named.map((s) => s.instance))]
      .map((key) => `<option value="${escapeHTML(key)}">`).join('');
    $('action-types').innerHTML = types.slice().sort().map((type) => `<option value="${escapeHTML(type)}">`).join('');

    const key = (cls, label, extra = '') => `<span class="key" ${extra}><span class="swatch ${cls}"></span>${label}</span>`;
    let legend = key('host', 'host action') + key('sent', 'action sent by an effect');
    if (traced) {
      legend += '<span class="sep"></span>';
      for (const status of Object.keys(STATUS)) {
        legend += key(`bar ${status}`, `${STATUS[status].label} <b>${counts[status]}</b>`,
          `data-testid="legend-${status}" data-count="${counts[status]}"`);
      }
      legend += key('bar sleeping', 'sleeping') + key('arrow', 'cause → effect → sent');
    } else {
      legend += '<span class="sep"></span><span class="note" data-testid="not-traced">Effects were not traced: record with <code>--trace effects</code> to see them.</span>';
    }
    legend += '<span class="hint">wheel: zoom · drag: pan · click: select · ← →: step</span>';
    $('legend').innerHTML = legend;
  }

  function renderMode() {
    $('axis-caption').textContent = mode === 'step' ? 'step order' : header.clock === 'virtual' ? 'virtual time' : 'time';
    for (const button of document.querySelectorAll('[data-mode]')) {
      const on = button.dataset.mode === mode;
      button.classList.toggle('on', on);
      button.setAttribute('aria-checked', String(on));
    }
  }

  function setMode(next) {
    if (next !== 'time' && next !== 'step') return;
    mode = next;
    view = fullView();
    renderMode();
    if (selected >= 0) keepInView(selected);
    scheduleDraw();
  }

  // ---------------------------------------------------------------------------------------
  // Filters and the step list.

  const list = $('step-list');
  const spacer = $('step-spacer');
  const slider = $('slider');
  const filterStore = $('filter-store');
  const filterInstance = $('filter-instance');
  const filterType = $('filter-type');
  const filterId = $('filter-id');

  function applyFilters() {
    const store = filterStore.value;
    // All of the key, as it was sent: a key may begin or end with a space.
    const instance = filterInstance.value;
    const needle = filterType.value.trim().toLowerCase();
    const id = filterId.value.trim();
    applied = { store, instance, type: filterType.value.trim(), id };
    if (!store && !instance && !needle && !id) {
      matches = null;
      visible = null;
    } else {
      const laneMatches = stores.map((s) => (!store || s.name === store) && (!instance || s.instance === instance));
      const typeMatches = types.map((type) => type.toLowerCase().includes(needle));
      matches = new Uint8Array(n);
      let count = 0;
      for (let i = 0; i < n; i++) {
        if (!laneMatches[stepStore[i]]) continue;
        if (!typeMatches[stepType[i]]) continue;
        if (id) {
          const own = lines[stepLine[i]].id;
          if (own === undefined || idText(own) !== id) continue;
        }
        matches[i] = 1;
        count++;
      }
      visible = new Int32Array(count);
      for (let i = 0, j = 0; i < n; i++) if (matches[i]) visible[j++] = i;
    }
    const shown = visibleCount();
    $('step-count').textContent = visible ? `${shown.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} steps` : `${n.toLocaleString('en-US')} steps`;
    $('step-count').dataset.count = String(shown);
    spacer.style.height = shown * ROW_H + 'px';
    slider.max = String(Math.max(shown - 1, 0));
    slider.disabled = shown === 0;
    list.classList.toggle('empty', shown === 0);
    syncPosition();
    if (selected >= 0) scrollListTo(selected);
    renderList();
    scheduleDraw();
  }

  const visibleCount = () => (visible ? visible.length : n);
  const visibleAt = (p) => (visible ? visible[p] : p);

  // The position in the list of the step, or of the last one before it (-1 if none).
  function positionOf(i) {
    if (!visible) return Math.min(i, n - 1);
    let lo = 0;
    let hi = visible.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (visible[mid] <= i) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  let listQueued = false;
  function renderList() {
    listQueued = false;
    const total = visibleCount();
    const height = list.clientHeight || 400;
    // The browser may clamp scrollTop to a shorter list only at its next layout: clamp here.
    const top = Math.min(list.scrollTop, Math.max(0, total * ROW_H - height));
    const first = Math.max(0, Math.floor(top / ROW_H) - 6);
    const last = Math.min(total, Math.ceil((top + height) / ROW_H) + 6);
    let html = '';
    for (let p = first; p < last; p++) {
      const i = visibleAt(p);
      const line = lines[stepLine[i]];
      const store = stores[stepStore[i]];
      const effect = stepEffect[i];
      html += `<div class="row${i === selected ? ' selected' : ''}${stepSent[i] ? ' sent' : ''}" data-testid="step-row" data-index="${i}" data-seq="${stepSeq[i]}" style="top:${p * ROW_H}px">` +
        `<span class="seq">${stepSeq[i]}</span><span class="t">${stepT[i]}</span>` +
        `<span class="store" title="${escapeHTML(store.label)}"><i style="background:${store.color}"></i><span class="name">${laneName(store)}</span></span>` +
        `<span class="type"><b class="src" title="${escapeHTML(senderText(i))}"></b>${escapeHTML(typeOf(i))}${effect ? `<em>effect ${effect}</em>` : ''}</span>` +
        `<span class="id">${line.id === undefined ? '' : escapeHTML(idText(line.id))}</span></div>`;
    }
    // The spacer holds the rows so the scroll height is the whole list's.
    spacer.innerHTML = html;
  }
  list.addEventListener('scroll', () => {
    if (!listQueued) {
      listQueued = true;
      requestAnimationFrame(renderList);
    }
  });
  list.addEventListener('click', (event) => {
    const row = event.target.closest('.row');
    if (row) select(Number(row.dataset.index));
  });

  function syncPosition() {
    const total = visibleCount();
    const p = selected >= 0 ? positionOf(selected) : -1;
    const exact = p >= 0 && visibleAt(p) === selected;
    slider.value = String(Math.max(p, 0));
    $('position').textContent = selected < 0 ? '' :
      exact ? `step ${(p + 1).toLocaleString('en-US')} of ${total.toLocaleString('en-US')}` : 'selected step is filtered out';
  }

  function scrollListTo(i) {
    const p = positionOf(i);
    if (p < 0 || visibleAt(p) !== i) return;
    const top = p * ROW_H;
    const height = list.clientHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW_H > list.scrollTop + height) list.scrollTop = top + ROW_H - height;
  }

  // ---------------------------------------------------------------------------------------
  // Selecting a step.

  function select(i) {
    if (!(i >= 0 && i < n)) return;
    selected = Math.floor(i);
    focusEffect = null;
    keepInView(selected);
    syncPosition();
    scrollListTo(selected);
    renderList();
    renderDetail(selected);
    scheduleDraw();
  }

  function keepInView(i) {
    const v = stepValue(i);
    const span = view.hi - view.lo;
    if (v < view.lo || v > view.hi) {
      const full = fullView();
      view.lo = Math.max(full.lo, Math.min(v - span / 2, full.hi - span));
      view.hi = view.lo + span;
    }
  }

  function move(delta) {
    const total = visibleCount();
    if (!total) return;
    let p;
    if (selected < 0) p = delta > 0 ? 0 : total - 1;
    else {
      // `at` is the selected step's row, or, when the filters hide it, the row before it:
      // from a hidden step, → goes to the next listed one and ← to the previous.
      const at = positionOf(selected);
      const exact = at >= 0 && visibleAt(at) === selected;
      p = exact || delta > 0 ? at + delta : at + delta + 1;
    }
    select(visibleAt(Math.max(0, Math.min(total - 1, p))));
  }

  function renderDetail(i) {
    const line = lines[stepLine[i]];
    const store = stores[stepStore[i]];
    const sent = effectByNumber.get(stepEffect[i]);
    const payload = Object.assign({}, line.action);
    delete payload.type;
    const link = (step, text) => (step >= 0 ? `<a href="#" data-step="${step}">${escapeHTML(text)}</a>` : escapeHTML(text));
    const effectLink = (e) => `<a href="#" data-effect="${e.number}">${escapeHTML(effectTitle(e))}</a>`;
    let html = `<div class="detail-head"><span class="seq">#${stepSeq[i]}</span><span class="type">${escapeHTML(typeOf(i))}</span>`;
    html += '<span class="badges">' +
      `<span class="badge store" data-testid="step-lane"><i style="background:${store.color}"></i>${laneName(store)}</span>` +
      `<span class="badge ${stepSent[i] ? 'sent' : 'host'}" data-testid="step-source">${escapeHTML(senderText(i))}</span>` +
      (line.id === undefined ? '' : `<span class="badge id" data-testid="step-id">id ${escapeHTML(JSON.stringify(line.id))}</span>`) +
      `<span class="badge">t = ${escapeHTML(timeText(stepT[i]))}</span>` +
      '</span></div>';
    if (Object.keys(payload).length) html += `<code class="payload">${escapeHTML(JSON.stringify(payload))}</code>`;
    const relations = [];
    if (sent) {
      relations.push(`Sent by ${effectLink(sent)}, which ${link(sent.causeStep, sent.causeStep >= 0 ? stepName(sent.causeStep) : `seq ${sent.cause}`)} started; ${escapeHTML(endText(sent))}.`);
    }
    for (const e of effectsByCause.get(stepSeq[i]) || []) {
      relations.push(`Started ${effectLink(e)}: ${escapeHTML(endText(e))}${e.sent.length ? `, after sending ${e.sent.length} ${e.sent.length === 1 ? 'action' : 'actions'}` : ''}.`);
    }
    for (const e of effectsCancelledBy.get(stepSeq[i]) || []) {
      relations.push(`Cancelled ${effectLink(e)} (${escapeHTML(e.end.by.reason)}).`);
    }
    if (relations.length) html += `<ul class="relations" data-testid="relations">${relations.map((r) => `<li>${r}</li>`).join('')}</ul>`;

    const diffEl = $('diff');
    const stateEl = $('state');
    const states = statesAround(i);
    let paths = [];
    if (states === null) {
      diffEl.innerHTML = `<span class="notice">The state of ${escapeHTML(store.label)} is unknown (this binary does not host ${escapeHTML(store.name)}). The step's patch:</span>\n` + patchLines(line.patch);
      stateEl.innerHTML = `<span class="notice">unknown: this binary does not host ${escapeHTML(store.name)}</span>`;
    } else if (states.error) {
      diffEl.innerHTML = `<span class="notice error">${escapeHTML(states.error)}</span>\n` + patchLines(line.patch);
      stateEl.innerHTML = '<span class="notice error">unknown from this step on</span>';
    } else {
      const result = difference(states.before, states.after);
      paths = result.paths;
      diffEl.innerHTML = result.lines.length
        ? result.lines.map((l) => `<span class="${l.sign === '−' ? 'del' : l.sign === '+' ? 'add' : l.text.startsWith('… (') ? 'fold' : 'ctx'}">${l.sign} ${'  '.repeat(l.depth)}${escapeHTML(l.text)}</span>`).join('\n')
        : '<span class="notice">No change: this step left the state as it was.</span>';
      stateEl.textContent = JSON.stringify(states.after, null, 2);
    }
    if (paths.length) {
      const shown = paths.slice(0, MAX_PATHS);
      html += `<div class="paths" data-testid="changed-paths"><span class="label">${paths.length === 1 ? '1 path' : `${paths.length} paths`} differ</span>` +
        shown.map((p) => `<code class="${p.kind}" data-path="${escapeHTML(p.path)}">${escapeHTML(p.path || '(the whole state)')}</code>`).join('') +
        (paths.length > shown.length ? `<span class="more">and ${paths.length - shown.length} more</span>` : '') + '</div>';
    }
    html += `<details class="patch"><summary>Patch (${line.patch.length} ${line.patch.length === 1 ? 'operation' : 'operations'})</summary><pre>${escapeHTML(line.patch.map((op) => JSON.stringify(op)).join('\n'))}</pre></details>`;
    $('step-detail').innerHTML = html;
  }

  function patchLines(patch) {
    if (!patch.length) return '<span class="ctx">  (empty patch)</span>';
    return patch.map((op) => {
      const sign = op.op === 'remove' ? '−' : op.op === 'test' ? ' ' : '+';
      const from = op.from === undefined ? '' : ` from ${op.from}`;
      const value = op.value === undefined ? '' : ` ${JSON.stringify(op.value)}`;
      return `<span class="${sign === '−' ? 'del' : sign === '+' ? 'add' : 'ctx'}">${sign} ${escapeHTML(op.op)} ${escapeHTML(op.path)}${escapeHTML(from)}${escapeHTML(value)}</span>`;
    }).join('\n');
  }

  $('step-detail').addEventListener('click', (event) => {
    const target = event.target.closest('a[data-step], a[data-effect]');
    if (!target) return;
    event.preventDefault();
    if (target.dataset.step) select(Number(target.dataset.step));
    else showEffect(effectByNumber.get(Number(target.dataset.effect)));
  });

  // An effect is shown through the step that started it, with its bar outlined.
  function showEffect(e) {
    if (!e) return;
    if (e.causeStep >= 0) select(e.causeStep);
    focusEffect = e;
    scheduleDraw();
  }

  // ---------------------------------------------------------------------------------------
  // Input: canvas pointer, keys, controls.

  let drag = null;
  canvas.addEventListener('mousedown', (event) => {
    drag = { x: event.clientX, lo: view.lo, hi: view.hi, moved: false };
  });
  window.addEventListener('mouseup', (event) => {
    if (!drag) return;
    const wasDrag = drag.moved;
    drag = null;
    if (wasDrag || event.target !== canvas) return;
    const found = hit(event.offsetX, event.offsetY);
    if (found && found.step !== undefined) select(found.step);
    else if (found) showEffect(found.effect);
  });
  canvas.addEventListener('mousemove', (event) => {
    if (drag) {
      const dx = event.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const shift = (dx / plotWidth()) * (drag.hi - drag.lo);
        panTo(drag.lo - shift, drag.hi - drag.lo);
        tooltip.hidden = true;
        return;
      }
    }
    const found = hit(event.offsetX, event.offsetY);
    canvas.style.cursor = found ? 'pointer' : drag ? 'grabbing' : 'grab';
    if (!found) {
      tooltip.hidden = true;
      return;
    }
    tooltip.innerHTML = found.step !== undefined ? stepTooltip(found.step) : effectTooltip(found.effect);
    tooltip.hidden = false;
    // Placed in the window (position: fixed), so the lanes' scroll box does not clip it.
    const left = Math.min(event.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    const below = event.clientY + 16;
    const top = below + tooltip.offsetHeight > window.innerHeight - 8 ? event.clientY - tooltip.offsetHeight - 10 : below;
    tooltip.style.left = Math.max(8, left) + 'px';
    tooltip.style.top = Math.max(8, top) + 'px';
  });
  canvas.addEventListener('mouseleave', () => {
    tooltip.hidden = true;
  });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    const full = fullView();
    const span = view.hi - view.lo;
    if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
      const delta = event.shiftKey ? event.deltaY : event.deltaX;
      panTo(view.lo + (delta / plotWidth()) * span, span);
      return;
    }
    const minSpan = mode === 'time' ? Math.min(5, full.hi - full.lo) : Math.min(8, full.hi - full.lo);
    const next = Math.max(minSpan, Math.min(full.hi - full.lo, span * Math.exp(event.deltaY * 0.0018)));
    const anchor = valueAt(event.offsetX);
    const fraction = (event.offsetX - PAD_L) / plotWidth();
    panTo(anchor - fraction * next, next);
  }, { passive: false });
  canvas.addEventListener('dblclick', () => fit());

  function panTo(lo, span) {
    const full = fullView();
    lo = Math.max(full.lo, Math.min(lo, full.hi - span));
    view = { lo, hi: lo + span };
    scheduleDraw();
  }

  function fit() {
    view = fullView();
    scheduleDraw();
  }

  function stepTooltip(i) {
    const line = lines[stepLine[i]];
    return `<b>${escapeHTML(stepName(i))}</b><br>${escapeHTML(stores[stepStore[i]].label)} · ` +
      escapeHTML(senderText(i)) +
      (line.id === undefined ? '' : ` · id ${escapeHTML(JSON.stringify(line.id))}`) + ` · t = ${escapeHTML(timeText(stepT[i]))}`;
  }

  function effectTooltip(e) {
    const cause = e.causeStep >= 0 ? stepName(e.causeStep) : `seq ${e.cause}`;
    const sleeps = e.sleeps.map((s) => `slept ${s.t}–${s.endT} ms${s.endT < s.until ? ` (until ${s.until})` : ''}`);
    return `<b>${escapeHTML(effectTitle(e))}</b> <span class="status ${e.status}">${escapeHTML(e.status === 'running' ? 'still running' : e.status)}</span><br>` +
      `started by ${escapeHTML(cause)} at ${escapeHTML(timeText(e.startT))}<br>${escapeHTML(endText(e))}` +
      (e.sent.length ? `<br>sent ${e.sent.map((s) => '#' + stepSeq[s]).slice(0, 8).join(', ')}${e.sent.length > 8 ? ` and ${e.sent.length - 8} more` : ''}` : '') +
      (sleeps.length ? `<br>${escapeHTML(sleeps.slice(0, 3).join('; '))}${sleeps.length > 3 ? ' …' : ''}` : '');
  }

  document.addEventListener('keydown', (event) => {
    const target = event.target;
    // Text fields, the store menu and the slider use the arrow keys themselves.
    if (target.closest && target.closest('input, select, textarea')) {
      if (event.key === 'Escape') target.blur();
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const page = Math.max(1, Math.floor(list.clientHeight / ROW_H) - 1);
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, PageUp: -page, PageDown: page };
    if (event.key in moves) move(moves[event.key]);
    else if (event.key === 'Home') move(-Infinity);
    else if (event.key === 'End') move(Infinity);
    else return;
    event.preventDefault();
  });

  let filterTimer = 0;
  const refilter = () => {
    clearTimeout(filterTimer);
    // Large recordings wait for a pause in typing; small ones filter at each key.
    filterTimer = setTimeout(applyFilters, n > 20000 ? 150 : 0);
  };
  filterType.addEventListener('input', refilter);
  filterId.addEventListener('input', refilter);
  filterInstance.addEventListener('input', refilter);
  filterStore.addEventListener('change', applyFilters);
  slider.addEventListener('input', () => {
    if (visibleCount()) select(visibleAt(Number(slider.value)));
  });
  $('prev').addEventListener('click', () => move(-1));
  $('next').addEventListener('click', () => move(1));
  $('fit').addEventListener('click', fit);
  for (const button of document.querySelectorAll('[data-mode]')) {
    button.addEventListener('click', () => setMode(button.dataset.mode));
  }
  new ResizeObserver(() => {
    renderList();
    scheduleDraw();
  }).observe(wrap);
  new ResizeObserver(renderList).observe(list);

  // ---------------------------------------------------------------------------------------
  // First render, then the hook.

  renderChrome();
  renderMode();
  applyFilters();
  if (n > 0) select(0);
  else $('step-detail').textContent = 'This recording has no actions.';
  draw();

  const effectInfo = effects.map((e) => Object.freeze({
    effect: e.number,
    store: e.store.name,
    instance: e.store.instance,
    cause: e.cause,
    operator: e.operator,
    cancelID: e.cancelID === undefined ? null : e.cancelID,
    status: e.status,
    start: e.startT,
    end: e.end ? e.end.t : null,
    by: e.end && e.end.by ? e.end.by : null,
    error: e.end && e.end.error !== undefined ? e.end.error : null,
    sleeps: e.sleeps.map((s) => ({ t: s.t, until: s.until })),
    sent: e.sent.map((i) => stepSeq[i]),
  }));
  window.timeline = Object.freeze({
    ready: true,
    loadMs: performance.now(),
    steps: n,
    traced,
    stores: stores.map((s) => Object.freeze({
      name: s.name, instance: s.instance, label: s.label, steps: s.count, effects: s.effects.length, stateKnown: s.known,
    })),
    effects: effectInfo,
    mode: () => mode,
    setMode,
    select,
    selected: () => selected,
    visible: () => (visible ? Array.from(visible) : Array.from({ length: n }, (_, p) => p)),
    filters: () => ({ ...applied }),
    state: (i) => {
      if (!(i >= 0 && i < n)) return null;
      const store = stores[stepStore[i]];
      if (!store.known) return null;
      return clone(stateAfter(store, stepRank[i] + 1));
    },
    geometry: () => ({
      width: cssWidth,
      lanes: stores.map((s) => ({ store: s.name, instance: s.instance, y: s.y, height: s.height })),
      bars: bars.map((b) => ({ effect: b.effect.number, status: b.effect.status, x: b.x, y: b.y, w: b.w, h: b.h })),
      arrows: arrows.map((a) => ({ ...a })),
      mark: (i) => (i >= 0 && i < n ? { x: xOf(stepValue(i)), y: markY(i) } : null),
    }),
  });
  document.body.dataset.ready = 'true';
})();
