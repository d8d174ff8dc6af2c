"""Build Lantern's app bundle with PyInstaller: one command per platform.

    .venv/bin/python packaging/build.py            # Linux: dist/Lantern/ ; macOS: dist/Lantern.app
    .venv/bin/python packaging/build.py --dmg      # macOS: also dist/Lantern-<version>.dmg

The bundle is cached under a hash of everything that goes into it (the app's code, the
spec, resources, the sample manuals, pyproject.toml, the Python version and every installed
package's version): a second build of the same inputs on the same machine is a copy.
The cache lives in $LANTERN_BUILD_CACHE, else ~/.cache/lantern/bundles; --no-cache skips it.

Signing and notarisation (macOS) run only when configured:
    LANTERN_CODESIGN_IDENTITY="Developer ID Application: ..."   codesign the .app (and .dmg)
    LANTERN_NOTARY_PROFILE=profile-name   notarise the .dmg with `xcrun notarytool` (a
        keychain profile made once with `xcrun notarytool store-credentials`) and staple it
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
MAC = sys.platform == "darwin"
BUNDLE_NAME = "Lantern.app" if MAC else "Lantern"
INPUTS = ("app", "packaging", "resources", "manuals", "pyproject.toml")
KEEP_CACHED = 2


def input_hash() -> str:
    """A hash of every file and package that goes into the bundle."""
    digest = hashlib.sha256()
    for name in INPUTS:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if "__pycache__" in file.parts or file.suffix in (".pyc", ".md"):
                continue
            digest.update(str(file.relative_to(ROOT)).encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    digest.update(f"{sys.version} {platform.platform()}".encode())
    packages = sorted(
        f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
    )
    digest.update("\n".join(packages).encode())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    default = Path.home() / ".cache" / "lantern" / "bundles"
    return Path(os.environ.get("LANTERN_BUILD_CACHE", default))


def run_pyinstaller(dist: Path, work: Path) -> Path:
    """Run the spec; the bundle's path inside ``dist``."""
    if not (ROOT / "resources" / "icons" / "lantern-256.png").is_file():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_icons.py")], check=True)
    command = [
        sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", str(dist), "--workpath", str(work), str(PACKAGING / "lantern.spec"),
    ]  # fmt: skip
    subprocess.run(command, check=True, cwd=ROOT)
    return dist / BUNDLE_NAME


def build(use_cache: bool = True) -> Path:
    """The bundle for these inputs: from the cache, or built (and then cached). A second
    build started meanwhile (CI starts one early, in the background) waits for the first
    and then finds its bundle in the cache."""
    if not use_cache:
        return _build(use_cache)
    cache_root().mkdir(parents=True, exist_ok=True)
    with open(cache_root() / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(use_cache)


def _build(use_cache: bool) -> Path:
    key = input_hash()
    cached = cache_root() / key
    if use_cache and (cached / "complete").is_file():
        print(f"bundle {key} is cached", file=sys.stderr)
        return cached / BUNDLE_NAME
    started = time.monotonic()
    staging = cache_root() / f"{key}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    bundle = run_pyinstaller(staging / "dist", ROOT / "build" / "pyinstaller")
    print(f"built in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if not use_cache:
        return bundle
    shutil.rmtree(cached, ignore_errors=True)
    cached.mkdir(parents=True)
    bundle.rename(cached / BUNDLE_NAME)
    shutil.rmtree(staging, ignore_errors=True)
    (cached / "complete").write_text(f"{time.time()}\n", encoding="utf-8")
    prune(keep=key)
    return cached / BUNDLE_NAME


def prune(keep: str) -> None:
    """Drop all but the newest cached bundles, so the cache does not grow without bound."""
    entries = sorted(
        (p for p in cache_root().iterdir() if p.is_dir() and p.name != keep),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in entries[KEEP_CACHED - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def install(bundle: Path, dist: Path) -> Path:
    """Copy the bundle to ``dist`` (symlinks kept: a macOS .app relies on them)."""
    target = dist / BUNDLE_NAME
    if target.resolve() == bundle.resolve():
        return target
    shutil.rmtree(target, ignore_errors=True)
    dist.mkdir(parents=True, exist_ok=True)
    shutil.copytree(bundle, target, symlinks=True)
    return target


def codesign(path: Path, identity: str) -> None:
    entitlements = PACKAGING / "entitlements.plist"
    subprocess.run(
        ["codesign", "--force", "--deep", "--options", "runtime", "--timestamp",
         "--entitlements", str(entitlements), "--sign", identity, str(path)],
        check=True,
    )  # fmt: skip


def make_dmg(app: Path, dist: Path) -> Path:
    """A drag-to-Applications disk image made with dmgbuild."""
    sys.path.insert(0, str(PACKAGING))
    from metadata import app_metadata

    version = app_metadata(ROOT)["version"]
    dmg = dist / f"Lantern-{version}.dmg"
    dmg.unlink(missing_ok=True)
    settings = PACKAGING / "dmg_settings.py"
    subprocess.run(
        [sys.executable, "-m", "dmgbuild", "-s", str(settings), "-D", f"app={app}",
         "-D", f"icon={ROOT / 'resources' / 'lantern.icns'}", "Lantern", str(dmg)],
        check=True,
    )  # fmt: skip
    return dmg


def notarize(dmg: Path, profile: str) -> None:
    subprocess.run(
        ["xcrun", "notarytool", "submit", str(dmg), "--keychain-profile", profile, "--wait"],
        check=True,
    )
    subprocess.run(["xcrun", "stapler", "staple", str(dmg)], check=True)


def bundle_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle goes")
    parser.add_argument("--no-cache", action="store_true", help="always run PyInstaller")
    parser.add_argument("--dmg", action="store_true", help="macOS: also make the .dmg")
    parser.add_argument(
        "--print-path", action="store_true", help="print only the cached bundle's path"
    )
    args = parser.parse_args()
    if args.dmg and not MAC:
        parser.error("--dmg needs macOS (dmgbuild and hdiutil)")
    bundle = build(use_cache=not args.no_cache)
    if args.print_path:
        print(bundle)
        return 0
    target = install(bundle, args.dist)
    identity = os.environ.get("LANTERN_CODESIGN_IDENTITY", "")
    if MAC and identity:
        codesign(target, identity)
    print(f"{target}: {bundle_size(target) / 1e6:.0f} MB")
    if args.dmg:
        dmg = make_dmg(target, args.dist)
        if identity:
            codesign(dmg, identity)
        profile = os.environ.get("LANTERN_NOTARY_PROFILE", "")
        if profile:
            notarize(dmg, profile)
        print(f"{dmg}: {dmg.stat().st_size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
