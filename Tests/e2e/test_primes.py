"""The primes feature end to end: libprimesieve on the thread pool, real files."""

import json
import os
import stat

import pytest

from actor import run_lines


def primes(action, id=None):
    message = {"store": "primes", "action": action}
    if id is not None:
        message["id"] = id
    return message


def count(n):
    return primes({"type": "counter.countChanged", "value": n})


def response_of(lines):
    (response,) = [l for l in lines if l["type"] == "action" and l["action"]["type"] == "counter.nthPrimeResponse"]
    return response


@pytest.mark.parametrize("n, prime", [(1, 2), (5, 11), (1000, 7919), (1_000_000, 15_485_863), (3_000_000, 49_979_687)])
def test_nth_prime(n, prime):
    lines, code, _ = run_lines([count(n), primes("counter.nthPrimeButtonTapped")])
    assert code == 0
    assert response_of(lines)["action"]["value"] == prime
    snapshot_alert = response_of(lines)["patch"]
    assert {"op": "replace", "path": "/alertNthPrime", "value": {"n": n, "prime": prime}} in snapshot_alert


def test_the_button_is_disabled_while_the_request_runs():
    lines, _, _ = run_lines([count(7), primes("counter.nthPrimeButtonTapped")])
    tapped = lines[2]
    assert {"op": "replace", "path": "/isNthPrimeButtonDisabled", "value": True} in tapped["patch"]
    assert {"op": "replace", "path": "/isNthPrimeButtonDisabled", "value": False} in response_of(lines)["patch"]


@pytest.mark.parametrize(
    "n, args, message",
    [
        (0, [], "There is no 0th prime: n must be 1 or more."),
        (-3, [], "There is no -3rd prime: n must be 1 or more."),
        (101, ["--max-nth-prime", "100"], "The 101st prime is out of range: the largest n answered is 100."),
    ],
)
def test_no_answer_is_a_clear_alert(n, args, message):
    lines, code, _ = run_lines([count(n), primes("counter.nthPrimeButtonTapped")], *args)
    assert code == 0
    response = response_of(lines)
    assert response["action"] == {"type": "counter.nthPrimeResponse", "value": None}
    assert {"op": "replace", "path": "/alertNthPrimeFailure", "value": {"n": n, "message": message}} in response["patch"]


def test_dismissing_cancels_the_request():
    lines, code, _ = run_lines(
        [count(1_000_000_000), primes("counter.nthPrimeButtonTapped"), primes("counter.alertDismissButtonTapped")]
    )
    assert code == 0
    assert not [l for l in lines if l["type"] == "action" and l["action"]["type"] == "counter.nthPrimeResponse"]
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 0}


def test_a_new_request_replaces_the_old_one():
    lines, _, _ = run_lines(
        [count(1_000_000_000), primes("counter.nthPrimeButtonTapped"), count(10), primes("counter.nthPrimeButtonTapped")]
    )
    assert response_of(lines)["action"]["value"] == 29


