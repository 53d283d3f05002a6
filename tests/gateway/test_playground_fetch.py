"""Fetching GraphiQL's pinned files: from npm tarballs kept in a cache, so that a second
build downloads nothing, and trusted only as far as the pinned digests, whether a file
came from the registry or from the cache. No network: the registry is played here."""

from __future__ import annotations

import io
import tarfile
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from gateway import playground
from gateway.playground import PINNED, Asset, AssetError, cache_dir, fetch, missing

# What the registry serves: each tarball holding its pinned files under `package/`.
Registry = dict[str, bytes]


def npm_tarballs(content: Callable[[Asset], bytes]) -> Registry:
    """Tarballs shaped as npm's, by URL, each file's bytes from `content`."""
    by_url: dict[str, list[Asset]] = {}
    for asset in PINNED:
        by_url.setdefault(asset.tarball, []).append(asset)
    served = {}
    for url, assets in by_url.items():
        packed = io.BytesIO()
        with tarfile.open(fileobj=packed, mode="w:gz") as archive:
            for asset in assets:
                data = content(asset)
                info = tarfile.TarInfo(f"package/{asset.path}")
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        served[url] = packed.getvalue()
    return served


def pinned(asset: Asset) -> bytes:
    """The real file, as `make install` fetched it beside the module."""
    return (playground.ASSETS / asset.name).read_bytes()


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The registry out of reach: every URL asked for is noted and refused."""
    asked: list[str] = []

    def refuse(url: str, timeout: float) -> io.BytesIO:
        asked.append(url)
        raise urllib.error.URLError("no network in this test")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    return asked


def serve(monkeypatch: pytest.MonkeyPatch, registry: Registry) -> list[str]:
    """The registry answering from `registry`; the URLs asked for, in order."""
    asked: list[str] = []

    def answer(url: str, timeout: float) -> io.BytesIO:
        asked.append(url)
        return io.BytesIO(registry[url])

    monkeypatch.setattr(urllib.request, "urlopen", answer)
    return asked


def test_a_download_is_checked_then_cached_and_a_second_build_downloads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = serve(monkeypatch, npm_tarballs(pinned))
    fetch(tmp_path / "first", tmp_path / "cache")
    assert missing(tmp_path / "first") == []
    # One download per tarball, however many of its files are pinned.
    assert sorted(asked) == sorted({a.tarball for a in PINNED})
    assert {p.name for p in (tmp_path / "cache").iterdir()} == {a.cached_as for a in PINNED}

    asked.clear()
    fetch(tmp_path / "second", tmp_path / "cache")
    assert missing(tmp_path / "second") == []
    assert asked == []


def test_a_file_that_differs_from_its_digest_is_refused_and_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(monkeypatch, npm_tarballs(lambda asset: b"tampered"))
    with pytest.raises(AssetError, match="digest differs"):
        fetch(tmp_path / "graphiql", tmp_path / "cache")
    assert not (tmp_path / "graphiql" / PINNED[0].name).exists()
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize(
    "cached",
    [npm_tarballs(lambda asset: b"tampered")[PINNED[0].tarball], b"\x1f\x8b\x08cut short"],
    ids=["tampered", "cut-short"],
)
def test_a_cached_tarball_is_trusted_only_as_far_as_its_digests(
    cached: bytes, tmp_path: Path, downloads: list[str]
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / PINNED[0].cached_as).write_bytes(cached)
    with pytest.raises(AssetError, match="could not download"):
        fetch(tmp_path / "graphiql", cache)
    # Not taken from the cache: asked of the registry again.
    assert downloads == [PINNED[0].tarball]
    assert not (tmp_path / "graphiql" / PINNED[0].name).exists()


def test_the_cache_follows_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "dynagate" / "graphiql"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "dynagate" / "graphiql"


def test_without_the_registry_the_build_stops_with_one_line_that_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, downloads: list[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as stopped:
        playground.fetch_or_explain(tmp_path / "assets")
    said = str(stopped.value)
    assert "\n" not in said and "no network in this test" in said
    assert str(tmp_path / "cache") in said and "HTTPS_PROXY" in said
    assert downloads  # it did try the registry
