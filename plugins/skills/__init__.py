"""Skills plugin: Agent Skills (``SKILL.md``) with progressive disclosure.

- ``prompt_sections``: a budgeted index (name + description) in the volatile tier; none when
  there are no skills. Computed once per session id and reused on a rebuild (bounded cache);
  across processes the finished text is kept in ``$TALARIA_HOME/cache/skills-index.json``,
  keyed by everything it depends on, so an unchanged setup loads no discovery code.
- ``register_tools``: ``skills_list`` and ``skill_view(name, file?)``.
- ``register_commands``: ``talaria skills list|show|install|remove`` and ``talaria trust``.
- For the kernel / REPL: :func:`discover_skills`, :func:`default_sources`,
  :func:`set_plugin_skill_dirs` and :func:`activate_skill_message`.

Precedence, lowest to highest: bundled → plugin dirs → ``[skills] extra_dirs`` →
``$TALARIA_HOME/skills`` → ``<workspace>/.agents/skills`` (trusted workspaces only).
"""

from __future__ import annotations

import importlib
import logging
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import talaria

__all__ = [
    "Skill",
    "SkillError",
    "SkillIndex",
    "activate_skill_message",
    "bundled_skills_dir",
    "default_sources",
    "discover_skills",
    "parse_skill_file",
    "set_plugin_skill_dirs",
]

log = logging.getLogger("talaria.skills")

#: Re-exported names and their modules. Discovery, parsing and the trust file load when a
#: prompt is built or a command runs, not when the plugin loads (``talaria plugins list``,
#: ``doctor`` … never need them).
_LAZY = {
    **dict.fromkeys(["SkillIndex", "discover_skills"], "discovery"),
    **dict.fromkeys(["budget_chars", "bundled_skills_dir", "cache_file", "default_sources",
                     "set_plugin_skill_dirs", "talaria_home"], "sources"),
    "render_index": "prompt_index",
    **dict.fromkeys(["Skill", "SkillError", "parse_skill_file"], "skillfile"),
    "is_trusted": "trust",
}
_SUBMODULES = (
    "cli", "discovery", "diskcache", "index_cache", "notices", "prompt_index", "skillfile", "sources", "tools",
    "trust", "view",
)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
_SECTIONS: OrderedDict[str, talaria.PromptSection | None] = OrderedDict()
_SECTIONS_MAX = 256


def _build_section(session: talaria.SessionInfo) -> talaria.PromptSection | None:
    """The index section; reuses the last run's text when nothing it depends on changed.

    The warm path loads only ``sources``, ``trust``, ``index_cache`` and ``notices``;
    discovery, parsing and rendering load on a miss (see ``index_cache``).
    """
    from .index_cache import fingerprint, index_cache_file, load_index, save_index
    from .notices import warn_once
    from .sources import budget_chars, default_sources
    from .trust import is_trusted

    trusted = bool(session.trusted_workspace) or is_trusted(session.home, session.workspace)
    sources = default_sources(
        session.home, session.workspace, session.config, trusted=trusted,
        plugin_dirs=getattr(session, "skill_dirs", None),  # once the kernel passes them
    )
    budget = budget_chars(session.context_window, session.config)
    # The key is taken before building: a skill edited meanwhile changes the next key.
    key = fingerprint(sources, budget)
    file = index_cache_file(session.home)
    cached = load_index(file, key)
    if cached is None:
        cached = _render(sources, budget, session.home)
        save_index(file, key, *cached)
    else:
        for message in cached[1]:
            warn_once(message)  # discovery logs these itself on a miss
    text, _notices, warnings = cached
    for message in warnings:
        log.warning("%s", message)
    if not text:
        return None
    return talaria.PromptSection(tier="volatile", text=text, source="skills", order=50)


def _render(sources: list[tuple[str, Path]], budget: int, home: Path) -> tuple[str, list[str], list[str]]:
    """Discover and render: ``(index text or "", discovery warnings, budget warnings)``."""
    from .discovery import cache_file, discover_skills
    from .prompt_index import render_index

    index = discover_skills(sources, cache=cache_file(home))
    rendered = render_index(list(index), budget)
    if rendered is None:
        return "", list(index.warnings), []
    return rendered.text, list(index.warnings), list(rendered.warnings)


@talaria.hookimpl
def prompt_sections(session: talaria.SessionInfo) -> talaria.PromptSection | None:
    """The skills index, frozen per session id (a rebuild after compression reuses it)."""
    if session.id in _SECTIONS:
        _SECTIONS.move_to_end(session.id)
        return _SECTIONS[session.id]
    section = _build_section(session)
    _SECTIONS[session.id] = section
    while len(_SECTIONS) > _SECTIONS_MAX:
        _SECTIONS.popitem(last=False)
    return section


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    from .tools import skill_tools

    for tool in skill_tools():
        register(tool)


@talaria.hookimpl
def register_commands(cli: Any) -> None:
    from .cli import add_commands

    add_commands(cli)


def activate_skill_message(
    name: str,
    args: str = "",
    *,
    home: Path | None = None,
    workspace: Path | None = None,
    config: Mapping[str, Any] | None = None,
    trusted: bool | None = None,
) -> str:
    """The user message a REPL sends when the user types ``/name [args]``.

    It carries the skill's instructions (body, then its file list) and the user's request.
    Raises :class:`talaria.UsageError` naming the available skills when ``name`` is unknown.
    Defaults: ``$TALARIA_HOME``, the current directory, no config, trust from trusted.json.
    """
    from .discovery import cache_file, default_sources, discover_skills, talaria_home
    from .view import activation_text

    home = home or talaria_home()
    workspace = workspace or Path.cwd()
    index = discover_skills(default_sources(home, workspace, config, trusted=trusted), cache=cache_file(home))
    skill = index.get(name)
    if skill is None:
        known = ", ".join(index.skills) or "none"
        raise talaria.UsageError(f"no skill named '{name.lstrip('/')}'. Available skills: {known}")
    return activation_text(skill, args)
