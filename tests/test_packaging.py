"""Packaging (issue 40, item 1): the biomedical model, labels and student ship as their own distribution
(packages/uner-bio), found by name through the ``uner_models`` entry point once installed; a missing one gives
one line with the install command; the main wheel keeps the default model, its labels and the general student.
Dependencies are ranges; the CPU build of torch is pinned only in the install command (README and CI alike)."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from uner import paths
from uner.cli import app
from uner.models import ModelNotFoundError, resolve_model
from uner.tagger.student import Student

ROOT = Path(__file__).resolve().parents[1]
HINT = ("model {!r} is in the uner-bio package, which is not installed: pip install 'uner[bio]' "
        "(or, from a uner checkout, pip install packages/uner-bio)")


@pytest.fixture
def no_source_tree(tmp_path, monkeypatch):
    """A wheel install without the repository's models/ and labels/ beside the package (none embedded)."""
    monkeypatch.setattr(paths, "MODEL_DIRS", (tmp_path / "uner" / "_models", tmp_path / "no-source-tree"))


def test_a_missing_model_package_gives_one_line_saying_how_to_install_it(no_source_tree, tmp_path, monkeypatch):
    """The real entry-point lookup on an empty search path finds no package: resolving the biomedical model or
    loading its student stops with the hint, and any other unknown name is not taken for a packaged one."""
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "empty")])
    assert paths.package_model_dirs() == [] and "uner-bio" not in paths.embedded_models()
    with pytest.raises(ModelNotFoundError) as err:
        resolve_model("uner-bio")
    assert str(err.value) == HINT.format("uner-bio")
    with pytest.raises(FileNotFoundError) as err:
        Student.from_pretrained("uner-student-bio")
    assert str(err.value) == HINT.format("uner-student-bio")
    assert paths.missing_package_hint("my-model") is None


def test_uner_tag_without_the_bio_package_exits_2_with_the_hint(no_source_tree, monkeypatch):
    """Through the CLI: one line on stderr, exit 2, for the masked LM and for the student (no package declares
    the entry point group here)."""
    monkeypatch.setattr(paths, "MODEL_PACKAGE_GROUP", "uner_models_none_installed")
    for args, name in ((["--model", "uner-bio"], "uner-bio"),
                       (["--engine", "student", "--model", "uner-student-bio"], "uner-student-bio")):
        res = CliRunner().invoke(app, ["tag", "-", *args], input="Cisplatin caused nephrotoxicity .\n")
        assert res.exit_code == 2 and res.stderr == f"uner: error: {HINT.format(name)}\n", res.output


def test_an_installed_model_package_is_found_by_name(no_source_tree, tmp_path, monkeypatch):
    """A distribution on sys.path that declares a ``uner_models`` entry point: its models, student and labels
    are found by name, the hint is gone, and its folders are read-only like the wheel's."""
    site = tmp_path / "site-packages"
    package = site / "uner_testbio"
    (package / "models" / "uner-bio").mkdir(parents=True)
    (package / "models" / "uner-bio" / "config.json").write_text("{}")
    (package / "models" / "uner-student-bio").mkdir()
    (package / "models" / "uner-student-bio" / "meta.json").write_text("{}")
    (package / "labels" / "uner-bio").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    info = site / "uner_testbio-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: uner-testbio\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[uner_models]\nuner-testbio = uner_testbio\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert paths.package_model_dirs() == [package / "models"]
        assert paths.embedded_models() == {"uner-bio": package / "models" / "uner-bio"}
        assert resolve_model("uner-bio") == str(package / "models" / "uner-bio")
        assert paths.student_dir("uner-student-bio") == package / "models" / "uner-student-bio"
        assert paths.labels_dir("uner-bio") == package / "labels" / "uner-bio"
        assert paths.shipped_labels_dirs() == [package / "labels" / "uner-bio"]
        assert paths.missing_package_hint("uner-bio") is None and paths.missing_package_hint("uner-student-bio") is None
        assert paths.is_installed_copy(package / "labels" / "uner-bio" / "types.yaml")
        assert paths.writable_labels_dir("uner-bio") == Path("labels") / "uner-bio"
    finally:
        sys.modules.pop("uner_testbio", None)


