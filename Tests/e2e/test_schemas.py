"""schemas/ against the binary: generated store schemas are current, examples are valid input."""

import json
import subprocess

from actor import BINARY, ROOT
from conftest import INPUT


def test_the_committed_store_schemas_are_what_the_binary_generates(tmp_path):
    subprocess.run([str(BINARY), "schemas", "--output", str(tmp_path)], check=True)
    generated = sorted(path.name for path in tmp_path.iterdir())
    committed = sorted(path.name for path in (ROOT / "schemas/stores").iterdir())
    assert generated == committed, "run `make schemas`"
    for name in generated:
        assert json.loads((tmp_path / name).read_text()) == json.loads(
            (ROOT / "schemas/stores" / name).read_text()
        ), f"schemas/stores/{name} is stale: run `make schemas`"


def test_describe_carries_the_same_schemas(process):
    actor = process()
    stores = actor.request({"cmd": "describe"})["stores"]
    assert [store["name"] for store in stores] == actor.ready["stores"]
    for store in stores:
        state = json.loads((ROOT / f"schemas/stores/{store['name']}.state.schema.json").read_text())
        for key in ("$schema", "$id", "title"):
            state.pop(key)
        assert store["state"] == state


def test_every_example_line_is_valid_input_except_the_deliberate_typo():
    invalid = []
    for example in sorted((ROOT / "Examples").glob("*.jsonl")):
        for number, text in enumerate(example.read_text().splitlines(), 1):
            if not INPUT.is_valid(json.loads(text)):
                invalid.append((example.name, number))
    # {"type":"counter.incrTapped","extra":true} shows an error line
    assert invalid == [("primes.jsonl", 13)]


def test_the_input_schema_rejects_what_the_binary_rejects():
    assert not INPUT.is_valid({"store": "primes", "action": {"type": "counter.nope"}})
    assert not INPUT.is_valid({"store": "primes", "action": {"type": "counter.countChanged", "value": "x"}})
    assert not INPUT.is_valid({"cmd": "snapshot"})
    assert INPUT.is_valid({"store": "primes", "action": "counter.incrTapped", "id": 3})
