"""The hook specifications: the whole contract between the kernel and its plugins.

Grouped in lifecycle order: registration → session → model call → tool call → turn end.
Every spec's docstring follows one template (a test enforces it): a summary, when the
kernel calls it, ``:param:`` for each argument, ``:returns:`` (or "Return value ignored."),
the calling contract, and whether the implementation may be ``async def``.

Argument names are API: they are never renamed, and an implementation may accept any
subset of them (that is how hooks gain arguments without breaking plugins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .protocols import Registrar
    from .types import (
        ModelRequest,
        ModelResponse,
        PromptSection,
        SessionInfo,
        ToolCall,
        ToolContext,
        ToolResult,
        TurnRecord,
        Verdict,
    )

PROJECT = "talaria"
hookspec = pluggy.HookspecMarker(PROJECT)

#: Hooks whose implementations must be plain functions (a coroutine would be a non-None
#: "result" to pluggy). An ``async def`` implementation of one is a load error.
SYNC_ONLY = frozenset(
    {
        "register_providers",
        "register_api_modes",
        "register_tools",
        "register_context_engines",
        "register_memory_providers",
        "register_channels",
        "register_commands",
        "register_skill_dirs",
        "register_slash_commands",
        "register_doctor_checks",
        "prompt_sections",
        "pre_tool_call",
        "post_tool_call",
    }
)

# =========================================================================== registration


@hookspec
def register_providers(register: Registrar[Any]) -> None:
    """Contribute model provider profiles.

    Called once per kernel load, after all plugins are registered.

    :param register: call ``register(profile)`` with a :class:`talaria.ProviderProfile`
        once per provider this plugin offers (zero, one or many, conditionally).

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_api_modes(register: Registrar[Any]) -> None:
    """Contribute wire-protocol adapters (API modes).

    Called once per kernel load.

    :param register: call ``register(cls)`` with a class (or factory) that has a ``name``
        attribute and implements :class:`talaria.ApiMode`; the kernel instantiates it
        with its ``[api_modes.<name>]`` config section when a provider first needs it.
        Or call ``register("NAME = package.module:Class")`` to have the class imported only
        when it is first needed (a folder plugin names its own modules as
        ``f"NAME = {__name__}.module:Class"``); its methods are then checked on first use,
        and a failure there is reported as a :class:`talaria.ConfigError` naming the
        reference.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_tools(register: Registrar[Any]) -> None:
    """Contribute tools and toolsets.

    Called once per kernel load.

    :param register: call ``register(tool)`` with a :class:`talaria.Tool`, or
        ``register(toolset)`` with a :class:`talaria.Toolset`.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_context_engines(register: Registrar[Any]) -> None:
    """Contribute context engines (history compaction strategies).

    Called once per kernel load.

    :param register: call ``register(cls)`` with a class (or factory) that has a ``name``
        and implements :class:`talaria.ContextEngine`; it is instantiated with the
        ``[context.<name>]`` config section when ``[context] engine`` selects it.
        Or call ``register("NAME = package.module:Class")`` to have the class imported only
        when it is first needed (a folder plugin names its own modules as
        ``f"NAME = {__name__}.module:Class"``); its methods are then checked on first use,
        and a failure there is reported as a :class:`talaria.ConfigError` naming the
        reference.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_memory_providers(register: Registrar[Any]) -> None:
    """Contribute memory providers.

    Called once per kernel load.

    :param register: call ``register(cls)`` with a class (or factory) that has a ``name``
        and implements :class:`talaria.MemoryProvider`; instantiated with the
        ``[memory.<name>]`` config section when ``[memory] provider`` selects it.
        Or call ``register("NAME = package.module:Class")`` to have the class imported only
        when it is first needed (a folder plugin names its own modules as
        ``f"NAME = {__name__}.module:Class"``); its methods are then checked on first use,
        and a failure there is reported as a :class:`talaria.ConfigError` naming the
        reference.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_channels(register: Registrar[Any]) -> None:
    """Contribute channels (platform adapters).

    Called once per kernel load.

    :param register: call ``register(cls)`` with a class (or factory) that has a ``name``
        and implements :class:`talaria.Channel`; instantiated with the
        ``[channels.<name>]`` config section when the channel is started.
        Or call ``register("NAME = package.module:Class")`` to have the class imported only
        when it is first needed (a folder plugin names its own modules as
        ``f"NAME = {__name__}.module:Class"``); its methods are then checked on first use,
        and a failure there is reported as a :class:`talaria.ConfigError` naming the
        reference.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_commands(cli: Any) -> None:
    """Add subcommands to the ``talaria`` command line.

    Called once when the CLI is built, before arguments are parsed.

    :param cli: the root ``click.Group``; add commands with ``@cli.command()`` or
        ``cli.add_command(...)``.

    Return value ignored. A command name that already exists is reported, not replaced.
    Must be synchronous.
    """


@hookspec
def register_skill_dirs(register: Registrar[Any]) -> None:
    """Contribute folders of skills (each subfolder holds a ``SKILL.md``).

    Called once per kernel load.

    :param register: call ``register(path)`` with a :class:`pathlib.Path` per folder.

    Return value ignored. Plugin skill dirs rank above bundled skills and below the
    user's ``$TALARIA_HOME/skills``. Must be synchronous.
    """


@hookspec
def register_slash_commands(register: Registrar[Any]) -> None:
    """Contribute in-chat ``/commands`` for interactive channels.

    Called once per kernel load.

    :param register: call ``register(command)`` with a :class:`talaria.SlashCommand`.

    Return value ignored. Collisions by name are settled by plugin tier (highest wins).
    Must be synchronous.
    """


@hookspec
def register_doctor_checks(register: Registrar[Any]) -> None:
    """Contribute checks to ``talaria doctor``.

    Called when ``talaria doctor`` runs.

    :param register: call ``register(check)`` with a :class:`talaria.DoctorCheck`.

    Return value ignored. Each check runs isolated; its failure is reported as a failed
    check. Must be synchronous.
    """


# =========================================================================== session


@hookspec
def prompt_sections(session: SessionInfo) -> list[PromptSection] | PromptSection | None:
    """Contribute text to the system prompt.

    Called when a session's system prompt is built: once before the session row is
    written, and again only after a compression.

    :param session: the session the prompt is for.

    :returns: a :class:`talaria.PromptSection`, a list of them, or None.

    Results collected from every plugin; sections are ordered by tier, ``order`` and
    source. Must be synchronous. (It runs before the first byte of a request.)
    """


@hookspec
def on_session_start(session: SessionInfo) -> None:
    """Observe the start of a session.

    Called once after the session row is written, before its first model call.

    :param session: the new session.

    Return value ignored. Called on every plugin; a failure is recorded against its
    plugin and never stops the session. May be ``async def``; awaited with a time bound.
    """


@hookspec
def on_session_end(session: SessionInfo) -> None:
    """Observe the end of a session.

    Called when a session is closed (new session, reset, compression rotation, exit).

    :param session: the ending session.

    Return value ignored. Called on every plugin; failures are recorded, never raised.
    May be ``async def``; awaited with a time bound.
    """


# =========================================================================== model call


@hookspec
def pre_llm_call(request: ModelRequest) -> None:
    """Observe a model request before it is sent.

    Called before each model call attempt (including retries and fallbacks).

    :param request: the normalized request.

    Return value ignored. (Observers cannot change the request: prefix caching depends
    on it.) Failures are recorded, never raised. May be ``async def``; awaited with a
    time bound.
    """


@hookspec
def post_llm_call(request: ModelRequest, response: ModelResponse) -> None:
    """Observe a model response (tracing, cost accounting).

    Called after each successful model call.

    :param request: the normalized request that was sent.
    :param response: the normalized response, naming the provider that served it.

    Return value ignored. Failures are recorded, never raised. May be ``async def``;
    awaited with a time bound.
    """


# =========================================================================== tool call


@hookspec(firstresult=True)
def pre_tool_call(call: ToolCall, ctx: ToolContext) -> Verdict | None:
    """Decide whether a tool call may run: allow, deny (with a reason) or ask a human.

    Called for each schema-valid tool call, before it is dispatched.

    :param call: the tool call (name and validated arguments).
    :param ctx: the tool context (session, workspace, channel; ``ctx.ask`` is None when
        no human can answer).

    :returns: a :class:`talaria.Verdict`, or None to abstain.

    Stops at first non-None result (highest tier first). ``ask`` with no approver means
    deny. Must be synchronous.
    """


@hookspec
def post_tool_call(call: ToolCall, result: ToolResult, ctx: ToolContext) -> ToolResult | None:
    """Inspect or replace a tool result (redaction, budgeting) before it is stored.

    Called after each dispatched call finishes, before its result is persisted.

    :param call: the tool call.
    :param result: the result so far (already replaced by higher-tier plugins).
    :param ctx: the tool context.

    :returns: a replacement :class:`talaria.ToolResult`, or None to keep it.

    Called on every plugin in turn, highest tier first, each seeing the previous
    replacement. Must be synchronous.
    """


# =========================================================================== turn end


@hookspec
def on_turn_end(turn: TurnRecord) -> None:
    """Observe the end of a turn.

    Called once per turn after its transcript and usage are persisted.

    :param turn: the turn record with its end reason and usage.

    Return value ignored. Failures are recorded, never raised. May be ``async def``;
    awaited with a time bound.
    """
