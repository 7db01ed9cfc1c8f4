from __future__ import annotations

import pytest

from schedlab.settings.env import ImproperEnv, env_bool, env_float, env_int, env_list


@pytest.mark.parametrize(
    ("reader", "raw", "expected"),
    [
        (env_bool, "yes", True),
        (env_bool, "0", False),
        (env_int, "42", 42),
        (env_float, "0.5", 0.5),
        (env_list, "a, b,,c", ["a", "b", "c"]),
    ],
)
def test_it_parses(reader, raw, expected, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_X", raw)
    default = {env_bool: False, env_int: 0, env_float: 0.0, env_list: None}[reader]
    assert reader("SCHEDLAB_X", default) == expected


@pytest.mark.parametrize(
    ("reader", "raw"), [(env_bool, "maybe"), (env_int, "ten"), (env_float, "x")]
)
def test_it_names_the_variable_in_errors(reader, raw, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_X", raw)
    with pytest.raises(ImproperEnv, match="SCHEDLAB_X"):
        reader("SCHEDLAB_X", 0)


def test_unset_gives_the_default(monkeypatch):
    monkeypatch.delenv("SCHEDLAB_X", raising=False)
    assert env_int("SCHEDLAB_X", 7) == 7 and env_list("SCHEDLAB_X", ["a"]) == ["a"]
