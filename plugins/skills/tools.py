"""The ``skills_list`` and ``skill_view`` tools (toolset ``skills``).

Both discover skills afresh from the tool context (home, workspace, config, trust file), so
they see exactly the sources the prompt index was built from; discovery parses each
``SKILL.md`` once per modification (cached).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from talaria import Tool, ToolContext

if TYPE_CHECKING:
    from .discovery import SkillIndex

__all__ = ["index_for_context", "skill_tools"]


def index_for_context(ctx: ToolContext) -> SkillIndex:
    """The skills visible to the session ``ctx`` belongs to."""
    from .discovery import cache_file, default_sources, discover_skills  # on first call, not at load

    plugin_dirs = getattr(ctx, "skill_dirs", None)  # once the kernel passes them
    return discover_skills(
        default_sources(ctx.home, ctx.workspace, ctx.config, plugin_dirs=plugin_dirs),
        cache=cache_file(ctx.home),
    )


def _skills_list(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    index = index_for_context(ctx)
    if not len(index):
        return "No skills installed."
    return "\n".join(f"{s.name} [{s.source}]: {s.description}" for s in index)


def _skill_view(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from .view import resolve_skill, view_file, view_skill

    skill = resolve_skill(index_for_context(ctx), str(arguments["name"]))
    file = arguments.get("file")
    return view_file(skill, str(file)) if file else view_skill(skill)


def skill_tools() -> list[Tool]:
    """The two tools, with terse schemas (they are sent on every request)."""
    return [
        Tool(
            name="skills_list",
            description="List installed skills with their descriptions.",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            handler=_skills_list,
            toolset="skills",
        ),
        Tool(
            name="skill_view",
            description="Load a skill's instructions, or one of its files.",
            parameters={
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "file": {"type": "string", "description": "path inside the skill"},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
            handler=_skill_view,
            toolset="skills",
        ),
    ]
