// RFC 6902 apply: the RFC's own examples (Appendix A) and the edges the mirror relies on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPatch, jsonEqual, JsonPatchError } from '../patch.js';

// [document, patch, expected] from RFC 6902 Appendix A.
const RFC_EXAMPLES = [
  [{ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  [{ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  [{ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  [{ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  [{ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  [
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  [{ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
  [
    { baz: 'qux', foo: ['a', 2, 'c'] },
    [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
    { baz: 'qux', foo: ['a', 2, 'c'] },
  ],
  [{ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
  [{ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  [{ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  [{ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
];

// [document, patch] from Appendix A that must fail.
const RFC_FAILURES = [
  [{ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
  [{ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
  [{ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]],
];

test('RFC 6902 Appendix A examples', () => {
  for (const [document, patch, expected] of RFC_EXAMPLES) assert.deepEqual(applyPatch(document, patch), expected);
  for (const [document, patch] of RFC_FAILURES) assert.throws(() => applyPatch(document, patch), JsonPatchError);
});

test('pointers unescape ~1 then ~0', () => {
  assert.deepEqual(applyPatch({ 'a/b': { 'm~n': 1 } }, [{ op: 'replace', path: '/a~1b/m~0n', value: 2 }]), { 'a/b': { 'm~n': 2 } });
  assert.deepEqual(applyPatch({ '~1': 0 }, [{ op: 'replace', path: '/~01', value: 3 }]), { '~1': 3 });
});

test('copies are deep, root operations replace the document, values are not shared', () => {
  const document = { a: { b: [1] } };
  applyPatch(document, [{ op: 'copy', from: '/a', path: '/c' }]);
  document.c.b.push(2);
  assert.deepEqual(document.a, { b: [1] });
  assert.deepEqual(applyPatch({ x: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
  assert.deepEqual(applyPatch({ x: 1 }, [{ op: 'add', path: '', value: { y: 2 } }]), { y: 2 });
  const patch = [{ op: 'add', path: '/list', value: [1, 2] }];
  const patched = applyPatch({}, patch);
  patch[0].value.push(3);
  assert.deepEqual(patched, { list: [1, 2] });
});

test('a member named __proto__ is data, not a prototype', () => {
  const patched = applyPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
  assert.equal(Object.getPrototypeOf(patched), Object.prototype);
  assert.deepEqual(Object.keys(patched), ['__proto__']);
});

test('invalid operations fail', () => {
  for (const operation of [
    { op: 'remove', path: '/missing' },
    { op: 'replace', path: '/missing', value: 1 },
    { op: 'add', path: '/list/3', value: 1 },
    { op: 'add', path: '/list/01', value: 1 },
    { op: 'remove', path: '/list/-' },
    { op: 'replace', path: '/list/2', value: 1 },
    { op: 'move', from: '/object', path: '/object/inner' },
    { op: 'add', path: 'list', value: 1 },
    { op: 'add', path: '/x' },
    { op: 'remove', path: '' },
    { op: 'frobnicate', path: '/x' },
    { op: 'add', path: '/list/0/deeper', value: 1 },
    { op: 'remove', path: '/toString' },
  ]) {
    assert.throws(() => applyPatch({ list: [1, 2], object: {} }, [operation]), JsonPatchError, JSON.stringify(operation));
  }
});

test('the array end and moves within arrays', () => {
  const document = { list: [1, 2, 3] };
  applyPatch(document, [
    { op: 'add', path: '/list/-', value: 4 },
    { op: 'add', path: '/list/4', value: 5 },
    { op: 'move', from: '/list/0', path: '/list/-' },
    { op: 'remove', path: '/list/0' },
  ]);
  assert.deepEqual(document, { list: [3, 4, 5, 1] });
});

test('equality is JSON equality', () => {
  assert.ok(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.ok(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }));
  assert.ok(!jsonEqual(1, true));
  assert.ok(!jsonEqual(null, {}));
  assert.ok(!jsonEqual([], {}));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!jsonEqual({ a: undefined }, { b: undefined }));
});
