"""What counts as a secret.

Two sources:

- **environment values**: variables whose name looks secret (``*_API_KEY``, ``*_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``, ``*_PASSWD``, ``*_CREDENTIALS``, ``*_AUTH``,
  ``*_PRIVATE_KEY`` … as ``_``-separated parts; not ``*_PATH``/``*_FILE``/``*_DIR``/
  ``*_SOCK``…) with a value of at least 8 characters → ``[REDACTED:env:NAME]``;
- **key-shaped strings**: OpenAI/Anthropic ``sk-…``, GitHub ``ghp_…``/``github_pat_…``,
  Slack ``xox[bpars]-…``, AWS ``AKIA…``/``ASIA…``, Google ``AIza…``, Hugging Face ``hf_…``,
  Stripe ``sk_live_…``, JWTs, ``Bearer …`` credentials, PEM private keys, and passwords in
  URLs (``scheme://user:password@``) → ``[REDACTED:<kind>]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PATTERNS", "secret_env_values", "is_secret_name"]

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:[A-Z0-9]*API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD"
    r"|CREDENTIAL|CREDENTIALS|AUTH|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY|APIKEY|DSN)(?:_|$)"
)
_NOT_SECRET_SUFFIX = re.compile(r"_(?:PATH|FILE|DIR|SOCK|SOCKET|HOST|PORT|URL_PATH|TYPE|MODE|ID_FILE|NAME|USER|USERNAME|ENABLED|TIMEOUT)$")
_PLAIN_VALUES = {"disabled", "enabled", "required", "optional", "none", "null", "undefined"}
_NOT_SECRET_NAMES = {"PWD", "OLDPWD", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KEYTIMEOUT", "XAUTHORITY"}

#: (kind, compiled pattern, group to replace — 0 for the whole match)
PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("private_key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"), 0),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{16,}"), 0),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), 0),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"), 0),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), 0),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), 0),
    ("bearer", re.compile(r"(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/\-]{16,}=*)"), 1),
    ("url_password", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]{3,})@"), 1),
)


def is_secret_name(name: str) -> bool:
    """True when an environment variable's name says it holds a secret."""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES or _NOT_SECRET_SUFFIX.search(upper):
        return False
    return bool(_SECRET_NAME.search(upper))


def secret_env_values(environ: Mapping[str, str], *, min_length: int = 8) -> list[tuple[str, str]]:
    """``(name, value)`` of secret-looking variables, longest value first."""
    found = [
        (name, value.strip())
        for name, value in environ.items()
        if len(value.strip()) >= min_length and is_secret_name(name) and value.strip().lower() not in _PLAIN_VALUES
    ]
    found.sort(key=lambda item: len(item[1]), reverse=True)
    return found
