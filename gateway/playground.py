"""GraphiQL served by the gateway itself: pinned files from the npm registry, verified
against the same SHA-384 digests the page's `integrity` attributes carry, kept beside
this module (`gateway/graphiql/`) so that the package and the image ship them.

Building the package fetches them (`setup.py`), and so does `python -m gateway.playground`
in a source tree; the page then loads nothing from another origin and works with no
internet. This module imports only the standard library at its top: the build loads it
before anything is installed.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import os
import re
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ASSETS = Path(__file__).with_name("graphiql")
# Where the page asks for them: same origin, below the GraphQL path.
URL_PREFIX = "/graphql/assets/"
# What puts them in place, as the warning at start and the page without them say.
FIX = "python -m gateway.playground"
_REGISTRY = "https://registry.npmjs.org"
# The page, our own: each pinned file's `{{ package@version/path }}` in it becomes the tag
# that loads the file from URL_PREFIX with its digest.
TEMPLATE = Path(__file__).with_name("graphiql.html")
_PLACEHOLDER = re.compile(r"\{\{ ([^{}\s]+) \}\}")


@dataclass(frozen=True)
class Asset:
    package: str
    version: str
    path: str  # inside the package
    sha384: str  # base64, as in an `integrity` attribute

    @property
    def name(self) -> str:
        """The file's name as served: package and path, flattened."""
        return f"{self._flat}-{self.version}-" + (self.path.rsplit("/", 1)[-1])

    @property
    def spec(self) -> str:
        """`package@version/path`: how the page's template names it, as unpkg.com does."""
        return f"{self.package}@{self.version}/{self.path}"

    @property
    def tarball(self) -> str:
        short = self.package.rsplit("/", 1)[-1]
        return f"{_REGISTRY}/{self.package}/-/{short}-{self.version}.tgz"

    @property
    def cached_as(self) -> str:
        """The tarball's name in the cache, its scope kept (two scopes may share a name)."""
        return f"{self._flat}-{self.version}.tgz"

    @property
    def _flat(self) -> str:
        return self.package.replace("@", "").replace("/", "-")


PINNED = (
    Asset(
        "react",
        "18.2.0",
        "umd/react.production.min.js",
        "tMH8h3BGESGckSAVGZ82T9n90ztNXxvdwvdM6UoR56cYcf+0iGXBliJ29D+wZ/x8",
    ),
    Asset(
        "react-dom",
        "18.2.0",
        "umd/react-dom.production.min.js",
        "bm7MnzvK++ykSwVJ2tynSE5TRdN+xL418osEVF2DE/L/gfWHj91J2Sphe582B1Bh",
    ),
    Asset(
        "js-cookie",
        "3.0.5",
        "dist/js.cookie.min.js",
        "/vxhYfM1LENRhdpZ8dwEsQn/X4VhpbEZSiU4m/FwR+PVpzar4fkEOw8FP9Y+OfQN",
    ),
    Asset(
        "graphiql",
        "3.8.3",
        "graphiql.min.css",
        "Mq3vbRBY71jfjQAt/DcjxUIYY33ksal4cgdRt9U/hNPvHBCaT2JfJ/PTRiPKf0aM",
    ),
    Asset(
        "@graphiql/plugin-explorer",
        "1.0.2",
        "dist/style.css",
        "5DFJlDPW2tSATRbM8kzoP1j194jexLswuNmClWoRr2Q0x7R68JIQzPHZ02Faktwi",
    ),
    Asset(
        "graphiql",
        "3.8.3",
        "graphiql.min.js",
        "HbRVEFG0JGJZeAHCJ9Xm2+tpknBQ7QZmNlO/DgZtkZ0aJSypT96YYGRNod99l9Ie",
    ),
    Asset(
        "@graphiql/plugin-explorer",
        "1.0.2",
        "dist/index.umd.js",
        "2oonKe47vfHIZnmB6ZZ10vl7T0Y+qrHQF2cmNTaFDuPshpKqpUMGMc9jgj9MLDZ9",
    ),
    # The `graphql-transport-ws` client GraphiQL runs subscriptions with.
    Asset(
        "graphql-ws",
        "5.16.2",
        "umd/graphql-ws.min.js",
        "+EVxFEOpy8LWPRQcpntm0FKN2O+BzrMNSL0G3HIgVWFmeb6xqZqjuLivrQUTXZKi",
    ),
)
BY_NAME = {asset.name: asset for asset in PINNED}


class AssetError(RuntimeError):
    """A pinned file could not be fetched, or did not match its digest."""


def sha384(data: bytes) -> str:
    return base64.b64encode(hashlib.sha384(data).digest()).decode()


