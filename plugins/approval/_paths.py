"""Path facts the policy needs: sensitive files, system folders, home references.

Pure string functions on shell words (no filesystem access): ``~``, ``$HOME`` and
``${HOME}`` count as the home directory.
"""

from __future__ import annotations

import posixpath
import re

__all__ = ["home_relative", "is_home_root", "is_system_path", "sensitive_write", "normalize"]

_HOME = re.compile(r"^(?:~[A-Za-z0-9_.-]*|\$HOME|\$\{HOME\})(?=/|$)")
_SYSTEM_ANY_DEPTH = {"etc", "usr", "bin", "sbin", "lib", "lib32", "lib64", "boot", "sys", "proc", "dev", "System", "Library"}
_SYSTEM_TOP = {"var", "opt", "root", "home", "srv", "mnt", "media", "Users", "Applications"}
_SHELL_RC = {
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
    ".zshenv", ".zlogin", ".cshrc", ".tcshrc", ".kshrc", ".inputrc",
}
_CREDENTIAL_FILES = {
    ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".my.cnf", "credentials",
    "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa",
}
_CREDENTIAL_DIRS = ("/.aws/", "/.gnupg/", "/.docker/config.json", "/.kube/config", "/.config/gh/", "/.azure/", "/.config/gcloud/")
_ENV_OK_SUFFIXES = (".example", ".sample", ".template", ".dist")


def normalize(word: str) -> str:
    """Collapse ``a/../b`` and ``./`` in a path word (keeps a leading ``..``)."""
    if not word:
        return word
    norm = posixpath.normpath(word)
    return "/" if norm == "//" else norm


def home_relative(word: str) -> str | None:
    """The part after the home prefix (``""`` for home itself), or None if not home."""
    match = _HOME.match(word)
    if not match:
        return None
    return word[match.end():].lstrip("/")


def is_home_root(word: str) -> bool:
    """True for ``~``, ``~/``, ``~/*``, ``~/.``, ``$HOME`` and friends."""
    rest = home_relative(word)
    return rest is not None and normalize(rest or ".") in (".", "*", ".*")


def is_system_path(word: str) -> bool:
    """``/``, the home root, or an OS folder (``/etc/…``, ``/usr/…``, ``/var``, ``/home``…)."""
    if is_home_root(word):
        return True
    if not word.startswith("/"):
        return False
    norm = normalize(word)
    if norm in ("/", "/*"):
        return True
    parts = norm.strip("/").split("/")
    return parts[0] in _SYSTEM_ANY_DEPTH or (len(parts) == 1 and parts[0].rstrip("*") in _SYSTEM_TOP)


def sensitive_write(word: str) -> tuple[str, str] | None:
    """``(rule, reason)`` when writing ``word`` touches shell startup, SSH or credential
    files or an OS folder; None otherwise."""
    if not word:
        return None
    norm = normalize(word)
    home_rest = home_relative(norm)
    probe = "/" + (home_rest if home_rest is not None else norm.lstrip("./"))
    name = posixpath.basename(norm)
    if name in _SHELL_RC or probe.endswith("/.config/fish/config.fish") or norm in ("/etc/profile", "/etc/bash.bashrc"):
        return "write_shell_rc", f"writes the shell startup file {word}"
    if "/.ssh/" in probe + "/" or name == "authorized_keys":
        return "write_ssh", f"writes SSH configuration or keys ({word})"
    is_env = name == ".env" or (name.startswith(".env.") and not name.endswith(_ENV_OK_SUFFIXES))
    if is_env or name in _CREDENTIAL_FILES or any(d in probe + "/" for d in _CREDENTIAL_DIRS):
        return "write_credentials", f"writes a credentials file ({word})"
    if norm.startswith("/") and is_system_path(norm) and not norm.startswith(("/dev/null", "/dev/std", "/dev/fd/", "/dev/tty")):
        return "write_system", f"writes to a system path ({word})"
    return None
