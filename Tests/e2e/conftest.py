import json
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "servers"))
import actor  # noqa: E402
from peers import FixtureServer, WebSocketServers  # noqa: E402


def load_schemas():
    resources = []
    for path in sorted((actor.ROOT / "schemas").rglob("*.schema.json")):
        document = json.loads(path.read_text())
        resources.append((document["$id"], Resource.from_contents(document)))
    return Registry().with_resources(resources)


REGISTRY = load_schemas()


def validator(schema_id):
    schema = REGISTRY.contents(schema_id)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=REGISTRY)


OUTPUT = validator("urn:composable-actor:output")
INPUT = validator("urn:composable-actor:input")


@pytest.fixture(autouse=True)
def every_printed_line_matches_the_output_schema():
    """Each line any process printed during the test must validate against schemas/."""
    start = len(actor.PRINTED)
    yield
    for text in actor.PRINTED[start:]:
        errors = sorted(OUTPUT.iter_errors(json.loads(text)), key=lambda e: e.path)
        assert not errors, f"{text}\n does not match the output schema: {errors[0].message}"


@pytest.fixture
def data_dir(tmp_path):
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def process(data_dir):
    running = []

    def start(*args, **kwargs):
        kwargs.setdefault("data_dir", data_dir)
        instance = actor.Actor(*args, **kwargs)
        running.append(instance)
        return instance

    yield start
    for instance in running:
        instance.kill()


@pytest.fixture(scope="session")
def fixture_server_process():
    server = FixtureServer()
    yield server
    server.stop()


@pytest.fixture
def fixture_server(fixture_server_process):
    """The HTTP fixture server, with no failure rules and an empty request log."""
    fixture_server_process.reset()
    return fixture_server_process


@pytest.fixture(scope="session")
def ws_servers():
    servers = WebSocketServers()
    yield servers
    servers.stop()
