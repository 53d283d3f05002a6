"""GraphiQL served by the gateway itself: pinned files from the npm registry, verified
against the same SHA-384 digests the page's `integrity` attributes carry, kept beside
this module (`gateway/graphiql/`) so that the package and the image ship them.

`python -m gateway.playground` fetches them (`make install` and the image build run it);
the page then loads nothing from another origin and works with no internet.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ASSETS = Path(__file__).with_name("graphiql")
# Where the page asks for them: same origin, below the GraphQL path.
URL_PREFIX = "/graphql/assets/"
_REGISTRY = "https://registry.npmjs.org"
# An absolute URL in a `src` or `href` attribute of the page.
_ABSOLUTE = re.compile(r'\b(src|href)="(https?://[^"]+)"')


@dataclass(frozen=True)
class Asset:
    package: str
    version: str
    path: str  # inside the package
    sha384: str  # base64, as in an `integrity` attribute

    @property
    def name(self) -> str:
        """The file's name as served: package and path, flattened."""
        return (
            f"{self.package.replace('@', '').replace('/', '-')}-{self.version}-"
            + (self.path.rsplit("/", 1)[-1])
        )

    @property
    def spec(self) -> str:
        """`package@version/path`, the tail of the URL Strawberry's page names it by."""
        return f"{self.package}@{self.version}/{self.path}"

    @property
    def tarball(self) -> str:
        short = self.package.rsplit("/", 1)[-1]
        return f"{_REGISTRY}/{self.package}/-/{short}-{self.version}.tgz"


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
)
BY_NAME = {asset.name: asset for asset in PINNED}


class AssetError(RuntimeError):
    """A pinned file could not be fetched, or did not match its digest."""


def sha384(data: bytes) -> str:
    return base64.b64encode(hashlib.sha384(data).digest()).decode()


def missing() -> list[Asset]:
    """The pinned files not yet beside this module (or not as pinned)."""
    return [
        a
        for a in PINNED
        if not (ASSETS / a.name).is_file() or sha384((ASSETS / a.name).read_bytes()) != a.sha384
    ]


def fetch() -> None:
    """Fetch every missing file from its npm tarball and check its digest."""
    ASSETS.mkdir(exist_ok=True)
    tarballs: dict[str, bytes] = {}
    for asset in missing():
        print(f"fetching {asset.package}@{asset.version} {asset.path}", file=sys.stderr)
        if asset.tarball not in tarballs:
            with urllib.request.urlopen(asset.tarball, timeout=60) as response:
                tarballs[asset.tarball] = response.read()
        with tarfile.open(fileobj=io.BytesIO(tarballs[asset.tarball]), mode="r:gz") as archive:
            member = archive.extractfile(f"package/{asset.path}")
            if member is None:
                raise AssetError(f"{asset.tarball} holds no {asset.path}")
            data = member.read()
        if sha384(data) != asset.sha384:
            raise AssetError(f"{asset.package}@{asset.version} {asset.path}: digest differs")
        (ASSETS / asset.name).write_bytes(data)


def page_html() -> str:
    """Strawberry's GraphiQL page with every file it loads served by this gateway: each
    absolute `src` or `href` must name a pinned file, and is pointed at its local copy."""
    # Imported here: the image build fetches the files before anything is installed.
    from strawberry.http.ides import get_graphql_ide_html

    by_spec = {asset.spec: asset for asset in PINNED}

    def local(match: re.Match[str]) -> str:
        attribute, url = match.group(1), match.group(2)
        asset = next((a for spec, a in by_spec.items() if url.endswith("/" + spec)), None)
        if asset is None:
            raise AssetError(f"the GraphiQL page loads {url}, which is not pinned")
        return f'{attribute}="{URL_PREFIX}{asset.name}"'

    html, count = _ABSOLUTE.subn(local, get_graphql_ide_html(graphql_ide="graphiql"))
    if count != len(PINNED):
        raise AssetError(f"the GraphiQL page loads {count} files, not the {len(PINNED)} pinned")
    return html


def asset_path(name: str) -> Path | None:
    """The pinned file served as `name`, when it is one and has been fetched."""
    pinned = BY_NAME.get(name)
    path = None if pinned is None else ASSETS / pinned.name
    return path if path is not None and path.is_file() else None


if __name__ == "__main__":
    fetch()
