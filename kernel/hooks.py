"""Typed call sites for hooks; the rest of the kernel never touches ``pm.hook`` directly.

Every call is made per implementation so that one plugin's exception is recorded against
that plugin and never aborts the call for the others (pluggy would abort on the first).
Observer hooks may be ``async def``: their coroutines are awaited with a time bound.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pluggy

from ._values import value_type
if TYPE_CHECKING:
    from .types import PromptSection, SessionInfo, ToolCall, ToolContext, ToolResult, Verdict

__all__ = ["HookFailure", "Hooks"]

log = logging.getLogger("talaria.hooks")


@value_type(kw_only=False)
class HookFailure:
    """A hook implementation that raised or timed out."""

    plugin: str
    hook: str
    message: str


class Hooks:
    """The kernel's view of the plugin hooks."""

    def __init__(self, pm: pluggy.PluginManager, *, timeout: float = 10.0) -> None:
        self._pm = pm
        self.timeout = timeout
        self.failures: list[HookFailure] = []

    def _impls(self, hook: str) -> Iterator[tuple[str, Any]]:
        """(plugin name, impl) pairs in call order: highest tier first."""
        for impl in reversed(getattr(self._pm.hook, hook).get_hookimpls()):
            yield self._pm.get_name(impl.plugin) or "?", impl

    def _record(self, plugin: str, hook: str, exc: BaseException | str) -> None:
        message = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
        self.failures.append(HookFailure(plugin, hook, message))
        del self.failures[:-200]  # bounded
        log.warning("talaria: plugin '%s' failed in %s: %s", plugin, hook, message)

    @staticmethod
    def _call(impl: Any, kwargs: dict[str, Any]) -> Any:
        return impl.function(**{name: kwargs[name] for name in impl.argnames})

    def has(self, hook: str) -> bool:
        return bool(getattr(self._pm.hook, hook).get_hookimpls())

    # ------------------------------------------------------------------ prompt

    def prompt_sections(self, session: SessionInfo) -> list[PromptSection]:
        from .types import PromptSection

        sections: list[PromptSection] = []
        for plugin, impl in self._impls("prompt_sections"):
            try:
                result = self._call(impl, {"session": session})
            except Exception as exc:
                self._record(plugin, "prompt_sections", exc)
                continue
            if result is None:
                continue
            items = result if isinstance(result, (list, tuple)) else [result]
            for item in items:
                if isinstance(item, PromptSection):
                    sections.append(item if item.source else PromptSection(
                        tier=item.tier, text=item.text, source=plugin, order=item.order))
                elif isinstance(item, str) and item.strip():
                    sections.append(PromptSection(tier="context", text=item, source=plugin))
                else:
                    self._record(plugin, "prompt_sections", f"returned {type(item).__name__}, not PromptSection")
        return sections

    # ------------------------------------------------------------------ observers

    async def notify(self, hook: str, **kwargs: Any) -> None:
        """Call an observer hook on every plugin; await coroutines with a time bound."""
        import asyncio  # here, not at import: commands that run no turn never load asyncio
        import inspect

        for plugin, impl in self._impls(hook):
            try:
                result = self._call(impl, kwargs)
                if inspect.isawaitable(result):
                    async with asyncio.timeout(self.timeout):
                        await result
            except TimeoutError:
                self._record(plugin, hook, f"timed out after {self.timeout:g}s")
            except Exception as exc:
                self._record(plugin, hook, exc)

    # ------------------------------------------------------------------ tool policy

    def pre_tool_call(self, call: ToolCall, ctx: ToolContext) -> tuple[Verdict | None, str]:
        """First non-None verdict, highest tier first, with the plugin that gave it.

        A policy plugin that raises denies the call (fail closed).
        """
        from .types import Verdict

        for plugin, impl in self._impls("pre_tool_call"):
            try:
                verdict = self._call(impl, {"call": call, "ctx": ctx})
            except Exception as exc:
                self._record(plugin, "pre_tool_call", exc)
                return Verdict.deny(f"policy plugin '{plugin}' failed ({type(exc).__name__}); denied to be safe"), plugin
            if verdict is None:
                continue
            if not isinstance(verdict, Verdict):
                self._record(plugin, "pre_tool_call", f"returned {type(verdict).__name__}, not Verdict")
                return Verdict.deny(f"policy plugin '{plugin}' returned an invalid verdict; denied to be safe"), plugin
            return verdict, plugin
        return None, ""

    def post_tool_call(self, call: ToolCall, result: ToolResult, ctx: ToolContext) -> ToolResult:
        """Pass the result through every plugin; each may replace it."""
        from .types import ToolResult

        for plugin, impl in self._impls("post_tool_call"):
            try:
                replacement = self._call(impl, {"call": call, "result": result, "ctx": ctx})
            except Exception as exc:
                self._record(plugin, "post_tool_call", exc)
                continue
            if isinstance(replacement, ToolResult):
                result = replacement
            elif replacement is not None:
                self._record(plugin, "post_tool_call", f"returned {type(replacement).__name__}, not ToolResult")
        return result
