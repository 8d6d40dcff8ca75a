"""Paths from the browser stay inside the served directory."""

from __future__ import annotations

import pytest

from goarena.benchmarks.web.paths import OutsideRoot, inside, relative_id


@pytest.fixture
def root(tmp_path):
    (tmp_path / "served" / "league" / "games").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return tmp_path / "served"


def test_a_relative_path_resolves_under_the_root(root):
    assert inside(root, "league/games") == (root / "league" / "games").resolve()
    assert inside(root, "league/./games/") == (root / "league" / "games").resolve()
    assert inside(root, ".") == inside(root, "") == root.resolve()


REFUSED = ["..", "../outside", "league/../../outside", "league/..", "/etc/passwd", "/", "a\0b", "..\\outside"]


@pytest.mark.parametrize("path", REFUSED)
def test_dot_dot_absolute_paths_and_odd_characters_are_refused(root, path):
    with pytest.raises(OutsideRoot):
        inside(root, path)


def test_a_symbolic_link_out_of_the_root_is_refused_and_one_inside_is_followed(root):
    (root / "escape").symlink_to(root.parent / "outside")
    (root / "file").symlink_to(root.parent / "outside" / "secret.txt")
    (root / "alias").symlink_to(root / "league")
    for path in ("escape", "escape/secret.txt", "file"):
        with pytest.raises(OutsideRoot, match="outside the served directory"):
            inside(root, path)
    assert inside(root, "alias/games") == (root / "league" / "games").resolve()


def test_a_root_given_through_a_link_still_holds_its_own_paths(root, tmp_path):
    (tmp_path / "link").symlink_to(root)
    assert inside(tmp_path / "link", "league") == (root / "league").resolve()


def test_ids_are_posix_paths_under_the_root(root):
    assert relative_id(root, root / "league" / "games") == "league/games"
    assert relative_id(root, root) == "."
