"""Builds the jouleprof wheel offline (Debian's python3-build, python3-setuptools, python3-wheel;
no index, no build isolation): stages the package with a stripped copy of libjouleprof.so and
runs `python3 -m build --no-isolation --wheel`. CMake's jouleprof_wheel target calls it.

    python3 python/build_wheel.py --library build/lib/libjouleprof.so --version 0.2.0 \
        --stage build/wheel-stage --outdir build/wheel [--strip /usr/bin/strip]

The wheel is tagged py3-none-<platform>: pure Python over a native library that it loads with
ctypes, so any CPython 3 of this platform (and its C library) can use it.
"""

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent / "jouleprof"

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "jouleprof"
version = "{version}"
description = "Where the energy of your models goes: joules per module, operator and pass"
requires-python = ">=3.9"
license = {{text = "see the jouleprof repository"}}

[tool.setuptools]
packages = ["jouleprof", "jouleprof.torch"]
include-package-data = false

[tool.setuptools.package-data]
jouleprof = ["libjouleprof.so"]
"""

SETUP_CFG = """\
[bdist_wheel]
python_tag = py3
plat_name = {platform}
"""


def stage(args):
    stage_dir = Path(args.stage)
    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    shutil.copytree(PACKAGE_DIR, stage_dir / "jouleprof",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    library = stage_dir / "jouleprof" / "libjouleprof.so"
    shutil.copyfile(Path(args.library).resolve(), library)
    if args.strip:
        # The debug info is most of a RelWithDebInfo library's size and no use to a wheel's users.
        subprocess.run([args.strip, "--strip-debug", str(library)], check=True)
    (stage_dir / "pyproject.toml").write_text(PYPROJECT.format(version=args.version))
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    (stage_dir / "setup.cfg").write_text(SETUP_CFG.format(platform=platform))
    return stage_dir


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True, help="libjouleprof.so to carry")
    parser.add_argument("--version", required=True)
    parser.add_argument("--stage", required=True, help="scratch directory (replaced)")
    parser.add_argument("--outdir", required=True, help="where the .whl goes")
    parser.add_argument("--strip", help="strip(1), to drop the library's debug info")
    args = parser.parse_args()
    stage_dir = stage(args)
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for old in outdir.glob("jouleprof-*.whl"):
        old.unlink()  # one wheel in outdir, so that `pip install outdir/jouleprof-*.whl` is exact
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir",
                    str(outdir.resolve()), str(stage_dir)], check=True, stdout=subprocess.DEVNULL)
    wheels = sorted(outdir.glob("jouleprof-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"build_wheel.py: expected one wheel in {outdir}, found {len(wheels)}")
    print(f"build_wheel.py: wrote {wheels[0]}")


if __name__ == "__main__":
    main()
