"""The skills index that goes into the volatile prompt tier, within a budget.

Budget: ``[skills] index_budget`` of the context window (default 2 %), counted in tokens
estimated as chars / 4, i.e. ``budget_chars = context_window * ratio * 4``; an absolute
``[skills] index_max_chars`` caps it further when set. When the full index is over budget,
descriptions are shortened first (all to the same, largest length that fits, down to
``MIN_DESCRIPTION`` chars); if that is not enough, skills are left out — lowest precedence
first (bundled before plugin, user, project), then in reverse name order — with a warning.
Left-out skills stay reachable through ``skills_list`` / ``skill_view``.
No skills → no index at all (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .skillfile import Skill
from .sources import DEFAULT_RATIO, budget_chars  # re-exported

__all__ = ["DEFAULT_RATIO", "IndexText", "budget_chars", "render_index"]

MIN_DESCRIPTION = 24
HEADER = (
    "## Skills\n"
    "Skills hold instructions for specific tasks. When a task matches one, load it with "
    "skill_view(name) before acting.\n"
    "<available_skills>\n"
)
FOOTER = "</available_skills>"
_SOURCE_RANK = {"bundled": 0, "extra": 2, "user": 3, "project": 4}


@dataclass(slots=True)
class IndexText:
    """The rendered index and what the budget cost."""

    text: str
    budget: int
    shortened: bool = False
    dropped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _shorten(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def _render(skills: Sequence[Skill], limit: int | None) -> str:
    lines = "".join(f"- {s.name}: {_shorten(s.description, limit)}\n" for s in skills)
    return HEADER + lines + FOOTER


def _fit(skills: Sequence[Skill], budget: int) -> tuple[str, int | None] | None:
    """The index with the longest description cap that fits, or None."""
    full = _render(skills, None)
    if len(full) <= budget:
        return full, None
    longest = max(len(s.description) for s in skills)
    lo, hi = MIN_DESCRIPTION, longest - 1
    if lo > hi or len(_render(skills, lo)) > budget:
        return None
    while lo < hi:  # largest cap whose render fits
        mid = (lo + hi + 1) // 2
        if len(_render(skills, mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return _render(skills, lo), lo


def _drop_rank(skill: Skill) -> int:
    return 1 if skill.source.startswith("plugin:") else _SOURCE_RANK.get(skill.source, 2)


def render_index(skills: Sequence[Skill], budget: int) -> IndexText | None:
    """Render the index for ``skills`` (name order) within ``budget`` chars; None if no skills."""
    if not skills:
        return None
    kept = list(skills)
    # Leave out the lowest-precedence skills first, the last name first within a rank.
    victims = sorted(sorted(kept, key=lambda s: s.name, reverse=True), key=_drop_rank)
    dropped: list[str] = []
    while kept:
        fitted = _fit(kept, budget)
        if fitted is not None:
            text, cap = fitted
            result = IndexText(text=text, budget=budget, shortened=cap is not None)
            if dropped:
                result.dropped = sorted(dropped)
                result.warnings.append(
                    f"skills index over its budget of {budget:,} chars: left out "
                    f"{len(dropped)} skill(s) ({', '.join(result.dropped)}); "
                    "they are still reachable with skills_list / skill_view. "
                    "Raise [skills] index_budget or remove unused skills."
                )
            elif cap is not None:
                result.warnings.append(
                    f"skills index over its budget of {budget:,} chars: descriptions shortened to {cap} chars"
                )
            return result
        victim = victims.pop(0)
        kept.remove(victim)
        dropped.append(victim.name)
    return IndexText(
        text="",
        budget=budget,
        dropped=sorted(dropped),
        warnings=[
            f"skills index budget of {budget:,} chars is too small for any skill; "
            "no index in the prompt (skills_list still works)"
        ],
    )
