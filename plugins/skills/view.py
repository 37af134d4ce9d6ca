"""Progressive disclosure: a skill's body, then the files it references.

``view_skill(skill)`` returns the body (frontmatter stripped) wrapped in a ``<skill>`` tag,
followed by the list of files in the skill folder. ``view_skill(skill, file)`` returns one
of those files; a path that escapes the skill folder is refused, a missing one is answered
with the list of files that exist. Errors are :class:`talaria.ToolError` with a message the
model can act on.
"""

from __future__ import annotations

from pathlib import Path

from talaria import ToolError

from .discovery import SkillIndex
from .skillfile import Skill

__all__ = ["activation_text", "resolve_skill", "view_file", "view_skill"]

MAX_FILE_CHARS = 100_000


def resolve_skill(index: SkillIndex, name: str) -> Skill:
    """The skill called ``name``, or a ToolError naming the skills that exist."""
    skill = index.get(name)
    if skill is None:
        known = ", ".join(index.skills) or "none"
        raise ToolError(f"no skill named '{name}'. Available skills: {known}")
    return skill


def _files_line(skill: Skill) -> str:
    files = skill.files()
    if not files:
        return ""
    return (
        f"\n\nFiles in this skill (load one with skill_view(name='{skill.name}', file=PATH)): "
        + ", ".join(files)
    )


def view_skill(skill: Skill) -> str:
    """The skill's instructions (body first) and the list of its other files."""
    try:
        body = skill.body()
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolError(f"skill '{skill.name}' cannot be read: {exc}") from None
    return f'<skill name="{skill.name}" path="{skill.path}">\n{body}\n</skill>' + _files_line(skill)


def view_file(skill: Skill, file: str) -> str:
    """The content of ``file`` inside the skill folder (text files only)."""
    root = skill.path.resolve()
    rel = file.strip().lstrip("/") if not Path(file).is_absolute() else file
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        raise ToolError(f"'{file}' is outside the skill folder of '{skill.name}'; use a path relative to it")
    available = ", ".join(skill.files()) or "none"
    if target.is_dir():
        inside = [f for f in skill.files() if (root / f).resolve().is_relative_to(target)]
        return f"'{file}' is a folder; its files: " + (", ".join(inside) or "none")
    if not target.is_file():
        raise ToolError(f"skill '{skill.name}' has no file '{file}'. Available files: {available}")
    if target.name == "SKILL.md" and target.parent == root:
        return view_skill(skill)
    try:
        text = target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolError(
            f"'{file}' is not a text file; run or open it from {target} with another tool instead"
        ) from None
    except OSError as exc:
        raise ToolError(f"'{file}' cannot be read: {exc.strerror or exc}") from None
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + f"\n[… truncated at {MAX_FILE_CHARS:,} chars; file is at {target}]"
    return f'<skill-file skill="{skill.name}" file="{Path(rel).as_posix()}">\n{text}\n</skill-file>'


def activation_text(skill: Skill, args: str = "") -> str:
    """The user message a REPL sends for ``/skill-name [args]``."""
    head = f"Use the '{skill.name}' skill for this request. Its instructions follow."
    request = f"\n\nRequest: {args.strip()}" if args.strip() else ""
    return f"{head}\n\n{view_skill(skill)}{request}"
