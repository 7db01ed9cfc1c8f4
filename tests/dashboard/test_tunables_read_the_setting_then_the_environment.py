from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from dashboard import conf
from schedlab.settings.env import ImproperEnv

TUNABLES = [value for value in vars(conf).values() if isinstance(value, conf.Tunable)]


def test_each_tunable_is_declared_once():
    names = [t.name for t in TUNABLES]
    assert len(TUNABLES) >= 18 and len(set(names)) == len(names)
    assert all(name.startswith("SCHEDLAB_") for name in names)


def test_unset_gives_the_default(monkeypatch):
    monkeypatch.delenv("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", raising=False)
    assert conf.max_attempts() == 2


def test_the_environment_is_read_when_there_is_no_setting(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", "3")
    monkeypatch.setenv("SCHEDLAB_DRYRUN_STALE_SECONDS", "7.5")
    assert conf.max_attempts() == 3 and conf.stale_seconds() == 7.5


def test_the_setting_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", "3")
    with override_settings(SCHEDLAB_DRYRUN_MAX_ATTEMPTS=4):
        assert conf.max_attempts() == 4


def test_it_answers_the_type_of_its_default():
    with override_settings(SCHEDLAB_DRYRUN_STALE_SECONDS=20, SCHEDLAB_STUDY_MAX_RUNS="12"):
        assert type(conf.stale_seconds()) is float and conf.study_max_runs() == 12
    with override_settings(SCHEDLAB_EXPLAIN_PREWARM=True):
        assert conf.explain_prewarm() is True


def test_a_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", "two")
    with pytest.raises(ImproperEnv, match="SCHEDLAB_DRYRUN_MAX_ATTEMPTS='two'"):
        conf.max_attempts()


@pytest.mark.parametrize("value", ["two", None])
def test_a_bad_setting_names_the_setting(value, settings):
    settings.SCHEDLAB_DRYRUN_MAX_ATTEMPTS = value
    with pytest.raises(ImproperlyConfigured, match="SCHEDLAB_DRYRUN_MAX_ATTEMPTS=.*expected int"):
        conf.max_attempts()
