"""``talaria skills list|show|install|remove`` and ``talaria trust``.

Commands read ``click.get_current_context().obj`` (a :class:`talaria.CliContext`: ``home``,
``workspace``, ``config``). User errors are :class:`click.ClickException` with a message
that says what to do (exit code 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from .discovery import SkillIndex

# Discovery, parsing, the trust file and shutil/tempfile are imported inside the commands:
# adding the commands to the CLI (every ``talaria`` start) must not load them.

__all__ = ["add_commands"]


def _obj() -> Any:
    obj = click.get_current_context().obj
    if obj is None:
        raise click.ClickException("internal: no Talaria CLI context")
    return obj


def _index(obj: Any) -> SkillIndex:
    from .discovery import cache_file, default_sources, discover_skills

    plugin_dirs = getattr(obj, "skill_dirs", None)  # once the CLI context carries them
    return discover_skills(
        default_sources(Path(obj.home), Path(obj.workspace), obj.config, plugin_dirs=plugin_dirs),
        cache=cache_file(Path(obj.home)),
    )


@click.group("skills")
def skills_group() -> None:
    """Agent Skills: list, show, install and remove SKILL.md skills."""


@skills_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """List skills by name with their source (bundled, plugin:X, user, project)."""
    index = _index(_obj())
    shadows = {s.winner.name: s.loser.source for s in index.shadowed}
    if as_json:
        rows = [
            {"name": s.name, "source": s.source, "path": str(s.path), "description": s.description,
             "shadows": [x.loser.source for x in index.shadowed if x.winner.name == s.name]}
            for s in index
        ]
        click.echo(json.dumps({"skills": rows, "warnings": index.warnings}, indent=2))
        return
    if not len(index):
        click.echo("No skills found. Install one with: talaria skills install PATH")
    width = max((len(s.name) for s in index), default=0)
    for s in index:
        note = f"  (overrides {shadows[s.name]})" if s.name in shadows else ""
        desc = s.description if len(s.description) <= 80 else s.description[:79] + "…"
        click.echo(f"{s.name.ljust(width)}  {s.source:<9} {desc}{note}")
    for message in index.warnings:
        click.echo(f"warning: {message}", err=True)


@skills_group.command("show")
@click.argument("name")
def show_cmd(name: str) -> None:
    """Print a skill's metadata and instructions."""
    index = _index(_obj())
    skill = index.get(name)
    if skill is None:
        raise click.ClickException(f"no skill named '{name}'; see: talaria skills list")
    click.echo(f"name:        {skill.name}\nsource:      {skill.source}\npath:        {skill.path}")
    for label, value in (("license", skill.license), ("compatibility", skill.compatibility),
                         ("allowed-tools", skill.allowed_tools)):
        if value:
            click.echo(f"{label + ':':<13}{value}")
    for shadow in index.shadowed:
        if shadow.winner.name == name:
            click.echo(f"overrides:   {shadow.loser.source} ({shadow.loser.path})")
    click.echo(f"description: {skill.description}\n")
    from .view import view_skill

    click.echo(view_skill(skill))


def _ignore(_dir: str, names: list[str]) -> list[str]:
    return [n for n in names if n in (".git", "__pycache__", ".DS_Store")]


@skills_group.command("install")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--force", is_flag=True, help="Replace an installed user skill of the same name.")
def install_cmd(path: Path, force: bool) -> None:
    """Validate the skill folder PATH and copy it into $TALARIA_HOME/skills/."""
    from .skillfile import SkillError, parse_skill_file, valid_name

    obj = _obj()
    folder = path.parent if path.is_file() and path.name == "SKILL.md" else path
    if not (folder / "SKILL.md").is_file():
        raise click.ClickException(f"{folder} has no SKILL.md; a skill is a folder with a SKILL.md")
    try:
        skill = parse_skill_file(folder.resolve(), "user")
    except SkillError as exc:
        raise click.ClickException(f"not installed: {exc}") from None
    if not valid_name(skill.name):
        raise click.ClickException(
            f"not installed: name '{skill.name}' must be 1-64 lowercase letters, digits and single hyphens"
        )
    root = Path(obj.home) / "skills"
    dest = root / skill.name
    if dest.exists() and not force:
        raise click.ClickException(f"a user skill '{skill.name}' exists at {dest}; use --force to replace it")
    import shutil
    import tempfile

    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=root, prefix=f".{skill.name}."))
    try:
        shutil.copytree(folder, staging / "x", ignore=_ignore)
        if dest.exists():
            shutil.rmtree(dest)
        (staging / "x").rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for message in skill.warnings:
        click.echo(f"warning: {message}", err=True)
    click.echo(f"Installed skill '{skill.name}' to {dest}")


@skills_group.command("remove")
@click.argument("name")
def remove_cmd(name: str) -> None:
    """Remove a user skill from $TALARIA_HOME/skills/ (never bundled or project skills)."""
    from .discovery import discover_skills

    obj = _obj()
    root = Path(obj.home) / "skills"
    user = discover_skills([("user", root)])
    skill = user.get(name)
    if skill is None:
        other = _index(obj).get(name)
        where = f"it is a {other.source} skill at {other.path}" if other else "no such skill"
        raise click.ClickException(f"'{name}' is not a user skill in {root} ({where}); only user skills can be removed")
    import shutil

    shutil.rmtree(skill.path)
    click.echo(f"Removed skill '{name}' ({skill.path})")


@click.command("trust")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--list", "list_", is_flag=True, help="List trusted workspaces.")
@click.option("--remove", is_flag=True, help="Stop trusting PATH.")
def trust_cmd(path: Path | None, list_: bool, remove: bool) -> None:
    """Trust a workspace (default: the current one) so its .agents/skills are loaded."""
    from .trust import add_trusted, is_trusted, load_trusted, remove_trusted

    obj = _obj()
    home = Path(obj.home)
    if list_:
        paths = load_trusted(home)
        click.echo("\n".join(paths) if paths else "No trusted workspaces.")
        return
    target = (path or Path(obj.workspace)).resolve()
    if remove:
        if remove_trusted(home, target):
            click.echo(f"No longer trusted: {target}")
        elif is_trusted(home, target):
            raise click.ClickException(f"{target} is trusted through a parent folder; remove that one (talaria trust --list)")
        else:
            raise click.ClickException(f"{target} was not trusted")
        return
    if not target.is_dir():
        raise click.ClickException(f"{target} is not a directory")
    added = add_trusted(home, target)
    click.echo(f"{'Trusted' if added else 'Already trusted'}: {target} (its .agents/skills will be loaded)")


def add_commands(cli: click.Group) -> None:
    """Attach ``skills`` and ``trust`` to the root group."""
    cli.add_command(skills_group)
    cli.add_command(trust_cmd)