def test_favourites_are_saved_atomically_and_loaded(data_dir):
    lines, code, _ = run_lines(
        [count(7), primes("primeModal.saveFavoritePrimeTapped"), count(13),
         primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped", id="save")],
        data_dir=data_dir,
    )
    assert code == 0
    saved = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.savedFavoritePrimes"]
    assert saved and saved[0]["id"] == "save"
    assert json.loads((data_dir / "favorite-primes.json").read_text()) == [7, 13]
    assert os.listdir(data_dir) == ["favorite-primes.json"]  # no temporary file left behind

    lines, code, _ = run_lines([primes("favoritePrimes.loadButtonTapped")], data_dir=data_dir)
    loaded = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.loadedFavoritePrimes"]
    assert loaded[0]["action"]["value"] == [7, 13]
    # A loaded list is a new list: written whole, in one operation.
    assert {"op": "replace", "path": "/favoritePrimes", "value": [7, 13]} in loaded[0]["patch"]


def test_loading_the_list_the_host_has_writes_no_patch(data_dir):
    (data_dir / "favorite-primes.json").write_text("[7, 13]")
    load = primes("favoritePrimes.loadButtonTapped")
    lines, code, _ = run_lines([load, load], data_dir=data_dir)
    assert code == 0
    loaded = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.loadedFavoritePrimes"]
    # The second list is a new collection equal to the first: nothing changed, as with a plain
    # array.
    assert [l["patch"] for l in loaded] == [
        [{"op": "replace", "path": "/favoritePrimes", "value": [7, 13]}],
        [],
    ]


def test_a_favourites_file_that_is_a_link_is_saved_through_it(data_dir, tmp_path):
    target = tmp_path / "dotfiles" / "primes.json"
    target.parent.mkdir()
    target.write_text("[2]\n")
    (data_dir / "favorite-primes.json").symlink_to(target)
    lines, code, _ = run_lines(
        [count(7), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped")],
        data_dir=data_dir,
    )
    assert code == 0
    assert (data_dir / "favorite-primes.json").is_symlink()
    assert json.loads(target.read_text()) == [7]
    assert os.listdir(target.parent) == ["primes.json"]


def test_a_favourites_file_that_is_not_a_file_is_left_as_it_is(data_dir):
    fifo = data_dir / "favorite-primes.json"
    os.mkfifo(fifo)
    lines, code, _ = run_lines(
        [count(2), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped")],
        data_dir=data_dir,
    )
    assert code == 0
    failed = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.storageFailed"]
    assert "it is not a regular file" in failed[0]["action"]["message"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_the_data_directory_is_created_when_missing(tmp_path):
    directory = tmp_path / "a" / "b"
    run_lines([count(2), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped")],
              data_dir=directory)
    assert json.loads((directory / "favorite-primes.json").read_text()) == [2]


@pytest.mark.parametrize(
    "content, fragment",
    [
        (None, "No favourite primes saved yet"),
        (b"[2, 3", "is not valid JSON"),
        (b'{"primes": [2]}', "it is not a JSON array"),
        (b"[2, 4]", "4 is not a prime"),
        (b'[2, "3"]', "is not an integer"),
        (b'["' + b"x" * 10_000_000 + b'"]', '"' + "x" * 40 + '…" (10000000 bytes) is not an integer'),
        # A FIFO used to block a pool thread, so the process never exited; a device or a huge
        # file used to fill the memory.
        ("fifo", "it is not a regular file"),
        ("/dev/zero", "it is not a regular file"),
        ("sparse", "it is larger than the limit of 67108864 bytes"),
    ],
    ids=["missing", "truncated", "object", "non-prime", "string", "huge-string", "fifo", "device",
         "sparse"],
)
def test_loading_a_missing_or_corrupt_file_keeps_the_favourites(data_dir, content, fragment):
    path = data_dir / "favorite-primes.json"
    if content == "fifo":
        os.mkfifo(path)
    elif content == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif content == "sparse":
        with open(path, "wb") as file:
            file.truncate(64 * 1024 * 1024 + 1)
    elif content is not None:
        path.write_bytes(content)
    lines, code, _ = run_lines(
        [count(3), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.loadButtonTapped"),
         {"cmd": "snapshot", "store": "primes"}],
        data_dir=data_dir,
    )
    assert code == 0
    failed = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.storageFailed"]
    assert failed, lines
    assert failed[0]["action"]["operation"] == "load"
    assert fragment in failed[0]["action"]["message"]
    assert len(failed[0]["action"]["message"]) < 400
    final = [l for l in lines if l["type"] == "snapshot"]
    # The snapshot may come before the load finished; the patches tell the rest.
    assert all(op["path"] != "/favoritePrimes" for op in failed[0]["patch"])
    assert final


def test_a_save_that_cannot_write_reports_it(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should be")
    lines, code, _ = run_lines(
        [count(2), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped")],
        data_dir=blocker,
    )
    assert code == 0
    failed = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.storageFailed"]
    assert failed[0]["action"]["operation"] == "save"
    assert "Cannot save to" in failed[0]["action"]["message"]
    assert blocker.read_text().startswith("a file where")


def test_the_default_data_directory_follows_xdg_data_home(tmp_path):
    lines = [count(2), primes("primeModal.saveFavoritePrimeTapped"), primes("favoritePrimes.saveButtonTapped")]
    _, code, _ = run_lines(lines, env={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert code == 0
    assert json.loads((tmp_path / "xdg/composable-actor/favorite-primes.json").read_text()) == [2]
    _, code, _ = run_lines(lines, env={"XDG_DATA_HOME": "", "HOME": str(tmp_path / "home")})
    assert code == 0
    assert json.loads((tmp_path / "home/.local/share/composable-actor/favorite-primes.json").read_text()) == [2]


def wolfram(server_url, app_id="test-app"):
    return ["--wolfram-app-id", app_id, "--wolfram-url", server_url]


def test_the_nth_prime_can_come_from_the_wolfram_api(fixture_server):
    lines, code, _ = run_lines([count(10), primes("counter.nthPrimeButtonTapped")], *wolfram(fixture_server.url))
    assert code == 0
    assert response_of(lines)["action"]["value"] == 29
    (request,) = fixture_server.requests()
    assert request["path"] == "/v2/query"
    query = dict(part.split("=", 1) for part in request["query"].split("&"))
    assert query == {"input": "prime%2010", "format": "plaintext", "output": "JSON", "appid": "test-app"}


@pytest.mark.parametrize("failure", ["malformed", "status=500", "reset"])
def test_an_unusable_wolfram_answer_is_a_clear_alert(fixture_server, failure):
    lines, _, _ = run_lines([count(10), primes("counter.nthPrimeButtonTapped")], *wolfram(fixture_server.failing(failure)))
    assert_could_not_be_computed(response_of(lines), 10, "10th")


@pytest.mark.parametrize("claimed", ["-5", "18", "5", "19", "9223372036854775807"])
def test_a_wolfram_answer_that_cannot_be_the_nth_prime_is_a_failure(fixture_server, claimed):
    # 17 is the 7th prime: -5 and 18 are no primes, 5 and 19 are primes out of its range.
    lines, _, _ = run_lines(
        [count(7), primes("counter.nthPrimeButtonTapped")], *wolfram(fixture_server.url, app_id=f"answer={claimed}"))
    assert_could_not_be_computed(response_of(lines), 7, "7th")


def assert_could_not_be_computed(response, n, ordinal):
    assert response["action"]["value"] is None
    assert {
        "op": "replace",
        "path": "/alertNthPrimeFailure",
        "value": {"n": n, "message": f"The {ordinal} prime could not be computed."},
    } in response["patch"]


def test_a_wolfram_answer_without_a_result_pod_is_no_answer(fixture_server):
    # The fixture answers an empty app id as Wolfram does: success false, no pods.
    lines, _, _ = run_lines([count(10), primes("counter.nthPrimeButtonTapped")], *wolfram(fixture_server.url, app_id=""))
    assert response_of(lines)["action"]["value"] is None