def cache_dir() -> Path:
    """Where downloaded tarballs are kept: `${XDG_CACHE_HOME:-~/.cache}/dynagate/graphiql`."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dynagate" / "graphiql"


def missing(directory: Path | None = None) -> list[Asset]:
    """The pinned files not in `directory` (default: beside this module), or not as pinned."""
    where = ASSETS if directory is None else directory
    return [
        a
        for a in PINNED
        if not (where / a.name).is_file() or sha384((where / a.name).read_bytes()) != a.sha384
    ]


def fetch(directory: Path | None = None, cache: Path | None = None) -> None:
    """Put every pinned file into `directory` (default: beside this module), each checked
    against its digest. The npm tarballs they come from are kept in `cache` (default:
    `cache_dir()`), so a second build downloads nothing."""
    where = ASSETS if directory is None else directory
    kept = cache_dir() if cache is None else cache
    lacking = missing(where)
    if lacking:
        where.mkdir(parents=True, exist_ok=True)
    for asset in lacking:
        _write_whole(where / asset.name, _pinned_file(asset, kept))


def _write_whole(path: Path, data: bytes) -> None:
    """Written aside and renamed: a server or build beside this one never reads half a file."""
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as part:
        part.write(data)
    os.replace(part.name, path)


def fetch_or_explain(directory: Path | None = None) -> None:
    """`fetch`, or exit with one line saying what failed and what to do about it."""
    try:
        fetch(directory)
    except (AssetError, OSError) as exc:
        raise SystemExit(
            f"GraphiQL's pinned files could not be fetched: {exc}. The build needs the npm"
            f" registry once (the files are then cached in {cache_dir()}); check the network"
            " or a proxy (HTTPS_PROXY), and that the target folder is writable."
        ) from exc


def _pinned_file(asset: Asset, cache: Path) -> bytes:
    """The file from the cached tarball when it holds it as pinned, else from the registry."""
    cached = cache / asset.cached_as
    if cached.is_file():
        data = _member(cached.read_bytes(), asset)
        if data is not None and sha384(data) == asset.sha384:
            return data
    print(f"fetching {asset.package}@{asset.version}", file=sys.stderr)
    try:
        with urllib.request.urlopen(asset.tarball, timeout=60) as response:
            tarball: bytes = response.read()
    except (urllib.error.URLError, TimeoutError) as exc:
        raise AssetError(f"could not download {asset.tarball}: {exc}") from exc
    data = _member(tarball, asset)
    if data is None:
        raise AssetError(f"{asset.tarball} holds no readable {asset.path}")
    if sha384(data) != asset.sha384:
        raise AssetError(f"{asset.package}@{asset.version} {asset.path}: digest differs")
    cache.mkdir(parents=True, exist_ok=True)
    _write_whole(cached, tarball)
    return data


def _member(tarball: bytes, asset: Asset) -> bytes | None:
    """The asset's file in an npm tarball; None when the tarball is cut short or corrupt."""
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
            member = archive.extractfile(f"package/{asset.path}")
            return None if member is None else member.read()
    except (tarfile.TarError, EOFError, OSError, zlib.error, KeyError):
        return None


def page_html() -> str:
    """The playground's page (`graphiql.html`) with the tag of each pinned file in its
    place. Only these constants are put in: a shared link is read by the page's script."""
    template = TEMPLATE.read_text(encoding="utf-8")
    by_spec = {asset.spec: asset for asset in PINNED}
    placed = _PLACEHOLDER.findall(template)
    if sorted(placed) != sorted(by_spec):
        raise AssetError(
            f"{TEMPLATE.name} names {sorted(placed)}; it must name each pinned file once:"
            f" {sorted(by_spec)}"
        )
    return _PLACEHOLDER.sub(lambda match: _tag(by_spec[match.group(1)]), template)


def _tag(asset: Asset) -> str:
    """The element that loads `asset` from this gateway, refused by the browser unless the
    file matches its pinned digest."""
    url = html.escape(URL_PREFIX + asset.name)
    integrity = html.escape(f"sha384-{asset.sha384}")
    if asset.path.endswith(".css"):
        return f'<link rel="stylesheet" href="{url}" integrity="{integrity}" />'
    return f'<script src="{url}" integrity="{integrity}"></script>'


def missing_page(lacking: Sequence[Asset]) -> str:
    """What a browser gets instead of a blank playground while files are missing."""
    items = "\n".join(f"<li><code>{html.escape(a.spec)}</code></li>" for a in lacking)
    return f"""<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>GraphiQL's files are missing</title></head>
  <body>
    <h1>GraphiQL's files are missing</h1>
    <p>This installation of dynagate lacks {len(lacking)} of the {len(PINNED)} files the
    playground loads:</p>
    <ul>{items}</ul>
    <p>To fetch them, run <code>{FIX}</code> with the server's Python, then reload this
    page; or install dynagate from a wheel built by pip, which fetches them.</p>
    <p>The API works without them: POST GraphQL requests to this URL.</p>
  </body>
</html>
"""


class Playground:
    """The page as served: built once every pinned file is in place, and until then a page
    that says how to fetch them (a blank page would say nothing)."""

    def __init__(self) -> None:
        self._page: str | None = None

    def html(self) -> tuple[int, str]:
        """The status and page to answer with."""
        if self._page is None:
            lacking = missing()
            if lacking:
                return 503, missing_page(lacking)
            self._page = page_html()
        return 200, self._page


def asset_path(name: str) -> Path | None:
    """The pinned file served as `name`, when it is one and has been fetched."""
    pinned = BY_NAME.get(name)
    path = None if pinned is None else ASSETS / pinned.name
    return path if path is not None and path.is_file() else None


if __name__ == "__main__":
    fetch_or_explain()
