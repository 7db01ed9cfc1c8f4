"""Documents nested deeper than MAX_DEPTH are refused with one line, never a RecursionError."""

from __future__ import annotations

import pytest

from scheduler_engine.documents import MAX_DEPTH, check_depth, load_json, parse_documents
from scheduler_engine.errors import InputError
from tests.engine.test_cli import cli


def _block(levels: int) -> str:
    return "".join(f"{'  ' * i}k{i}:\n" for i in range(levels)) + f"{'  ' * levels}v\n"


def _nested(levels: int) -> object:
    value: object = 1
    for i in range(levels - 1):
        value = {"k": value} if i % 2 else [value]
    return [value] if levels > 0 else value


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"a": ' * 10_000 + "1" + "}" * 10_000,
        "a: " + "[" * 5_000 + "]" * 5_000,
        _block(MAX_DEPTH + 1),
    ],
    ids=["json-list", "json-map", "yaml-flow", "yaml-block"],
)
def test_deep_documents_are_input_errors(text):
    with pytest.raises(InputError) as caught:
        parse_documents(text, source="deep.yaml")
    assert caught.value.one_line().startswith("deep.yaml: ")


@pytest.mark.parametrize("levels", [1, 2, MAX_DEPTH - 1, MAX_DEPTH])
def test_depth_up_to_the_limit_is_accepted(levels):
    check_depth(_nested(levels))
    load_json(str(_nested(levels)).replace("'", '"'))


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, MAX_DEPTH + 50, 5_000])
def test_depth_over_the_limit_is_refused(levels):
    with pytest.raises(InputError, match=f"nested deeper than {MAX_DEPTH} levels"):
        check_depth(_nested(levels))


def test_the_cli_exits_2_with_one_line(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(_block(300))
    out = cli("simulate", "--snapshot", str(path))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "nested deeper" in lines[0], out.stderr
