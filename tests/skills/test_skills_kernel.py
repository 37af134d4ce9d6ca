"""The skills plugin inside a real kernel: index in the prompt, progressive disclosure by tools."""

from __future__ import annotations

from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call


async def test_scripted_session_loads_a_skill_then_its_file(home, make_skill):
    make_skill(
        home / "skills", "release-notes",
        description="Write release notes. Use when preparing a release.",
        body="# Release notes\n\nGroup changes by type; see template.md.",
        files={"template.md": "## Added\n## Fixed"},
    )
    model = ScriptedModel(
        reply("", tool_call("skill_view", {"name": "release-notes"})),
        reply("", tool_call("skill_view", {"name": "release-notes", "file": "template.md"})),
        "Here are the notes.",
    )
    kernel = make_kernel(home, model.plugin(), bundled=("skills",))
    record, _ = await run_turn(kernel, "Write the release notes.", session_key="cli:a")
    assert record.end_reason == "completed", record.error

    first = model.requests[0]
    assert "- release-notes: Write release notes. Use when preparing a release." in first.system_text
    assert {"skills_list", "skill_view"} <= {t.name for t in first.tools}
    tool_results = [m.content for m in model.requests[-1].messages if m.role == "tool"]
    assert "# Release notes" in tool_results[0] and "template.md" in tool_results[0]
    assert "## Added\n## Fixed" in tool_results[1]
    assert len({r.system_text for r in model.requests}) == 1  # the prompt never changed mid-session
