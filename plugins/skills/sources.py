"""Where a session's skills come from and how much prompt room their index gets.

Kept free of dataclasses, YAML and parsing so the prompt's warm path (see ``index_cache``)
can compute its cache key without loading the discovery machinery.

Precedence of sources, lowest → highest: ``bundled`` → ``plugin:<name>`` → ``extra``
(``[skills] extra_dirs``) → ``user`` (``$TALARIA_HOME/skills``) → ``project``
(``<workspace>/.agents/skills``, trusted workspaces only).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .trust import is_trusted

__all__ = [
    "DEFAULT_RATIO",
    "budget_chars",
    "bundled_skills_dir",
    "cache_file",
    "default_sources",
    "set_plugin_skill_dirs",
    "skill_entries",
    "talaria_home",
]

#: Share of the context window (in tokens, estimated as chars / 4) the index may take.
DEFAULT_RATIO = 0.02

_PLUGIN_DIRS: list[tuple[str, Path]] = []


def talaria_home() -> Path:
    """``$TALARIA_HOME`` or ``~/.talaria`` (not created)."""
    raw = os.environ.get("TALARIA_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".talaria"


def cache_file(home: Path) -> Path:
    """Where parsed frontmatter is cached between processes."""
    return Path(home) / "cache" / "skills.json"


def bundled_skills_dir() -> Path:
    """``<repo>/skills`` in a checkout, ``talaria/_bundled/skills`` in a wheel."""
    return Path(__file__).resolve().parents[1].parent / "skills"


def set_plugin_skill_dirs(dirs: Sequence[tuple[str, Path]]) -> None:
    """Record plugin-shipped skill folders as ``("plugin:<name>", path)`` pairs.

    The kernel calls this with what ``register_skill_dirs`` collected; later calls replace
    earlier ones. :func:`default_sources` places them above bundled skills.
    """
    _PLUGIN_DIRS[:] = [(str(label), Path(path)) for label, path in dirs]


def default_sources(
    home: Path,
    workspace: Path | None,
    config: Mapping[str, Any] | None = None,
    *,
    trusted: bool | None = None,
    plugin_dirs: Sequence[tuple[str, Path]] | None = None,
) -> list[tuple[str, Path]]:
    """The ordered ``(label, folder)`` list for a session, lowest precedence first.

    ``trusted=None`` consults ``$TALARIA_HOME/trusted.json`` for ``workspace``.
    """
    section = (config or {}).get("skills") or {}
    sources: list[tuple[str, Path]] = [("bundled", bundled_skills_dir())]
    sources += list(_PLUGIN_DIRS if plugin_dirs is None else plugin_dirs)
    extra = section.get("extra_dirs") or []
    if isinstance(extra, str):
        extra = [extra]
    for raw in extra:
        path = Path(str(raw)).expanduser()
        sources.append(("extra", path if path.is_absolute() else home / path))
    sources.append(("user", home / "skills"))
    if workspace is not None:
        if trusted is None:
            trusted = is_trusted(home, workspace)
        if trusted:
            sources.append(("project", workspace / ".agents" / "skills"))
    return sources


def skill_entries(root: Path | str) -> list[tuple[str, os.stat_result]]:
    """The skill folders directly in ``root``: ``(folder name, stat of its SKILL.md)``, by name.

    A folder counts when its name does not start with ``.`` and it holds a regular (or
    symlinked) ``SKILL.md``. A missing or unreadable ``root`` has none. Discovery and the
    index cache key both use this, so they always agree on what a source contains.
    """
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    out: list[tuple[str, os.stat_result]] = []
    for name in names:
        if name.startswith("."):
            continue
        try:
            st = os.stat(os.path.join(root, name, "SKILL.md"))
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            out.append((name, st))
    return out


def budget_chars(context_window: int, config: Mapping[str, Any] | None = None) -> int:
    """Characters the index may take for a window of ``context_window`` tokens.

    ``[skills] index_budget`` (default 2 %) of the window, at 4 chars a token, capped by
    ``[skills] index_max_chars`` when set.
    """
    section = (config or {}).get("skills") or {}
    ratio = float(section.get("index_budget", DEFAULT_RATIO))
    budget = int(max(context_window, 0) * ratio * 4)
    cap = section.get("index_max_chars")
    return min(budget, int(cap)) if cap else budget
