"""What the model never reads of the workspace: credential files (the default readExclude),
git's own excludes, and secret values inside readable files, masked with a marker that keeps
line numbers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from complex_edit.server.settings import READ_EXCLUDE, Settings
from complex_edit.server.workspace.rules import Refused
from complex_edit.server.workspace.secrets import Masker
from complex_edit.server.workspace.workspace import Workspace
from tests.fakes.planted import CREDENTIALS, PLANTED, SOURCE, make_home


def workspace(root: Path, exclude: tuple[str, ...] = READ_EXCLUDE) -> Workspace:
    return Workspace([("home", str(root))], {}, exclude, 1_000_000)


def test_every_planted_kind_is_masked_and_lines_stay_where_they_were() -> None:
    masked = Masker().mask(SOURCE, "settings.py")
    assert [value for value in PLANTED.values() if value in masked.text] == []
    assert len(masked.text.splitlines()) == len(SOURCE.splitlines())
    kinds = {spot.kind for spot in masked.spots}
    assert {"aws-access-key", "github-token", "private-key", "secret-keyword"} <= kinds
    assert (
        masked.text.splitlines()[6]
        == 'AWS_SECRET_ACCESS_KEY = "«secret: aws-access-key, 40 chars»"'
    )
    assert "-----BEGIN RSA PRIVATE KEY-----" in masked.text  # the block's frame stays


def test_masked_values_are_hidden_wherever_they_show_again() -> None:
    masked = Masker().mask(SOURCE, "settings.py")
    quoted = f"old_text not found; closest: GITHUB_TOKEN = {PLANTED['github-token']}"
    assert PLANTED["github-token"] not in masked.hide(quoted)
    assert "«secret: github-token, 40 chars»" in masked.hide(quoted)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # the keyword detector's non-ASCII keyword, written in capitals (bytes lower-case ASCII)
        ('CONTRASEÑA = "hunter2-hunter2"\n', "secret-keyword"),
        # a value after non-ASCII text: its place counted in characters, not bytes
        ('título = "ñ"\napi_key = "zq8Xk2Lm9Pw4"\n', "secret-keyword"),
        # a case-folded expression (Slack's) runs on the lines holding its trigger, any case
        ("x = 1\nHOOK = 'HTTPS://HOOKS.SLACK.COM/services/T0123/B0456/abcdef'\n", "slack-token"),
        # AWS' key id needs its capital prefix; its secret, "aws" in any case on the line
        ("id = 'AKIAIOSFODNN7EXAMPL3'\n", "aws-access-key"),
        ("AWS_Key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'\n", "aws-access-key"),
    ],
)
def test_each_trigger_s_expression_runs_where_its_literal_is(text: str, kind: str) -> None:
    masked = Masker().mask(text, "app.py")
    assert [spot.kind for spot in masked.spots] == [kind]
    (line,) = [line for line in masked.text.splitlines() if "«secret: " in line]
    assert line.endswith(("chars»'", 'chars»"', "chars»"))
    assert len(masked.text.splitlines()) == len(text.splitlines())


def test_a_value_after_non_ascii_text_is_masked_where_it_stands() -> None:
    masked = Masker().mask('título = "ñ"\napi_key = "zq8Xk2Lm9Pw4"\n', "app.py")
    assert masked.text == 'título = "ñ"\napi_key = "«secret: secret-keyword, 12 chars»"\n'


def test_a_case_folded_expression_that_could_cross_lines_is_refused_at_start() -> None:
    import re

    from complex_edit.server.workspace.secrets import _line_bound

    _line_bound(re.compile(r"xox(?:a|b)-\d+", re.IGNORECASE))
    with pytest.raises(ValueError, match="across lines"):
        _line_bound(re.compile(r"aws\s*=\s*(\w+)", re.IGNORECASE))


@pytest.mark.parametrize(
    "line",
    [
        "token = get_token()",
        'password = os.environ["DB_PASSWORD"]',
        "password = ${DB_PASSWORD}",
        "def check_password(password: str) -> bool:",
        "x = 1",
    ],
)
def test_code_that_names_a_secret_without_holding_one_is_left_alone(line: str) -> None:
    assert Masker().mask(line + "\n", "app.py").text == line + "\n"


@pytest.mark.parametrize("name", sorted(CREDENTIALS))
def test_every_credential_file_is_refused_and_never_searched(tmp_path: Path, name: str) -> None:
    make_home(tmp_path, [name])
    ws = workspace(tmp_path)
    with pytest.raises(Refused, match="readExclude"):
        ws.read(name)
    found = ws.find("pL4nt3d")
    assert "pL4nt3d-00" not in found
    assert "settings.py" in found  # the planted source file is searched (its values masked)


def test_read_exclude_of_yours_adds_to_the_credential_defaults(tmp_path: Path) -> None:
    make_home(tmp_path, [".netrc"])
    (tmp_path / "project" / "private.txt").write_text("mine\n")
    settings = Settings.from_layers({}, {"readExclude": ["private.txt"]})
    ws = workspace(tmp_path, settings.read_exclude)
    for name in (".netrc", "project/private.txt"):
        with pytest.raises(Refused, match="readExclude"):
            ws.read(name)
    replaced = Settings.from_layers(
        {}, {"readExclude": ["private.txt"], "readExcludeReplace": True}
    )
    assert workspace(tmp_path, replaced.read_exclude).read(".netrc").text.startswith("machine")


def test_git_info_exclude_and_the_global_excludes_file_count_like_gitignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("*.globalignored\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("scratch/\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "notes.txt").write_text("needle local\n")
    (repo / "a.globalignored").write_text("needle global\n")
    (repo / "kept.txt").write_text("needle kept\n")
    ws = Workspace([("repo", str(repo))], {}, READ_EXCLUDE, 10_000)
    assert "kept.txt:1" in ws.find("needle")
    assert "scratch" not in ws.find("needle")
    assert "globalignored" not in ws.find("needle")
    for name in ("scratch/notes.txt", "a.globalignored"):
        with pytest.raises(Refused, match="ignored"):
            ws.read(name)