def test_the_wheels_split_the_models_as_uner_paths_expects():
    """The main wheel carries the default model, its labels and the general student; each model package (uner-bio,
    uner-mpnet) the models that ``PACKAGED_MODELS`` sends to its extra (and their labels), under the entry point
    that ``uner.paths`` reads, and the main package names it as that extra."""
    main = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = main["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert shipped == {f"models/{paths.DEFAULT_MODEL}": f"uner/_models/{paths.DEFAULT_MODEL}",
                       f"models/{paths.STUDENT_MODEL}": f"uner/_models/{paths.STUDENT_MODEL}",
                       f"labels/{paths.DEFAULT_MODEL}": f"uner/_labels/{paths.DEFAULT_MODEL}"}
    for extra in sorted(set(paths.PACKAGED_MODELS.values())):
        package = ROOT / "packages" / f"uner-{extra}"
        meta = tomllib.loads((package / "pyproject.toml").read_text())
        packaged = meta["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
        models = {src.split("/models/")[1].split("/")[0] for src in packaged if "/models/" in src}
        assert models == {m for m, e in paths.PACKAGED_MODELS.items() if e == extra}
        assert all((package / src).resolve().exists() for src in packaged)
        module = f"uner_{extra}"
        assert meta["project"]["entry-points"][paths.MODEL_PACKAGE_GROUP] == {sorted(models)[0]: module}
        assert main["project"]["optional-dependencies"][extra] == [f"uner-{extra}>=0.1"]


def test_the_base_size_model_is_in_packages_under_pypi_s_100_mb_each():
    """uner-mpnet carries uner-mpnet-base but its two large weight shards, which are packages of their own that it
    depends on, named with their SHA-256 in ``shards.json`` (``uner.models.parts.with_shards`` links them together):
    every file of the model is in exactly one package, and no packaged file is over 100 MB."""
    folder = ROOT / "models" / "uner-mpnet-base"
    shards = json.loads((folder / "shards.json").read_text())
    held: dict[str, str] = {}
    for package in sorted((ROOT / "packages").glob("uner-mpnet*")):
        meta = tomllib.loads((package / "pyproject.toml").read_text())
        for src in meta["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]:
            path = (package / src).resolve()
            if path.parent == folder:
                assert path.name not in held, f"{path.name} in {held.get(path.name)} and {package.name}"
                held[path.name] = package.name
                assert path.stat().st_size < 100e6, path
    assert sorted(held) == sorted(p.name for p in folder.iterdir())
    mpnet = tomllib.loads((ROOT / "packages" / "uner-mpnet" / "pyproject.toml").read_text())["project"]
    for name, spec in shards.items():
        assert held[name] == spec["package"].replace("_", "-")
        assert f"{held[name]}==0.1.0" in mpnet["dependencies"]
        assert spec["sha256"] == paths.file_sha256(folder / name)


def test_dependencies_are_ranges_and_the_cpu_torch_pin_only_in_the_install_command():
    """A library installs beside its users' torch and Ray; CI installs exactly as the README says."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [d for d in project["dependencies"] + sum(project["optional-dependencies"].values(), [])
              if re.match(r"(torch|ray)\b", d)]
    assert wanted == ["torch>=2.6", "ray[data]>=2.44"]
    readme = (ROOT / "README.md").read_text()
    install = re.search(r"```bash\n(python3 -m venv .*)\n```", readme).group(1)
    tests = re.search(r"```bash\n(\. \.venv/bin/activate .*pytest.*)\n```", readme).group(1)
    assert "pip install -q torch==2.13.0 -e . &&" in install  # (tagging needs no development extras)
    assert 'pip install -q -e ".[dev]"' in tests
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install in ci and tests in ci
