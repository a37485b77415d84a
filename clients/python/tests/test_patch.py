"""RFC 6902 apply: the RFC's own examples (Appendix A) and the edges the mirror relies on."""

import copy

import pytest

from composable_actor import JsonPatchError, apply_patch, json_equal

# (document, patch, expected) from RFC 6902 Appendix A.
RFC_EXAMPLES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}], {"foo": ["bar", "qux", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo", "foo": "bar"}),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}], {"foo": "bar", "child": {"grandchild": {}}}),
    ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}], {"foo": ["bar", ["abc", "def"]]}),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}], {"foo": "bar", "baz": "qux"}),
]

# (document, patch) from Appendix A that must fail.
RFC_FAILURES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}]),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}]),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}]),
]


@pytest.mark.parametrize("document, patch, expected", RFC_EXAMPLES)
def test_rfc_examples(document, patch, expected):
    assert apply_patch(document, patch) == expected


@pytest.mark.parametrize("document, patch", RFC_FAILURES)
def test_rfc_failures(document, patch):
    with pytest.raises(JsonPatchError):
        apply_patch(document, patch)


def test_pointer_escapes_slash_and_tilde():
    document = {"a/b": {"m~n": 1}}
    assert apply_patch(document, [{"op": "replace", "path": "/a~1b/m~0n", "value": 2}]) == {"a/b": {"m~n": 2}}
    # ~01 is "~1" literally, not "/": unescaping ~1 first would get it wrong.
    assert apply_patch({"~1": 0}, [{"op": "replace", "path": "/~01", "value": 3}]) == {"~1": 3}


def test_copy_is_deep_and_root_ops_replace_the_document():
    document = {"a": {"b": [1]}}
    apply_patch(document, [{"op": "copy", "from": "/a", "path": "/c"}])
    document["c"]["b"].append(2)
    assert document["a"] == {"b": [1]}
    assert apply_patch({"x": 1}, [{"op": "replace", "path": "", "value": [1]}]) == [1]
    assert apply_patch({"x": 1}, [{"op": "add", "path": "", "value": {"y": 2}}]) == {"y": 2}


def test_values_are_not_shared_with_the_patch():
    patch = [{"op": "add", "path": "/list", "value": [1, 2]}]
    document = apply_patch({}, patch)
    patch[0]["value"].append(3)
    assert document == {"list": [1, 2]}


@pytest.mark.parametrize(
    "patch",
    [
        [{"op": "remove", "path": "/missing"}],
        [{"op": "replace", "path": "/missing", "value": 1}],
        [{"op": "add", "path": "/list/3", "value": 1}],
        [{"op": "add", "path": "/list/01", "value": 1}],
        [{"op": "remove", "path": "/list/-"}],
        [{"op": "replace", "path": "/list/2", "value": 1}],
        [{"op": "move", "from": "/object", "path": "/object/inner"}],
        [{"op": "add", "path": "list", "value": 1}],
        [{"op": "add", "path": "/x"}],
        [{"op": "remove", "path": ""}],
        [{"op": "frobnicate", "path": "/x"}],
        [{"op": "add", "path": "/list/0/deeper", "value": 1}],
    ],
)
def test_invalid_operations_fail(patch):
    with pytest.raises(JsonPatchError):
        apply_patch({"list": [1, 2], "object": {}}, copy.deepcopy(patch))


def test_array_end_and_moves_within_arrays():
    document = {"list": [1, 2, 3]}
    apply_patch(document, [
        {"op": "add", "path": "/list/-", "value": 4},
        {"op": "add", "path": "/list/4", "value": 5},
        {"op": "move", "from": "/list/0", "path": "/list/-"},
        {"op": "remove", "path": "/list/0"},
    ])
    assert document == {"list": [3, 4, 5, 1]}


def test_equality_is_json_equality():
    assert json_equal(1, 1.0)
    assert not json_equal(1, True)
    assert not json_equal(0, False)
    assert not json_equal(None, False)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
