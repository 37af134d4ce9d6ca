"""Parse and validate one ``SKILL.md`` (Agent Skills format), leniently.

Contract (agentskills.io spec, lenient client rules):

- The file starts with a YAML frontmatter block between ``---`` lines, then a Markdown body.
- ``description`` is required (non-empty string). A file whose YAML cannot be parsed, whose
  frontmatter is not a mapping, or that has no description is **rejected** (:class:`SkillError`).
- ``name`` should equal the folder name, be 1–64 chars of lowercase letters, digits and
  single hyphens (no leading/trailing hyphen). A violation is a **warning**; the skill still
  loads (under its declared name, or the folder name when ``name`` is missing).
- ``description`` over 1,024 chars, ``compatibility`` over 500 chars, a non-mapping
  ``metadata`` are warnings. Unknown keys are tolerated silently (client extensions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Skill", "SkillError", "parse_skill_file", "split_frontmatter", "valid_name"]

NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_FILE_BYTES = 1_000_000


class SkillError(ValueError):
    """A SKILL.md that cannot be loaded at all; the message says why and what to fix."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One loaded skill.

    :param name: the name the model and the user call it by.
    :param path: the skill folder (holding ``SKILL.md``).
    :param source: where it came from: ``bundled``, ``plugin:<name>``, ``user``, ``project``…
    :param warnings: lenient-validation findings (the skill loaded anyway).
    """

    name: str
    description: str
    path: Path
    source: str = ""
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    allowed_tools: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def skill_file(self) -> Path:
        return self.path / "SKILL.md"

    def body(self) -> str:
        """The Markdown body of ``SKILL.md`` with the frontmatter stripped."""
        text = self.skill_file.read_text(encoding="utf-8")
        return split_frontmatter(text)[1].strip()

    def files(self) -> list[str]:
        """Files inside the skill folder other than ``SKILL.md`` (relative POSIX paths)."""
        out: list[str] = []
        for p in sorted(self.path.rglob("*")):
            rel = p.relative_to(self.path)
            if p.is_file() and rel.as_posix() != "SKILL.md" and not _hidden(rel):
                out.append(rel.as_posix())
        return out


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in rel.parts)


def valid_name(name: str) -> bool:
    """True for a spec-conformant skill name (1–64 chars, ``a-z0-9`` and single hyphens)."""
    return 0 < len(name) <= MAX_NAME and bool(NAME_RE.match(name))


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Split ``text`` into (frontmatter YAML or None, body)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None, text


def _load_yaml(raw: str) -> Any:
    import yaml  # lazy: only when a skill is actually parsed

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(raw, Loader=loader)  # noqa: S506 - a safe loader


def parse_skill_file(folder: Path, source: str = "") -> Skill:
    """Load ``folder/SKILL.md``; raise :class:`SkillError` when it must be skipped."""
    file = folder / "SKILL.md"
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise SkillError(f"{file}: larger than {MAX_FILE_BYTES:,} bytes; split it into referenced files")
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"{file}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise SkillError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    raw, _body = split_frontmatter(text)
    if raw is None:
        raise SkillError(f"{file}: no YAML frontmatter; start the file with '---', name and description, '---'")
    try:
        meta = _load_yaml(raw)
    except Exception as exc:  # yaml.YAMLError and friends
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SkillError(f"{file}: frontmatter is not valid YAML ({first})") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{file}: frontmatter must be a YAML mapping of keys to values")
    return _validate(meta, folder, source)


def _opt_str(meta: dict[str, Any], key: str, warnings: list[str], where: str) -> str | None:
    value = meta.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        warnings.append(f"{where}: '{key}' should be a string; ignored")
        return None
    return value


def _validate(meta: dict[str, Any], folder: Path, source: str) -> Skill:
    where = str(folder / "SKILL.md")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{where}: 'description' is missing or empty; say what the skill does and when to use it")
    description = " ".join(description.split())
    warnings: list[str] = []
    if len(description) > MAX_DESCRIPTION:
        warnings.append(f"{where}: description is {len(description)} chars (max {MAX_DESCRIPTION})")
    raw_name = meta.get("name")
    if raw_name is None:
        name = folder.name
        warnings.append(f"{where}: 'name' is missing; using the folder name '{name}'")
    else:
        name = str(raw_name).strip()
        if name != folder.name:
            warnings.append(f"{where}: name '{name}' differs from its folder '{folder.name}'")
    if not valid_name(name):
        warnings.append(
            f"{where}: name '{name}' should be 1-{MAX_NAME} lowercase letters, digits and single hyphens"
        )
    compatibility = _opt_str(meta, "compatibility", warnings, where)
    if compatibility is not None and len(compatibility) > MAX_COMPATIBILITY:
        warnings.append(f"{where}: compatibility is {len(compatibility)} chars (max {MAX_COMPATIBILITY})")
    metadata = meta.get("metadata") or {}
    if not isinstance(metadata, dict):
        warnings.append(f"{where}: 'metadata' should be a mapping; ignored")
        metadata = {}
    allowed = meta.get("allowed-tools")
    if isinstance(allowed, list):  # a common variant; the spec says space-separated
        allowed = " ".join(str(a) for a in allowed)
    elif allowed is not None and not isinstance(allowed, str):
        warnings.append(f"{where}: 'allowed-tools' should be a space-separated string; ignored")
        allowed = None
    return Skill(
        name=name,
        description=description,
        path=folder,
        source=source,
        license=_opt_str(meta, "license", warnings, where),
        compatibility=compatibility,
        metadata={str(k): v for k, v in metadata.items()},
        allowed_tools=allowed,
        warnings=tuple(warnings),
    )
